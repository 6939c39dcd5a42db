package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/zut-go/zut/agent/tools"
	"github.com/zut-go/zut/agent/tools/lsp/jsonrpc"
)

// maxFrame bounds one message from a server.
const maxFrame = jsonrpc.DefaultMaxFrame

// server is one language server process for one workspace root. It is
// started by newServer and stopped by stop, which joins every goroutine it
// owns: start (until initialize is answered), wait (until the process is
// reaped), watch (until the connection or the process ends) and the
// standard error copier (until the pipe closes). Safe for concurrent use.
type server struct {
	cfg     ServerConfig
	exe     string
	root    string
	log     *serverLog
	timeout time.Duration
	warmup  time.Duration // see Config.Warmup
	readyBy time.Duration // see Config.ReadyTimeout
	environ []string
	wrap    func(*exec.Cmd) error // Config.WrapCommand
	onReady func(err error)       // told once how the start went

	ready    chan struct{} // closed when the start has finished, well or not
	loaded   chan struct{} // closed when the first work done progress has ended
	loadOnce sync.Once
	exited   chan struct{} // closed when the process is reaped or never ran
	exitOnce sync.Once
	procCtx  context.Context
	kill     context.CancelFunc
	wg       sync.WaitGroup

	// Set by start before ready is closed; read-only after.
	conn      *jsonrpc.Conn
	pid       int
	caps      serverCapabilities
	info      string
	enc       encoding
	syncKind  int
	openClose bool
	startErr  error

	mu        sync.Mutex
	stopping  bool
	started   time.Time
	initAt    time.Time // when initialized was sent
	exitState string
	lastError string
	progress  map[string]string // work done progress by token
	announced bool              // the server created or began work done progress
	progSig   chan struct{}     // closed and replaced at every change of progress
	loadWaits int               // calls that waited for the first progress to end

	docs docSet
	diag diagStore
}

// newServer starts a server in the background; callers wait for it with
// waitReady, and for its first load with waitLoaded.
func newServer(cfg ServerConfig, exe, root, logDir string, timeout, warmup, readyBy time.Duration, environ []string, wrap func(*exec.Cmd) error, onReady func(error)) *server {
	s := &server{
		cfg: cfg, exe: exe, root: root, timeout: timeout, warmup: warmup, readyBy: readyBy, onReady: onReady,
		log:      openLog(logDir, cfg.Name, root),
		ready:    make(chan struct{}),
		loaded:   make(chan struct{}),
		exited:   make(chan struct{}),
		progress: map[string]string{},
		progSig:  make(chan struct{}),
	}
	s.environ = append(append([]string(nil), environ...), envList(cfg.Env)...)
	s.wrap = wrap
	s.docs.init()
	s.diag.init()
	s.procCtx, s.kill = context.WithCancel(context.Background())
	s.wg.Add(1)
	go s.start()
	return s
}

