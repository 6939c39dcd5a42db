package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/zut-go/zut/provider"
)

// Config is what a Manager needs from its host.
type Config struct {
	// CWD is the working directory: relative paths resolve against it,
	// and it is the root of files that have no root marker above them.
	CWD string
	// Home is the user's home directory, for "~" in paths.
	Home string
	// ZutHome is zut's own directory ($ZUT_HOME), holding lsp.json.
	ZutHome string
	// TrustProject allows CWD/.zut/lsp.json, which can name commands to
	// run; the host decides when the project is trusted.
	TrustProject bool
	// TrustedRepo is the repository root the user trusts (with --trust,
	// or an answer kept in the trust store), or "" for none. A language
	// server runs code of the repository it works in (gopls runs go list,
	// rust-analyzer build scripts), so servers, built-in ones included,
	// start only for files inside TrustedRepo or outside any repository.
	TrustedRepo string
	// LogDir receives one log file per server: its standard error and the
	// messages it logs. Empty keeps only the last lines, in memory.
	LogDir string
	// DiagnosticsAfterEdit makes DiagnosticsAfterWrite report; when false
	// it returns "" at once. An lsp.json can also turn it off.
	DiagnosticsAfterEdit bool
	// DiagnosticsWait bounds how long DiagnosticsAfterWrite waits for a
	// server's diagnostics; 3 s when zero.
	DiagnosticsWait time.Duration
	// RequestTimeout bounds a server's start and each request; 30 s when
	// zero.
	RequestTimeout time.Duration
	// Warmup is how long after its start a server counts as still loading
	// the workspace: an empty publication of diagnostics then waits up to
	// 300 ms for a newer one, since gopls first publishes before it has
	// type-checked. 10 s when zero; a negative value turns it off.
	Warmup time.Duration
	// ReadyTimeout bounds how long the first syncs of a new server wait
	// for it to load the workspace: the end of the first work done
	// progress it reports (gopls's "Setting up workspace"), counted from
	// initialized. Diagnostics of a file sent before are marked as maybe
	// incomplete. 30 s when zero (or lsp.json's readyTimeoutMs); a
	// negative value does not wait.
	ReadyTimeout time.Duration
	// Apply writes the edits of a rename called with apply: true; the
	// host routes them through its own edit path (confirmation, diffs).
	// WriteEdits is a ready one. Nil refuses apply: true.
	Apply func(ctx context.Context, edits []FileEdit) error
	// Servers are servers set by the host, over the built-in ones and the
	// lsp.json files (an entry with a known Name replaces it whole).
	Servers []ServerConfig
	// Env is the environment of the servers; nil is os.Environ().
	Env []string
	// WrapCommand, when set, may rewrite a server's command before it
	// starts (the app's OS sandbox); an error keeps it from starting.
	WrapCommand func(*exec.Cmd) error
}

// ServerConfig says how to run one language server.
type ServerConfig struct {
	// Name identifies the server in lsp.json, status and logs.
	Name string `json:"-"`
	// Command is the executable, looked up on PATH when it has no slash;
	// Args follow it.
	Command string   `json:"command"`
	Args    []string `json:"args,omitempty"`
	// Extensions are the files the server handles: ".go", or whole file
	// names such as "go.mod".
	Extensions []string `json:"extensions"`
	// LanguageIDs maps an extension to the languageId sent to the server,
	// over the usual ones (".tsx" is "typescriptreact").
	LanguageIDs map[string]string `json:"languageIds,omitempty"`
	// RootMarkers are looked for above a file to find its workspace root,
	// in order: the first marker found anywhere above wins.
	RootMarkers []string `json:"rootMarkers,omitempty"`
	// InitializationOptions are sent in initialize.
	InitializationOptions json.RawMessage `json:"initializationOptions,omitempty"`
	// Settings answer workspace/configuration, by section ("gopls").
	Settings json.RawMessage `json:"settings,omitempty"`
	// Env adds variables to the server's environment.
	Env map[string]string `json:"env,omitempty"`
	// Disabled turns a server off.
	Disabled bool `json:"disabled,omitempty"`
	// Install says how to install the command, for messages.
	Install string `json:"install,omitempty"`
	// ReadyTimeout, when set, is this server's ready timeout (see
	// Config.ReadyTimeout), over the others: for a server whose first
	// work done progress is long and not a load (clangd's background
	// index).
	ReadyTimeout time.Duration `json:"-"`

	source string // "built-in", "host" or the lsp.json path
}

