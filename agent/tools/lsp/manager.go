// Package lsp is zut's Language Server Protocol client and the lsp tool
// built on it: one server process per language and workspace root,
// started on the first call that needs it and shut down by
// Manager.Close; diagnostics, definitions, references, hover, symbols and
// renames, shown with 1-based positions counted in characters.
//
// The wire (Content-Length framed JSON-RPC) lives in the jsonrpc
// subpackage. Servers are known out of the box (gopls, rust-analyzer,
// pyright, basedpyright, typescript-language-server, clangd, when on
// PATH) and configured in $ZUT_HOME/lsp.json and, for a trusted project,
// .zut/lsp.json.
package lsp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/zut-go/zut/agent/tools"
)

// Defaults of Config.
const (
	defaultDiagnosticsWait = 3 * time.Second
	defaultRequestTimeout  = 30 * time.Second
	defaultReadyTimeout    = 30 * time.Second
)

// maxServers bounds the server processes one Manager runs at once.
const maxServers = 16

// Consecutive failed starts after which a server is not started again
// until failurePause has passed.
const (
	maxFailures  = 3
	failurePause = time.Minute
)

// Manager runs the language servers of one zut: it starts them lazily,
// routes files to them, and stops them all in Close. It is safe for
// concurrent use.
type Manager struct {
	cfg   Config
	paths tools.Config

	stOnce sync.Once
	st     settings

	mu       sync.Mutex
	closed   bool
	servers  map[string]*server // by server name and root
	failures map[string]*failure
	looked   map[string]lookup // executable look-ups by command
	stops    sync.WaitGroup    // stops of failed servers being replaced
}

type failure struct {
	count int
	last  time.Time
}

type lookup struct {
	path string
	err  error
	at   time.Time
}

// NewManager returns a Manager for cfg. Nothing is read or started until
// the first call that needs a server. The caller must call Close.
func NewManager(cfg Config) *Manager {
	if cfg.CWD == "" {
		cfg.CWD, _ = os.Getwd()
	}
	if cfg.Home == "" {
		cfg.Home, _ = os.UserHomeDir()
	}
	if cfg.RequestTimeout <= 0 {
		cfg.RequestTimeout = defaultRequestTimeout
	}
	if cfg.Env == nil {
		cfg.Env = os.Environ()
	}
	return &Manager{
		cfg:      cfg,
		paths:    tools.Config{CWD: cfg.CWD, Home: cfg.Home},
		servers:  map[string]*server{},
		failures: map[string]*failure{},
		looked:   map[string]lookup{},
	}
}

// settings reads the configuration the first time it is needed.
func (m *Manager) settings() *settings {
	m.stOnce.Do(func() { m.st = loadSettings(m.cfg) })
	return &m.st
}

// wait is how long DiagnosticsAfterWrite waits: the host's setting, else
// lsp.json's, else the default.
func (m *Manager) wait() time.Duration {
	switch {
	case m.cfg.DiagnosticsWait > 0:
		return m.cfg.DiagnosticsWait
	case m.settings().wait > 0:
		return m.settings().wait
	}
	return defaultDiagnosticsWait
}

// warmup is Config.Warmup with its default.
func (m *Manager) warmup() time.Duration {
	switch {
	case m.cfg.Warmup < 0:
		return 0
	case m.cfg.Warmup == 0:
		return defaultWarmup
	}
	return m.cfg.Warmup
}

// readyTimeout is how long the first syncs of a new server of sc wait for
// it to load the workspace: the server's own setting, else the host's,
// else lsp.json's, else the default; negative does not wait.
func (m *Manager) readyTimeout(sc ServerConfig) time.Duration {
	switch {
	case sc.ReadyTimeout < 0:
		return 0
	case sc.ReadyTimeout > 0:
		return sc.ReadyTimeout
	case m.cfg.ReadyTimeout < 0:
		return 0
	case m.cfg.ReadyTimeout > 0:
		return m.cfg.ReadyTimeout
	case m.settings().ready > 0:
		return m.settings().ready
	}
	return defaultReadyTimeout
}

// errClosed is the error of calls after Close.
var errClosed = errors.New("zut is shutting down its language servers")

// noServerError says that no usable server handles a file.
type noServerError struct{ msg string }

func (e *noServerError) Error() string { return e.msg }

