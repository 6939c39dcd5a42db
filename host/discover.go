package host

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
)

// Scopes of a discovered extension, in load order (C10).
const (
	ScopeExt     = "ext"     // a --ext directory
	ScopeProject = "project" // <cwd>/.zut/extensions/<dir>
	ScopeGlobal  = "global"  // $ZUT_HOME/extensions/<dir>
)

// Statuses of an extension, as Report.Status and Entry.Status give them.
const (
	StatusOK           = "ok"            // loaded and sent ready
	StatusAutoReady    = "auto-ready"    // loaded, no ready but quiet for 250 ms (C5)
	StatusReadyTimeout = "ready-timeout" // loaded, still registering after 3 s (C5)
	StatusError        = "error"         // manifest or load error, or stopped
	StatusDisabled     = "disabled"      // enabled: false
	StatusShadowed     = "shadowed"      // an earlier extension has the same name
	StatusThemeOnly    = "theme-only"    // ships a theme, nothing to run
	StatusUntrusted    = "untrusted"     // a project extension in a directory the user has not trusted
	// StatusEnabled is what Entry.Status says of an extension that will
	// be started; after a load it becomes one of the statuses above.
	StatusEnabled = "enabled"
)

// Entry is one extension directory found by Discover.
type Entry struct {
	Dir      string    // as found (absolute)
	Scope    string    // ScopeExt, ScopeProject or ScopeGlobal
	Manifest *Manifest // nil when Err is set
	Err      error     // the *ManifestError that keeps it from loading
	// ShadowedBy is the directory of the earlier extension with the same
	// name, when this one is shadowed.
	ShadowedBy string
	// Untrusted marks a project extension that is not started because
	// Config.TrustProject said no; it claims no name, so a global
	// extension of the same name loads instead.
	Untrusted bool
}

// Status returns StatusError, StatusUntrusted, StatusShadowed, StatusDisabled,
// StatusThemeOnly or StatusEnabled.
func (e Entry) Status() string {
	switch {
	case e.Err != nil:
		return StatusError
	case e.Untrusted:
		return StatusUntrusted
	case e.ShadowedBy != "":
		return StatusShadowed
	case !e.Manifest.Enabled:
		return StatusDisabled
	case e.Manifest.ThemeOnly():
		return StatusThemeOnly
	}
	return StatusEnabled
}

// Name returns the manifest name, or the directory name when the
// manifest could not be read.
func (e Entry) Name() string {
	if e.Manifest != nil {
		return e.Manifest.Name
	}
	return filepath.Base(e.Dir)
}

// LogPath returns the stderr log of the extension named name under home:
// home/logs/ext-<name>.log (C22).
func LogPath(home, name string) string {
	return filepath.Join(home, "logs", "ext-"+name+".log")
}

// Discover lists the extensions zut would load, in load order (C10):
// extDirs in the order given, then <cwd>/.zut/extensions/*, then
// <home>/extensions/*, each directory group sorted by name. Only
// subdirectories holding an extension.json are listed from the two search
// directories, and hidden ones are skipped; an extDirs entry is always
// listed. The first valid manifest of a name claims it, enabled or not;
// later ones are shadowed. A directory reached twice is listed once.
func Discover(home, cwd string, extDirs []string) []Entry {
	var entries []Entry
	seen := map[string]bool{}
	add := func(dir, scope string) {
		abs, err := filepath.Abs(dir)
		if err != nil {
			abs = dir
		}
		key := abs
		if r, err := filepath.EvalSymlinks(abs); err == nil {
			key = r
		}
		if seen[key] {
			return
		}
		seen[key] = true
		m, err := ReadManifest(abs)
		entries = append(entries, Entry{Dir: abs, Scope: scope, Manifest: m, Err: err})
	}
	for _, d := range extDirs {
		add(d, ScopeExt)
	}
	if cwd != "" {
		for _, d := range subdirs(filepath.Join(cwd, ".zut", "extensions")) {
			add(d, ScopeProject)
		}
	}
	if home != "" {
		for _, d := range subdirs(filepath.Join(home, "extensions")) {
			add(d, ScopeGlobal)
		}
	}
	shadow(entries)
	return entries
}

// shadow marks the entries whose name an earlier valid, trusted entry
// already claimed.
func shadow(entries []Entry) {
	owner := map[string]string{}
	for i := range entries {
		e := &entries[i]
		e.ShadowedBy = ""
		if e.Err != nil || e.Untrusted {
			continue
		}
		if first, ok := owner[e.Manifest.Name]; ok {
			e.ShadowedBy = first
			continue
		}
		owner[e.Manifest.Name] = e.Dir
	}
}

// RunsCode reports whether the entry names a program to run: a theme-only
// extension, or one whose manifest is broken, runs nothing and needs no
// trust.
func (e Entry) RunsCode() bool { return e.Manifest != nil && e.Manifest.Exec != "" }

// ApplyTrust (used by Start and Reload, and by `zut ext list` to show
// the same statuses) asks trust about the project entries (all at once, as the
// trust store keys them by one digest) and marks them Untrusted when it
// says no. A nil trust, or no project entry, changes nothing.
func ApplyTrust(entries []Entry, trust func([]Entry) bool) {
	if trust == nil {
		return
	}
	var project []Entry
	for _, e := range entries {
		if e.Scope == ScopeProject && e.RunsCode() {
			project = append(project, e)
		}
	}
	if len(project) == 0 || trust(project) {
		return
	}
	for i := range entries {
		if entries[i].Scope == ScopeProject && entries[i].RunsCode() {
			entries[i].Untrusted = true
		}
	}
	shadow(entries)
}

// subdirs returns the non-hidden subdirectories of dir that hold a
// manifest, sorted by name; a missing dir has none.
func subdirs(dir string) []string {
	des, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, de := range des {
		if strings.HasPrefix(de.Name(), ".") {
			continue
		}
		p := filepath.Join(dir, de.Name())
		if fi, err := os.Stat(p); err != nil || !fi.IsDir() {
			continue
		}
		if _, err := os.Stat(filepath.Join(p, ManifestFile)); errors.Is(err, os.ErrNotExist) {
			continue
		}
		out = append(out, p)
	}
	return out
}
