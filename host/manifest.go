package host

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ManifestFile is the name of an extension's manifest inside its directory.
const ManifestFile = "extension.json"

// Manifest is a validated extension.json together with the paths the host
// resolved from it.
type Manifest struct {
	Name        string
	Version     string
	Exec        string   // as written
	Args        []string // extra argv
	Language    string   // informational
	Description string
	Skills      []string // as written
	Enabled     bool     // true unless the manifest says false

	Dir  string // the extension directory, absolute, symlinks resolved
	File string // the manifest's path

	// ExecPath is the executable inside Dir for a path exec, or "" for a
	// bare command name, which is looked up on PATH at start (C23), and
	// for a theme-only extension.
	ExecPath string
	// SkillDirs are the existing skill directories, absolute and inside
	// Dir (C23).
	SkillDirs []string
	// Theme is the theme file (theme.json or themes/theme.json) when the
	// extension ships one.
	Theme string
	// Warnings are problems that do not stop the extension, such as a
	// skills directory that does not exist.
	Warnings []string
}

// ThemeOnly reports whether the extension ships a theme and no
// executable; such an extension is never spawned.
func (m *Manifest) ThemeOnly() bool { return m.Exec == "" && m.Theme != "" }

// ManifestError reports a manifest that cannot be used. Field is the
// offending member ("" when the whole file is at fault).
type ManifestError struct {
	File  string
	Field string
	Err   error
}

func (e *ManifestError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("manifest %s: %v", e.File, e.Err)
	}
	return fmt.Sprintf("manifest %s: field %q: %v", e.File, e.Field, e.Err)
}

func (e *ManifestError) Unwrap() error { return e.Err }

// ReadManifest reads and validates dir/extension.json. Errors are
// *ManifestError and name the file and the field: not JSON, a member of
// the wrong type, a missing or malformed name, a missing exec (unless the
// extension ships a theme), an exec or skills path that leaves the
// directory through ".." or a symlink (C23), or an exec that does not
// exist or is not executable.
func ReadManifest(dir string) (*Manifest, error) {
	file := filepath.Join(dir, ManifestFile)
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, &ManifestError{File: file, Err: err}
	}
	file = filepath.Join(abs, ManifestFile)
	root, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, &ManifestError{File: file, Err: fmt.Errorf("extension directory: %w", err)}
	}
	data, err := readManifestFile(file)
	if err != nil {
		return nil, err
	}
	m := &Manifest{Dir: root, File: file, Enabled: true}
	if err := m.decode(data); err != nil {
		return nil, err
	}
	if err := m.resolve(); err != nil {
		return nil, err
	}
	return m, nil
}

// ReadManifestFile returns the bytes of dir/extension.json, read the way
// ReadManifest reads them (a regular file of at most MaxManifest bytes; a
// FIFO or a device is refused at once) but neither decoded nor checked,
// for a caller that needs a member before the extension is complete
// (zut ext install --build=go reads exec before it builds it). Errors are
// *ManifestError naming the file.
func ReadManifestFile(dir string) ([]byte, error) {
	return readManifestFile(filepath.Join(dir, ManifestFile))
}

func readManifestFile(file string) ([]byte, error) {
	data, err := readRegular(file, MaxManifest)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, &ManifestError{File: file, Err: errors.New("no such file; an extension directory needs an extension.json")}
		}
		return nil, &ManifestError{File: file, Err: err}
	}
	return data, nil
}

// decode fills the manifest's fields from data, checking each type.
func (m *Manifest) decode(data []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return &ManifestError{File: m.File, Err: fmt.Errorf("not a JSON object: %s", jsonErrorAt(data, err))}
	}
	if raw == nil {
		return &ManifestError{File: m.File, Err: errors.New("not a JSON object: null")}
	}
	str := func(field string, dst *string) error {
		v, ok := raw[field]
		if !ok {
			return nil
		}
		if err := json.Unmarshal(v, dst); err != nil || isNull(v) {
			return &ManifestError{File: m.File, Field: field, Err: fmt.Errorf("want a string, got %s", jsonKind(v))}
		}
		return nil
	}
	strs := func(field string, dst *[]string) error {
		v, ok := raw[field]
		if !ok || isNull(v) {
			return nil
		}
		if err := json.Unmarshal(v, dst); err != nil {
			return &ManifestError{File: m.File, Field: field, Err: fmt.Errorf("want an array of strings, got %s", jsonKind(v))}
		}
		return nil
	}
	for _, step := range []error{
		str("name", &m.Name), str("version", &m.Version), str("exec", &m.Exec),
		str("language", &m.Language), str("description", &m.Description),
		strs("args", &m.Args), strs("skills", &m.Skills),
	} {
		if step != nil {
			return step
		}
	}
	if v, ok := raw["enabled"]; ok && !isNull(v) {
		if err := json.Unmarshal(v, &m.Enabled); err != nil {
			return &ManifestError{File: m.File, Field: "enabled", Err: fmt.Errorf("want true or false, got %s", jsonKind(v))}
		}
	}
	if _, ok := raw["name"]; !ok || m.Name == "" {
		return &ManifestError{File: m.File, Field: "name", Err: errors.New("missing; every extension needs a name")}
	}
	if err := CheckName(m.Name); err != nil {
		return &ManifestError{File: m.File, Field: "name", Err: err}
	}
	return nil
}