// builtinServers are the servers known out of the box, used when their
// command is on PATH, in this order of preference.
func builtinServers() []ServerConfig {
	py := []string{"pyrightconfig.json", "pyproject.toml", "setup.py", "setup.cfg", "requirements.txt", ".git"}
	return []ServerConfig{
		{Name: "gopls", Command: "gopls", Extensions: []string{".go"},
			RootMarkers: []string{"go.work", "go.mod", ".git"},
			Install:     "go install golang.org/x/tools/gopls@latest"},
		{Name: "rust-analyzer", Command: "rust-analyzer", Extensions: []string{".rs"},
			RootMarkers: []string{"Cargo.toml", "rust-project.json", ".git"},
			Install:     "rustup component add rust-analyzer"},
		{Name: "pyright", Command: "pyright-langserver", Args: []string{"--stdio"},
			Extensions: []string{".py", ".pyi"}, RootMarkers: py,
			Install: "npm install -g pyright"},
		{Name: "basedpyright", Command: "basedpyright-langserver", Args: []string{"--stdio"},
			Extensions: []string{".py", ".pyi"}, RootMarkers: py,
			Install: "pip install basedpyright"},
		{Name: "typescript-language-server", Command: "typescript-language-server", Args: []string{"--stdio"},
			Extensions:  []string{".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts"},
			RootMarkers: []string{"tsconfig.json", "jsconfig.json", "package.json", ".git"},
			Install:     "npm install -g typescript-language-server typescript"},
		{Name: "clangd", Command: "clangd",
			Extensions:  []string{".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".hh", ".hxx", ".m", ".mm"},
			RootMarkers: []string{"compile_commands.json", "compile_flags.txt", ".clangd", "CMakeLists.txt", ".git"},
			Install:     "apt install clangd (or your system's package manager)"},
	}
}

// languageIDs are the usual languageId values by extension.
func languageIDs() map[string]string {
	return languageIDsLazy.get(func() map[string]string {
		return map[string]string{
			".go": "go", ".rs": "rust", ".py": "python", ".pyi": "python",
			".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "typescriptreact",
			".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascriptreact",
			".c": "c", ".h": "c", ".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".hpp": "cpp", ".hh": "cpp",
			".hxx": "cpp", ".m": "objective-c", ".mm": "objective-cpp", "go.mod": "go.mod", "go.work": "go.work",
		}
	})
}

var languageIDsLazy lazy[map[string]string]

// handles reports which entry of Extensions matches the file at abs, or "".
func (sc *ServerConfig) handles(abs string) string {
	base := filepath.Base(abs)
	ext := strings.ToLower(filepath.Ext(base))
	for _, e := range sc.Extensions {
		if strings.HasPrefix(e, ".") && strings.EqualFold(e, ext) || e == base {
			return e
		}
	}
	return ""
}

// languageID is the languageId of the file at abs.
func (sc *ServerConfig) languageID(abs string) string {
	key := sc.handles(abs)
	if key == "" {
		key = strings.ToLower(filepath.Ext(abs))
	}
	if id, ok := sc.LanguageIDs[key]; ok {
		return id
	}
	if id, ok := languageIDs()[strings.ToLower(key)]; ok {
		return id
	}
	return strings.TrimPrefix(key, ".")
}

// settings is the configuration a Manager runs with: the servers and the
// options of the lsp.json files, and the problems met reading them.
type settings struct {
	servers        []ServerConfig
	afterEditOff   bool          // an lsp.json turned diagnostics after edits off
	wait           time.Duration // from lsp.json, 0 when unset
	ready          time.Duration // readyTimeoutMs from lsp.json, 0 when unset
	problems       []string
	files          []string // the lsp.json files read
	projectIgnored string   // the project file, when it exists but is not trusted
}

// fileConfig is the content of an lsp.json file.
type fileConfig struct {
	DiagnosticsAfterEdit *bool                      `json:"diagnosticsAfterEdit"`
	DiagnosticsWaitMS    *int                       `json:"diagnosticsWaitMs"`
	ReadyTimeoutMS       *int                       `json:"readyTimeoutMs"`
	Servers              map[string]json.RawMessage `json:"servers"`
}

// serverPatch is one server entry of an lsp.json: fields that are set
// replace those of the server of that name.
type serverPatch struct {
	Command               *string           `json:"command"`
	Args                  *[]string         `json:"args"`
	Extensions            *[]string         `json:"extensions"`
	LanguageIDs           map[string]string `json:"languageIds"`
	RootMarkers           *[]string         `json:"rootMarkers"`
	InitializationOptions json.RawMessage   `json:"initializationOptions"`
	Settings              json.RawMessage   `json:"settings"`
	Env                   map[string]string `json:"env"`
	Disabled              *bool             `json:"disabled"`
	Install               *string           `json:"install"`
	ReadyTimeoutMS        *int              `json:"readyTimeoutMs"`
}

// maxConfigFile bounds an lsp.json.
const maxConfigFile = 1 << 20

// loadSettings builds the settings from the built-in servers, the user's
// lsp.json, the project's (when trusted) and the host's servers.
func loadSettings(cfg Config) settings {
	var st settings
	st.servers = builtinServers()
	for i := range st.servers {
		st.servers[i].source = "built-in"
	}
	if cfg.ZutHome != "" {
		st.apply(filepath.Join(cfg.ZutHome, "lsp.json"))
	}
	if cfg.CWD != "" {
		project := filepath.Join(cfg.CWD, ".zut", "lsp.json")
		if cfg.TrustProject {
			st.apply(project)
		} else if _, err := os.Stat(project); err == nil {
			st.projectIgnored = project
		}
	}
	for _, sc := range cfg.Servers {
		sc.source = "host"
		if i := st.index(sc.Name); i >= 0 {
			st.servers[i] = sc
		} else {
			st.servers = append(st.servers, sc)
		}
	}
	return st
}

func (st *settings) index(name string) int {
	return slices.IndexFunc(st.servers, func(sc ServerConfig) bool { return sc.Name == name })
}

// apply reads one lsp.json over the settings; a missing file is no
// problem, a bad one is recorded and skipped whole.
func (st *settings) apply(path string) {
	data, err := readBounded(path, maxConfigFile)
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	if err != nil {
		st.problems = append(st.problems, fmt.Sprintf("%s: %v; it is ignored", path, err))
		return
	}
	st.files = append(st.files, path)
	var fc fileConfig
	if err := strictDecode(data, &fc); err != nil {
		st.problems = append(st.problems, fmt.Sprintf("%s: %v; fix the file (it is ignored until then)", path, err))
		return
	}
	names := make([]string, 0, len(fc.Servers))
	for name := range fc.Servers {
		names = append(names, name)
	}
	sort.Strings(names)
	var next []ServerConfig
	next = append(next, st.servers...)
	for _, name := range names {
		var p serverPatch
		if err := strictDecode(fc.Servers[name], &p); err != nil {
			st.problems = append(st.problems, fmt.Sprintf("%s: servers.%s: %v; this server entry is ignored", path, name, err))
			continue
		}
		i := slices.IndexFunc(next, func(sc ServerConfig) bool { return sc.Name == name })
		if i < 0 {
			next = append(next, ServerConfig{Name: name})
			i = len(next) - 1
		}
		if p.ReadyTimeoutMS != nil && (*p.ReadyTimeoutMS <= 0 || *p.ReadyTimeoutMS > 600000) {
			st.problems = append(st.problems, fmt.Sprintf("%s: servers.%s.readyTimeoutMs must be between 1 and 600000, got %d; this server entry is ignored", path, name, *p.ReadyTimeoutMS))
			continue
		}
		sc := p.over(next[i])
		sc.source = path
		if !sc.Disabled && (sc.Command == "" || len(sc.Extensions) == 0) {
			st.problems = append(st.problems, fmt.Sprintf("%s: servers.%s needs \"command\" and \"extensions\"; this server entry is ignored", path, name))
			if next[i].source == "" {
				next = next[:i]
			}
			continue
		}
		next[i] = sc
	}
	st.servers = next
	if fc.DiagnosticsAfterEdit != nil && !*fc.DiagnosticsAfterEdit {
		st.afterEditOff = true
	}
	if fc.DiagnosticsWaitMS != nil {
		if *fc.DiagnosticsWaitMS <= 0 || *fc.DiagnosticsWaitMS > 600000 {
			st.problems = append(st.problems, fmt.Sprintf("%s: diagnosticsWaitMs must be between 1 and 600000, got %d", path, *fc.DiagnosticsWaitMS))
		} else {
			st.wait = time.Duration(*fc.DiagnosticsWaitMS) * time.Millisecond
		}
	}
	if fc.ReadyTimeoutMS != nil {
		if *fc.ReadyTimeoutMS <= 0 || *fc.ReadyTimeoutMS > 600000 {
			st.problems = append(st.problems, fmt.Sprintf("%s: readyTimeoutMs must be between 1 and 600000, got %d", path, *fc.ReadyTimeoutMS))
		} else {
			st.ready = time.Duration(*fc.ReadyTimeoutMS) * time.Millisecond
		}
	}
}

// over returns sc with the fields set in p replaced.
func (p serverPatch) over(sc ServerConfig) ServerConfig {
	if p.Command != nil {
		sc.Command = *p.Command
	}
	if p.Args != nil {
		sc.Args = *p.Args
	}
	if p.Extensions != nil {
		sc.Extensions = *p.Extensions
	}
	if p.LanguageIDs != nil {
		sc.LanguageIDs = p.LanguageIDs
	}
	if p.RootMarkers != nil {
		sc.RootMarkers = *p.RootMarkers
	}
	if p.InitializationOptions != nil {
		sc.InitializationOptions = p.InitializationOptions
	}
	if p.Settings != nil {
		sc.Settings = p.Settings
	}
	if p.Env != nil {
		sc.Env = p.Env
	}
	if p.Disabled != nil {
		sc.Disabled = *p.Disabled
	}
	if p.Install != nil {
		sc.Install = *p.Install
	}
	if p.ReadyTimeoutMS != nil {
		sc.ReadyTimeout = time.Duration(*p.ReadyTimeoutMS) * time.Millisecond
	}
	return sc
}

// candidates returns the enabled servers that handle the file at abs:
// those configured by the user or the host first, then the built-ins.
func (st *settings) candidates(abs string) []ServerConfig {
	var user, builtin []ServerConfig
	for _, sc := range st.servers {
		if sc.Disabled || sc.handles(abs) == "" {
			continue
		}
		if sc.source == "built-in" {
			builtin = append(builtin, sc)
		} else {
			user = append(user, sc)
		}
	}
	return append(user, builtin...)
}

// strictDecode decodes one JSON value into v, refusing unknown fields and
// trailing data, with syntax errors placed by line and column.
func strictDecode(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			line, col := lineCol(data, se.Offset)
			return fmt.Errorf("line %d, column %d: %v", line, col, se)
		}
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return fmt.Errorf("%s must be %s, not a JSON %s", te.Field, goKind(te.Type.Kind().String()), te.Value)
		}
		return errors.New(strings.TrimPrefix(err.Error(), "json: "))
	}
	if dec.More() {
		return errors.New("more than one JSON value")
	}
	return nil
}