func envList(env map[string]string) []string {
	var out []string
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

func (s *server) closeExited() { s.exitOnce.Do(func() { close(s.exited) }) }

// start launches the process and runs the initialize handshake.
func (s *server) start() {
	defer s.wg.Done()
	err := s.launch()
	if err != nil {
		s.startErr = err
		s.noteError(err.Error())
		s.log.printf("zut: %v", err)
		s.kill()
	}
	close(s.ready)
	if s.onReady != nil {
		s.onReady(err)
	}
}

func (s *server) launch() (err error) {
	started := false
	defer func() {
		if !started {
			s.closeExited()
		}
	}()
	s.log.printf("zut: starting %s in %s", strings.Join(append([]string{s.exe}, s.cfg.Args...), " "), s.root)
	var files []*os.File
	pipe := func() (r, w *os.File) {
		if err == nil {
			if r, w, err = os.Pipe(); err == nil {
				files = append(files, r, w)
			}
		}
		return r, w
	}
	inR, inW := pipe()
	outR, outW := pipe()
	errR, errW := pipe()
	if err != nil {
		for _, f := range files {
			f.Close()
		}
		return fmt.Errorf("start %s: %v", s.cfg.Name, err)
	}
	cmd := exec.CommandContext(s.procCtx, s.exe, s.cfg.Args...)
	cmd.Dir = s.root
	cmd.Env = s.environ
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	tools.SetProcessGroup(cmd)
	cmd.Cancel = func() error { tools.SignalGroup(cmd, true); return nil }
	cmd.WaitDelay = 2 * time.Second
	if s.wrap != nil {
		err = s.wrap(cmd)
	}
	if err == nil {
		err = cmd.Start()
	}
	inR.Close()
	outW.Close()
	errW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		errR.Close()
		return fmt.Errorf("start %s: %v", s.cfg.Name, err)
	}
	started = true
	s.pid = cmd.Process.Pid
	s.mu.Lock()
	s.started = time.Now()
	s.mu.Unlock()
	s.conn = jsonrpc.NewConn(outR, inW, jsonrpc.Options{
		MaxFrame:     maxFrame,
		Request:      s.answer,
		Notification: s.notified,
		CancelMethod: "$/cancelRequest",
	})
	stderrDone := make(chan struct{})
	s.wg.Add(3)
	go s.copyStderr(errR, stderrDone)
	go s.wait(cmd, errR, stderrDone)
	go s.watch()

	ctx, cancel := context.WithTimeout(s.procCtx, s.timeout)
	defer cancel()
	var res struct {
		Capabilities serverCapabilities `json:"capabilities"`
		ServerInfo   *struct {
			Name    string `json:"name"`
			Version string `json:"version"`
		} `json:"serverInfo"`
	}
	if err := s.conn.Call(ctx, "initialize", s.initializeParams(), &res); err != nil {
		s.mu.Lock()
		stopping := s.stopping
		s.mu.Unlock()
		if stopping {
			return fmt.Errorf("start %s: stopped before it was ready", s.cfg.Name)
		}
		return s.callError(context.Background(), ctx, "initialize", err)
	}
	s.caps = res.Capabilities
	s.enc = parseEncoding(res.Capabilities.PositionEncoding)
	s.syncKind, s.openClose = res.Capabilities.syncKind()
	if res.ServerInfo != nil {
		s.info = serverInfo(res.ServerInfo.Name, res.ServerInfo.Version)
	}
	s.mu.Lock()
	s.initAt = time.Now()
	s.mu.Unlock()
	if err := s.conn.Notify(ctx, "initialized", struct{}{}); err != nil {
		return s.callError(context.Background(), ctx, "initialized", err)
	}
	s.log.printf("zut: %s is ready (pid %d, %s positions)", s.cfg.Name, s.pid, s.enc)
	return nil
}

// serverInfo prints a server's name and version shortly. gopls sends its
// whole build information as the version; its "Version" field is taken.
func serverInfo(name, version string) string {
	version = strings.TrimSpace(version)
	if strings.HasPrefix(version, "{") {
		var bi struct {
			Version string `json:"Version"`
		}
		json.Unmarshal([]byte(version), &bi)
		version = bi.Version
	}
	return clipText(strings.TrimSpace(name+" "+version), 80)
}

// copyStderr copies the server's standard error into its log.
func (s *server) copyStderr(r *os.File, done chan struct{}) {
	defer s.wg.Done()
	defer close(done)
	buf := make([]byte, 8<<10)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			s.log.stderr(buf[:n])
		}
		if err != nil {
			return
		}
	}
}

// wait reaps the process, kills what is left of its group, and ends the
// connection.
func (s *server) wait(cmd *exec.Cmd, stderr *os.File, stderrDone chan struct{}) {
	defer s.wg.Done()
	err := cmd.Wait()
	tools.SignalGroup(cmd, true)
	state := "exit status 0"
	if err != nil {
		state = err.Error()
	}
	s.mu.Lock()
	s.exitState = state
	stopping := s.stopping
	s.mu.Unlock()
	if !stopping {
		s.log.printf("zut: %s exited unexpectedly: %s", s.cfg.Name, state)
	}
	// A child that left the group may hold standard error open.
	t := time.NewTimer(time.Second)
	select {
	case <-stderrDone:
	case <-t.C:
	}
	t.Stop()
	stderr.Close()
	s.closeExited()
	s.conn.Close()
}

// watch stops the process when the connection ends first: the server
// closed its output or broke the protocol.
func (s *server) watch() {
	defer s.wg.Done()
	select {
	case <-s.conn.Done():
		if err := s.conn.Err(); err != jsonrpc.ErrClosed && !errors.Is(err, io.EOF) {
			s.log.printf("zut: %v; stopping %s", err, s.cfg.Name)
		}
		s.kill()
	case <-s.exited:
	}
}

// alive reports whether the server is starting or running.
func (s *server) alive() bool {
	select {
	case <-s.ready:
	default:
		return true
	}
	if s.startErr != nil {
		return false
	}
	select {
	case <-s.conn.Done():
		return false
	case <-s.exited:
		return false
	default:
		return true
	}
}