// lookPath finds a server command, caching the answer for a while.
func (m *Manager) lookPath(command string) (string, error) {
	m.mu.Lock()
	l, ok := m.looked[command]
	m.mu.Unlock()
	if ok && time.Since(l.at) < 30*time.Second {
		return l.path, l.err
	}
	name := command
	switch {
	case strings.HasPrefix(name, "~/"):
		name = filepath.Join(m.cfg.Home, name[2:])
	case strings.Contains(name, "/") && !filepath.IsAbs(name):
		name = filepath.Join(m.cfg.CWD, name)
	}
	p, err := exec.LookPath(name)
	if err == nil && !filepath.IsAbs(p) {
		p, err = filepath.Abs(p)
	}
	m.mu.Lock()
	m.looked[command] = lookup{path: p, err: err, at: time.Now()}
	m.mu.Unlock()
	return p, err
}

// serverFor returns the server for the file at abs, starting it when it
// is not running. The server may still be starting.
func (m *Manager) serverFor(abs string) (*server, error) {
	if msg := m.untrusted(abs); msg != "" {
		return nil, &noServerError{msg}
	}
	st := m.settings()
	cands := st.candidates(abs)
	if len(cands) == 0 {
		return nil, &noServerError{m.noServerMessage(abs)}
	}
	var missing []string
	for _, sc := range cands {
		exe, err := m.lookPath(sc.Command)
		if err != nil {
			msg := fmt.Sprintf("%s is not on PATH", sc.Command)
			if sc.Install != "" {
				msg += " (install: " + sc.Install + ")"
			}
			missing = append(missing, msg)
			continue
		}
		return m.ensure(sc, exe, findRoot(abs, sc.RootMarkers, m.cfg.CWD))
	}
	where := "~/.zut/lsp.json"
	if m.cfg.ZutHome != "" {
		where = filepath.Join(m.cfg.ZutHome, "lsp.json")
	}
	return nil, &noServerError{fmt.Sprintf("no language server for %s is installed: %s; or configure one in %s",
		kindOf(abs), strings.Join(missing, "; "), where)}
}

// kindOf names the kind of file at abs: ".py files" or "Makefile".
func kindOf(abs string) string {
	if ext := filepath.Ext(abs); ext != "" {
		return ext + " files"
	}
	return filepath.Base(abs)
}

func (m *Manager) noServerMessage(abs string) string {
	seen := map[string]bool{}
	var exts []string
	for _, sc := range m.settings().servers {
		if sc.Disabled {
			continue
		}
		for _, e := range sc.Extensions {
			if !seen[e] {
				seen[e] = true
				exts = append(exts, e)
			}
		}
	}
	where := "$ZUT_HOME/lsp.json"
	if m.cfg.ZutHome != "" {
		where = filepath.Join(m.cfg.ZutHome, "lsp.json")
	}
	msg := fmt.Sprintf("no language server handles %s (servers are configured for %s); add one to %s", kindOf(abs), strings.Join(exts, " "), where)
	if p := m.settings().problems; len(p) > 0 {
		msg += "; note: " + strings.Join(p, "; ")
	}
	return msg
}

// ensure returns the live server of sc for root, starting one when there
// is none or the last one died.
func (m *Manager) ensure(sc ServerConfig, exe, root string) (*server, error) {
	key := sc.Name + "\x00" + root
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, errClosed
	}
	if s := m.servers[key]; s != nil {
		if s.alive() {
			return s, nil
		}
		delete(m.servers, key)
		m.stops.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			s.stop(ctx)
		})
		f := m.failures[key]
		if f == nil {
			f = &failure{}
			m.failures[key] = f
		}
		f.count++
		f.last = time.Now()
	}
	if f := m.failures[key]; f != nil && f.count >= maxFailures && time.Since(f.last) < failurePause {
		wait := (failurePause - time.Since(f.last)).Round(time.Second)
		return nil, fmt.Errorf("%s failed %d times in a row, so zut waits %s before starting it again; see lsp action=status for its last error", sc.Name, f.count, wait)
	}
	if len(m.servers) >= maxServers {
		return nil, fmt.Errorf("%d language servers are running already, the most zut runs at once", maxServers)
	}
	s := newServer(sc, exe, root, m.cfg.LogDir, m.cfg.RequestTimeout, m.warmup(), m.readyTimeout(sc), m.cfg.Env, m.cfg.WrapCommand, func(err error) {
		if err == nil {
			m.mu.Lock()
			delete(m.failures, key)
			m.mu.Unlock()
		}
	})
	m.servers[key] = s
	return s, nil
}

