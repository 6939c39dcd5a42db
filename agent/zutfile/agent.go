package zutfile

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/zut-go/zut/proto/regular"
)

// InstructionsName is the agent's instructions at its root.
const InstructionsName = "AGENT.md"

// MaxInstructions bounds AGENT.md.
const MaxInstructions = 1 << 20

// Agent is a loaded zutfile.
type Agent struct {
	Manifest *Manifest
	// Dir is the agent's root on disk: the directory given, or the
	// temporary copy of an archive or a repository.
	Dir string
	// Digest sums the tree (see Digest): "sha256:<hex>".
	Digest string
	// Instructions is AGENT.md ("" when there is none).
	Instructions string
	// Warnings are the manifest's (see Parse) and the tree's.
	Warnings []string
	// Files are the tree's regular files, sorted by path.
	Files []File
	// Source is what Load was given; Kind is "directory", "archive" or
	// "git".
	Source, Kind string
	// Kept is the temporary copy LoadOptions.Keep kept, "" otherwise.
	Kept string
}

// LoadOptions tune Load.
type LoadOptions struct {
	// Keep keeps the temporary copy of an archive or a repository (the
	// cleanup then removes nothing; Agent.Kept says where it is).
	Keep bool
	// TempDir is where temporary copies go; "" is os.TempDir().
	TempDir string
	// GitBase is the base of repository URLs; "" is $ZUT_ZUTFILE_GIT_BASE,
	// else https://github.com.
	GitBase string
	// Limits bound the tree; zero fields take DefaultLimits.
	Limits Limits
}

// Load loads the agent at src: a directory, a .zut archive (any existing
// file is read as one), or, when src names nothing on disk, a GitHub
// repository owner/repo or owner/repo/path. The cleanup removes the
// temporary copy (a directory has none); the caller calls it once done
// with the agent, also after an error of a later step. On error the
// cleanup is a no-op and nothing is left behind.
func Load(ctx context.Context, src string, o LoadOptions) (*Agent, func() error, error) {
	noop := func() error { return nil }
	fi, err := os.Stat(src)
	switch {
	case err == nil && fi.IsDir():
		a, err := loadDir(src, o.Limits)
		if err != nil {
			return nil, noop, fmt.Errorf("load agent %s: %v", src, err)
		}
		a.Source, a.Kind = src, "directory"
		return a, noop, nil
	case err == nil && fi.Mode().IsRegular():
		return loadArchive(src, o)
	case err == nil:
		return nil, noop, fmt.Errorf("load agent %s: it is %s; give a directory, a .zut archive or owner/repo", src, regular.Kind(fi.Mode()))
	case !errors.Is(err, fs.ErrNotExist):
		return nil, noop, fmt.Errorf("load agent %s: %v", src, err)
	}
	if _, _, _, ok := splitRepo(src); !ok {
		return nil, noop, fmt.Errorf("load agent %s: no such file or directory, and not a repository owner/repo[/path]", src)
	}
	return loadGit(ctx, src, o)
}

// loadDir reads the agent whose root is dir. Its errors do not name
// dir: the caller says what was loaded.
func loadDir(dir string, lim Limits) (*Agent, error) {
	abs, err := filepath.Abs(dir)
	if err == nil {
		abs, err = filepath.EvalSymlinks(abs)
	}
	if err != nil {
		return nil, pathErr(err)
	}
	files, err := walk(abs, lim)
	if err != nil {
		return nil, err
	}
	data, err := regular.Read(filepath.Join(abs, ManifestName), MaxManifest)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("no %s at its root; a zutfile is a directory with %s and %s", ManifestName, ManifestName, InstructionsName)
	}
	if err != nil {
		return nil, relErr(err, abs)
	}
	m, warnings, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", ManifestName, strings.TrimPrefix(err.Error(), "manifest "))
	}
	a := &Agent{Manifest: m, Dir: abs, Digest: Digest(files), Files: files, Warnings: warnings}
	instr, err := regular.Read(filepath.Join(abs, InstructionsName), MaxInstructions)
	switch {
	case errors.Is(err, fs.ErrNotExist) && m.ReplaceSystemPrompt:
		return nil, fmt.Errorf("replace_system_prompt is set but there is no %s to be the system prompt", InstructionsName)
	case errors.Is(err, fs.ErrNotExist):
		a.Warnings = append(a.Warnings, fmt.Sprintf("no %s: the agent adds no instructions to zut's", InstructionsName))
	case err != nil:
		return nil, relErr(err, abs)
	default:
		a.Instructions = string(instr)
	}
	for i, e := range m.Extensions {
		fi, err := os.Lstat(filepath.Join(abs, filepath.FromSlash(e)))
		if err != nil || !fi.IsDir() {
			return nil, fmt.Errorf("%s extensions[%d] %q is not a directory of the agent", ManifestName, i, e)
		}
	}
	return a, nil
}