// isReady reports whether the start has finished.
func (s *server) isReady() bool {
	select {
	case <-s.ready:
		return true
	default:
		return false
	}
}

// waitReady waits for the start to finish and says whether the server can
// take requests.
func (s *server) waitReady(ctx context.Context) error {
	select {
	case <-s.ready:
	case <-ctx.Done():
		return ctx.Err()
	}
	if s.startErr != nil {
		return s.startErr
	}
	if !s.alive() {
		return s.deadError("")
	}
	return nil
}

// progressGrace is how long after initialized a server that has not
// announced work done progress counts as loaded: a server that reports
// its loading creates or begins progress at once.
const progressGrace = 2 * time.Second

// waitLoaded waits for the start to finish and then for the server to
// load the workspace: the end of the first work done progress it reports
// (gopls's "Setting up workspace"), or progressGrace without any, bounded
// by the ready timeout counted from initialized. It reports whether the
// server is loaded; false when the bound passed first.
func (s *server) waitLoaded(ctx context.Context) (bool, error) {
	if err := s.waitReady(ctx); err != nil {
		return false, err
	}
	if s.isLoaded() {
		return true, nil
	}
	s.mu.Lock()
	s.loadWaits++
	since := s.initAt
	s.mu.Unlock()
	bound := time.NewTimer(time.Until(since.Add(s.readyBy)))
	defer bound.Stop()
	grace := time.NewTimer(time.Until(since.Add(progressGrace)))
	defer grace.Stop()
	for {
		select {
		case <-s.loaded:
			return true, nil
		case <-grace.C:
			s.mu.Lock()
			announced := s.announced
			s.mu.Unlock()
			if !announced {
				s.markLoaded("it reports no progress")
				return true, nil
			}
		case <-bound.C:
			return s.isLoaded(), nil
		case <-ctx.Done():
			return false, ctx.Err()
		case <-s.conn.Done():
			return false, s.deadError("")
		}
	}
}

// isLoaded reports whether the server has loaded the workspace.
func (s *server) isLoaded() bool {
	select {
	case <-s.loaded:
		return true
	default:
		return false
	}
}

// markLoaded records that the server has loaded the workspace.
func (s *server) markLoaded(why string) {
	s.loadOnce.Do(func() {
		close(s.loaded)
		s.log.printf("zut: %s has loaded the workspace (%s)", s.cfg.Name, why)
	})
}

// loadNote says why diagnostics taken before the server loaded the
// workspace may be incomplete.
func (s *server) loadNote() string {
	msg := fmt.Sprintf("%s was still loading the workspace after %s", s.cfg.Name, s.readyBy)
	if p := s.progressText(); p != "" {
		msg += " (it reports: " + p + ")"
	}
	return msg + ", so these diagnostics may be incomplete; check again later with lsp action=diagnostics"
}

// call sends one request, bounded by the request timeout, and words its
// failure for the model.
func (s *server) call(ctx context.Context, method string, params, result any) error {
	if err := s.waitReady(ctx); err != nil {
		return err
	}
	cctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	err := s.conn.Call(cctx, method, params, result)
	if err == nil {
		return nil
	}
	return s.callError(ctx, cctx, method, err)
}

// notify sends one notification.
func (s *server) notify(ctx context.Context, method string, params any) error {
	if err := s.conn.Notify(ctx, method, params); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return s.deadError(method)
	}
	return nil
}

// callError words a failed call: an error answer, the caller's own
// cancellation (returned as is), a timeout or a dead server.
func (s *server) callError(parent, ctx context.Context, method string, err error) error {
	var re *jsonrpc.Error
	switch {
	case errors.As(err, &re):
		if re.Code == jsonrpc.ContentModified || re.Code == jsonrpc.RequestCancelled || re.Code == jsonrpc.ServerCancelled {
			return fmt.Errorf("%s gave up on %s (%s); call again", s.cfg.Name, method, re.Message)
		}
		e := fmt.Errorf("%s: %s", s.cfg.Name, re.Message)
		if method == "initialize" {
			e = fmt.Errorf("%s refused to initialize: %s", s.cfg.Name, re.Message)
		}
		return e
	case parent.Err() != nil:
		return parent.Err()
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		msg := fmt.Sprintf("%s did not answer %s within %s", s.cfg.Name, method, s.timeout)
		if p := s.progressText(); p != "" {
			msg += " (it reports: " + p + ")"
		} else {
			msg += "; it may be hung or still loading the workspace"
		}
		if method == "initialize" {
			msg += "; zut stopped it, and the next lsp call starts it again"
		} else {
			msg += "; try again, or see lsp action=status"
		}
		s.noteError(msg)
		return errors.New(msg)
	}
	return s.deadError(method)
}