func goKind(k string) string {
	switch k {
	case "string":
		return "a string"
	case "slice":
		return "an array"
	case "map", "struct":
		return "an object"
	case "bool":
		return "true or false"
	case "int", "int64":
		return "an integer"
	}
	return "a " + k
}

// lineCol turns a byte offset into a 1-based line and column.
func lineCol(data []byte, off int64) (int, int) {
	off = max(0, min(off, int64(len(data))))
	before := data[:off]
	line := bytes.Count(before, []byte("\n")) + 1
	col := int(off) - (bytes.LastIndexByte(before, '\n') + 1)
	return line, max(col, 1)
}

// readBounded reads a regular file of at most max bytes through
// provider.ReadRegular (never blocking on a FIFO). The error is the reason
// alone, since callers name the file; a missing file wraps
// fs.ErrNotExist.
func readBounded(path string, max int64) ([]byte, error) {
	data, err := provider.ReadRegular(path, max)
	var fe *provider.FileError
	if err != nil && !errors.Is(err, fs.ErrNotExist) && errors.As(err, &fe) {
		return nil, errors.New(fe.Reason())
	}
	return data, err
}

// findRoot returns the workspace root of the file at abs: the nearest
// directory above it holding the first of markers found, else cwd when
// the file is inside it, else the file's directory.
func findRoot(abs string, markers []string, cwd string) string {
	dir := filepath.Dir(abs)
	for _, m := range markers {
		for d := dir; ; {
			if _, err := os.Lstat(filepath.Join(d, m)); err == nil {
				return d
			}
			parent := filepath.Dir(d)
			if parent == d {
				break
			}
			d = parent
		}
	}
	if cwd != "" && within(abs, cwd) {
		return cwd
	}
	return dir
}

// within reports whether path is dir or inside it.
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