// relErr writes an error about a file of the tree at root with the
// file's path relative to the root.
func relErr(err error, root string) error {
	return errors.New(strings.ReplaceAll(err.Error(), root+string(filepath.Separator), ""))
}

// pathErr is a file error's cause alone.
func pathErr(err error) error { return errors.New(pathReason(err)) }

// AgentDataDir is the agent's own data directory, ${agent_data}:
// $ZUT_HOME/agents/<name>/data.
func AgentDataDir(zutHome, name string) string {
	return filepath.Join(zutHome, "agents", name, "data")
}

// SessionsDir is where the agent's sessions are kept:
// $ZUT_HOME/agents/<name>/sessions.
func SessionsDir(zutHome, name string) string {
	return filepath.Join(zutHome, "agents", name, "sessions")
}

// Vars are the values of the manifest's variables for a run in
// workspace, with zut's home zutHome and the user's home directory home.
func (a *Agent) Vars(zutHome, workspace, home string) Vars {
	return Vars{Workspace: workspace, AgentData: AgentDataDir(zutHome, a.Manifest.Name), Home: home}
}

// Permissions are the lines a consent screen and zut inspect show: every
// permission of the manifest as written, each path followed by what it
// resolves to when v is given (a zero Vars shows the paths as written).
func (a *Agent) Permissions(v ...Vars) []string {
	m := a.Manifest
	p := m.Permissions
	resolve := func(path string) string {
		if len(v) == 0 || v[0] == (Vars{}) {
			return path
		}
		r, err := v[0].Resolve(path)
		if err != nil {
			return path + " (" + err.Error() + ")"
		}
		if r == path {
			return path
		}
		return path + " = " + r
	}
	var out []string
	if len(p.FS.Read) == 0 {
		out = append(out, "read files: nowhere")
	}
	for _, r := range p.FS.Read {
		out = append(out, "read files under "+resolve(r))
	}
	if len(p.FS.Write) == 0 {
		out = append(out, "write files: nowhere")
	}
	for _, w := range p.FS.Write {
		out = append(out, "write files under "+resolve(w))
	}
	switch p.Bash.Mode {
	case BashNone:
		out = append(out, "run commands: never (bash none)")
	case BashAllowlist:
		out = append(out, "run commands: only these (bash allowlist): "+strings.Join(p.Bash.Allow, "; "))
	default:
		out = append(out, "run commands: any, each after you confirm it (bash ask)")
	}
	if len(p.Net.Allow) == 0 {
		out = append(out, "network: none")
	} else {
		out = append(out, "network: only "+strings.Join(p.Net.Allow, ", "))
	}
	if len(p.Env.Read) == 0 {
		out = append(out, "environment: no variables")
	} else {
		out = append(out, "environment: only "+strings.Join(p.Env.Read, ", "))
	}
	for _, e := range m.Extensions {
		out = append(out, "bundled extension "+e+" (runs code, inside the limits above)")
	}
	if m.ReplaceSystemPrompt {
		out = append(out, "replaces zut's system prompt with "+InstructionsName)
	}
	return out
}