// resolve checks the paths of the manifest against its directory.
func (m *Manifest) resolve() error {
	for _, rel := range []string{"theme.json", filepath.Join("themes", "theme.json")} {
		p := filepath.Join(m.Dir, rel)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			if _, err := inside(m.Dir, rel); err == nil {
				m.Theme = p
				break
			}
		}
	}
	switch {
	case m.Exec == "" && m.Theme == "":
		return &ManifestError{File: m.File, Field: "exec", Err: errors.New("missing; a protocol extension needs exec (a theme-only extension ships theme.json instead)")}
	case m.Exec == "":
	case !strings.ContainsRune(m.Exec, '/') && !strings.ContainsRune(m.Exec, filepath.Separator):
		// A bare command name such as node: looked up on PATH at start.
	default:
		p, err := inside(m.Dir, m.Exec)
		if errors.Is(err, fs.ErrNotExist) {
			return &ManifestError{File: m.File, Field: "exec", Err: fmt.Errorf("%s does not exist in %s; build or copy the executable first", m.Exec, m.Dir)}
		}
		if err != nil {
			return &ManifestError{File: m.File, Field: "exec", Err: err}
		}
		fi, err := os.Stat(p)
		switch {
		case err != nil:
			return &ManifestError{File: m.File, Field: "exec", Err: err}
		case !fi.Mode().IsRegular():
			return &ManifestError{File: m.File, Field: "exec", Err: fmt.Errorf("%s is not a regular file", m.Exec)}
		case fi.Mode().Perm()&0o111 == 0:
			return &ManifestError{File: m.File, Field: "exec", Err: fmt.Errorf("%s is not executable; run chmod +x on it", m.Exec)}
		}
		m.ExecPath = p
	}
	for _, s := range m.Skills {
		p, err := inside(m.Dir, s)
		if errors.Is(err, fs.ErrNotExist) {
			m.Warnings = append(m.Warnings, fmt.Sprintf("skills directory %q does not exist", s))
			continue
		}
		if err != nil {
			return &ManifestError{File: m.File, Field: "skills", Err: err}
		}
		if fi, err := os.Stat(p); err != nil || !fi.IsDir() {
			return &ManifestError{File: m.File, Field: "skills", Err: fmt.Errorf("%s is not a directory", s)}
		}
		m.SkillDirs = append(m.SkillDirs, p)
	}
	return nil
}

// inside resolves rel (relative to root, or absolute) and returns its
// path with symlinks resolved, or an error when it leaves root lexically
// (..) or through a symlink. A missing path is an fs.ErrNotExist error
// once the lexical check has passed.
func inside(root, rel string) (string, error) {
	p := rel
	if !filepath.IsAbs(p) {
		p = filepath.Join(root, p)
	}
	p = filepath.Clean(p)
	if !within(root, p) {
		return "", fmt.Errorf("%s leaves the extension directory %s; keep it inside", rel, root)
	}
	resolved, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", fmt.Errorf("%s: %w", rel, errNotExistOr(err))
	}
	if !within(root, resolved) {
		return "", fmt.Errorf("%s resolves through a symlink to %s, outside the extension directory %s", rel, resolved, root)
	}
	return resolved, nil
}

func errNotExistOr(err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return fs.ErrNotExist
	}
	return err
}

// within reports whether p is root or below it; both are clean absolute
// paths.
func within(root, p string) bool {
	r, err := filepath.Rel(root, p)
	return err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) && !filepath.IsAbs(r)
}

// CheckName accepts extension names that are safe in a file name (the
// log is ext-<name>.log): letters, digits, '.', '_' and '-', not starting
// with '.' or '-', at most 64 bytes. zut ext init holds new names to it.
func CheckName(name string) error {
	if name == "" {
		return errors.New("is empty; give one such as my-ext")
	}
	if len(name) > 64 {
		return fmt.Errorf("%q is longer than 64 bytes", name)
	}
	for i, c := range name {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' ||
			i > 0 && (c == '.' || c == '-')
		if !ok {
			return fmt.Errorf("%q may use only letters, digits, '.', '_' and '-', and must start with a letter, digit or '_'", name)
		}
	}
	return nil
}

func isNull(v json.RawMessage) bool { return string(bytes.TrimSpace(v)) == "null" }

// jsonKind names the JSON type of v for error messages.
func jsonKind(v json.RawMessage) string {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return "nothing"
	}
	switch v[0] {
	case '"':
		return "a string"
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// jsonErrorAt adds the line and column of a syntax error to its message.
func jsonErrorAt(data []byte, err error) string {
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		return err.Error()
	}
	off := int(min(se.Offset, int64(len(data))))
	line := 1 + bytes.Count(data[:off], []byte{'\n'})
	col := off - bytes.LastIndexByte(data[:off], '\n')
	return fmt.Sprintf("line %d, column %d: %v", line, col, err)
}