// running returns the servers that are starting or running.
func (m *Manager) running() []*server {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []*server
	for _, s := range m.servers {
		if s.alive() {
			out = append(out, s)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].cfg.Name != out[j].cfg.Name {
			return out[i].cfg.Name < out[j].cfg.Name
		}
		return out[i].root < out[j].root
	})
	return out
}

// untrusted says why no server may start for the file at abs: it lies
// in a repository the user has not trusted. "" lets it start.
func (m *Manager) untrusted(abs string) string {
	repo := repoRoot(abs)
	if repo == "" || (m.cfg.TrustedRepo != "" && filepath.Clean(m.cfg.TrustedRepo) == repo) {
		return ""
	}
	return fmt.Sprintf("language servers are off for %s: it is in %s, a repository you have not trusted, and a language server runs the repository's code (gopls runs go list, rust-analyzer build scripts); run zut with --trust in this folder to use them (the interactive UI keeps a Trust this folder answer, asked when the folder has code of its own)", abs, repo)
}

// repoRoot is the nearest directory above abs (or abs itself) holding
// .git, or "" when abs is in no repository.
func repoRoot(abs string) string {
	for d := filepath.Clean(abs); ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return ""
		}
		d = parent
	}
}

// projectServers starts the servers whose root markers (other than .git)
// are in the working directory, for calls that name no file.
func (m *Manager) projectServers() []*server {
	if m.untrusted(m.cfg.CWD) != "" {
		return nil
	}
	var out []*server
	for _, sc := range m.settings().servers {
		if sc.Disabled {
			continue
		}
		for _, mk := range sc.RootMarkers {
			if mk == ".git" {
				continue
			}
			if _, err := os.Stat(filepath.Join(m.cfg.CWD, mk)); err != nil {
				continue
			}
			exe, err := m.lookPath(sc.Command)
			if err != nil {
				break
			}
			if s, err := m.ensure(sc, exe, m.cfg.CWD); err == nil {
				out = append(out, s)
			}
			break
		}
	}
	return out
}

// Close shuts every server down (shutdown and exit, then a kill for those
// that do not exit in time, bounded by ctx) and joins every goroutine.
// Calls after Close fail.
func (m *Manager) Close(ctx context.Context) error {
	m.mu.Lock()
	m.closed = true
	all := make([]*server, 0, len(m.servers))
	for _, s := range m.servers {
		all = append(all, s)
	}
	m.servers = map[string]*server{}
	m.mu.Unlock()
	var wg sync.WaitGroup
	errs := make([]error, len(all))
	for i, s := range all {
		wg.Go(func() { errs[i] = s.stop(ctx) })
	}
	wg.Wait()
	m.stops.Wait()
	return errors.Join(errs...)
}

// Status describes every known server and its instances.
func (m *Manager) Status() []ServerStatus {
	st := m.settings()
	m.mu.Lock()
	byName := map[string][]*server{}
	for _, s := range m.servers {
		byName[s.cfg.Name] = append(byName[s.cfg.Name], s)
	}
	m.mu.Unlock()
	var out []ServerStatus
	for _, sc := range st.servers {
		ss := ServerStatus{Name: sc.Name, Command: sc.Command, Extensions: sc.Extensions, Source: sc.source, Disabled: sc.Disabled}
		if exe, err := m.lookPath(sc.Command); err == nil {
			ss.Available, ss.Executable = true, exe
		} else {
			ss.Problem = sc.Command + " is not on PATH"
			if sc.Install != "" {
				ss.Problem += " (install: " + sc.Install + ")"
			}
		}
		insts := byName[sc.Name]
		sort.Slice(insts, func(i, j int) bool { return insts[i].root < insts[j].root })
		for _, s := range insts {
			in := s.instance()
			if in.LastError != "" {
				ss.LastError = in.LastError
			}
			ss.Instances = append(ss.Instances, in)
		}
		out = append(out, ss)
	}
	return out
}

// instance describes one server process.
func (s *server) instance() Instance {
	in := Instance{Root: s.root, Log: s.log.path, OpenFiles: s.docs.count(), Progress: s.progressText()}
	s.mu.Lock()
	in.Since, in.LastError = s.started, s.lastError
	s.mu.Unlock()
	switch {
	case !s.isReady():
		in.State = "starting"
	case s.alive():
		in.State, in.PID, in.Info = "running", s.pid, s.info
	default:
		in.State = "failed"
	}
	return in
}