// deadError says why the server stopped, with the last lines of its
// standard error and its log path.
func (s *server) deadError(during string) error {
	t := time.NewTimer(2 * time.Second)
	select {
	case <-s.exited:
	case <-t.C:
	}
	t.Stop()
	s.mu.Lock()
	state, stopping := s.exitState, s.stopping
	s.mu.Unlock()
	if stopping {
		return errClosed
	}
	var b strings.Builder
	cerr := s.conn.Err()
	switch {
	case cerr != nil && cerr != jsonrpc.ErrClosed && !errors.Is(cerr, io.EOF):
		fmt.Fprintf(&b, "%s broke the protocol (%v), so zut stopped it", s.cfg.Name, cerr)
	case state != "":
		fmt.Fprintf(&b, "%s exited unexpectedly (%s)", s.cfg.Name, state)
	default:
		fmt.Fprintf(&b, "%s closed its connection", s.cfg.Name)
	}
	if during != "" {
		fmt.Fprintf(&b, " during %s", during)
	}
	if tail := s.log.lastLines(3); tail != "" {
		fmt.Fprintf(&b, "; its last output: %s", tail)
	}
	if s.log.path != "" {
		fmt.Fprintf(&b, "; log: %s", s.log.path)
	}
	b.WriteString("; the next lsp call starts it again")
	s.noteError(b.String())
	return errors.New(b.String())
}

// stop shuts the server down: shutdown and exit, then a kill when it does
// not exit in time; it joins every goroutine of the server.
func (s *server) stop(ctx context.Context) error {
	s.mu.Lock()
	s.stopping = true
	s.mu.Unlock()
	select {
	case <-s.ready:
	case <-ctx.Done():
		s.kill()
		<-s.ready
	}
	var err error
	if s.startErr == nil && s.alive() {
		sctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		if s.conn.Call(sctx, "shutdown", nil, nil) == nil {
			s.conn.Notify(sctx, "exit", nil)
			select {
			case <-s.exited:
			case <-sctx.Done():
			}
		}
		cancel()
		select {
		case <-s.exited:
		default:
			err = fmt.Errorf("lsp: %s (pid %d) did not exit after shutdown, so it was killed", s.cfg.Name, s.pid)
		}
	}
	s.kill()
	<-s.exited
	if s.conn != nil {
		s.conn.Close()
	}
	s.wg.Wait()
	s.log.printf("zut: %s stopped", s.cfg.Name)
	s.log.close()
	return err
}

// noteError keeps the last error for status.
func (s *server) noteError(msg string) {
	s.mu.Lock()
	s.lastError = clipText(msg, 600)
	s.mu.Unlock()
}

// initializeParams are the parameters of initialize.
func (s *server) initializeParams() map[string]any {
	root := fileURI(s.root)
	p := map[string]any{
		"processId":        os.Getpid(),
		"clientInfo":       map[string]string{"name": "zut"},
		"locale":           "en",
		"rootPath":         s.root,
		"rootUri":          root,
		"workspaceFolders": []map[string]string{{"uri": root, "name": filepath.Base(s.root)}},
		"capabilities":     clientCapabilities,
		"trace":            "off",
	}
	if len(s.cfg.InitializationOptions) > 0 {
		p["initializationOptions"] = s.cfg.InitializationOptions
	}
	return p
}

// clientCapabilities are what zut tells servers it can do.
var clientCapabilities = json.RawMessage(`{
	"general": {"positionEncodings": ["utf-16"]},
	"workspace": {
		"configuration": true,
		"workspaceFolders": true,
		"applyEdit": false,
		"didChangeWatchedFiles": {"dynamicRegistration": false},
		"workspaceEdit": {"documentChanges": true, "resourceOperations": []},
		"symbol": {"dynamicRegistration": false}
	},
	"textDocument": {
		"synchronization": {"dynamicRegistration": false, "didSave": false, "willSave": false},
		"publishDiagnostics": {"versionSupport": true, "relatedInformation": false},
		"diagnostic": {"dynamicRegistration": false, "relatedDocumentSupport": false},
		"hover": {"contentFormat": ["markdown", "plaintext"]},
		"definition": {"linkSupport": true},
		"references": {},
		"documentSymbol": {"hierarchicalDocumentSymbolSupport": true},
		"rename": {"prepareSupport": false}
	},
	"window": {"workDoneProgress": true, "showMessage": {}, "showDocument": {"support": false}}
}`)
