package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/zut-go/zut/agent/tools/lsp/jsonrpc"
)

// This file is a fake language server: the test binary run again with
// ZUT_LSP_FAKE=<mode> (see TestMain). It keeps its documents with its own
// UTF-16 arithmetic, written apart from the client's, publishes one
// diagnostic per "ERROR" (error) and "WARN" (warning) in a document, and
// answers hover with its state as JSON so tests can see what it holds.
//
// Modes: ok, crash-init, hang-init, garbage, huge, crash-request (dies on
// definition), hang-request (never answers hover or definition), no-exit
// (ignores exit; starts a child process), child (starts a child process), unversioned (publishes without
// versions), pull (pull diagnostics only), cold (loads the workspace until
// it gets the notification fake/endLoad, publishing only the first
// diagnostic of a document until then, and all of every open one after),
// stale (after each change publishes the new version, then the one before
// with the old text's diagnostics), workspace (after initialized publishes
// the diagnostics of every .fake file on disk, without versions, as gopls
// does for files that are not open).
//
// rename renames the word in every .fake file of the root: the open
// documents' text, else the file on disk.

const fakeEnv = "ZUT_LSP_FAKE"

// fakeRecordEnv names a file where the fake appends every message it
// receives, and every answer it gets, as JSON lines.
const fakeRecordEnv = "ZUT_LSP_FAKE_RECORD"

// recorded is one line of the fake's recording.
type recorded struct {
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Answer string          `json:"answer,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
}

var recordMu sync.Mutex

// record appends r to the recording, when there is one.
func record(r recorded) {
	p := os.Getenv(fakeRecordEnv)
	if p == "" {
		return
	}
	recordMu.Lock()
	defer recordMu.Unlock()
	f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	b, _ := json.Marshal(r)
	f.Write(append(b, '\n'))
}

// fakeConfig is a server config that runs the fake in mode for ".fake"
// files.
func fakeConfig(mode string) ServerConfig {
	exe, _ := os.Executable()
	return ServerConfig{Name: "fake", Command: exe, Extensions: []string{".fake"},
		RootMarkers: []string{"fake.root"}, Env: map[string]string{fakeEnv: mode},
		Settings: json.RawMessage(`{"fake": {"level": 3}}`)}
}

// fakeState is what hover reports.
type fakeState struct {
	Text       string            `json:"text"`
	Version    int               `json:"version"`
	Config     json.RawMessage   `json:"config"`
	Answers    map[string]string `json:"answers"`
	ChildPID   int               `json:"childPid"`
	Changes    int               `json:"changes"`
	Incomplete bool              `json:"incomplete"`
}

type fakeServer struct {
	mode string
	conn *jsonrpc.Conn

	mu       sync.Mutex
	root     string // from rootUri
	loading  bool   // cold: the load has not ended
	endLoad  chan struct{}
	docs     map[string]string
	prev     map[string]string // stale: each document's text before its last change
	versions map[string]int
	config   json.RawMessage
	answers  map[string]string
	child    *exec.Cmd
	changes  int
	exit     chan struct{}
	initDone chan struct{} // closed when afterInitialized is done
	connSet  chan struct{} // closed once conn is set
}

func runFake(mode string) int {
	f := &fakeServer{mode: mode, docs: map[string]string{}, prev: map[string]string{}, versions: map[string]int{}, loading: mode == "cold", endLoad: make(chan struct{}), answers: map[string]string{}, exit: make(chan struct{}), initDone: make(chan struct{}), connSet: make(chan struct{})}
	switch mode {
	case "crash-init", "hang-init", "garbage", "huge":
		return f.broken()
	}
	f.conn = jsonrpc.NewConn(os.Stdin, os.Stdout, jsonrpc.Options{Request: f.request, Notification: f.notification})
	close(f.connSet)
	select {
	case <-f.exit:
	case <-f.conn.Done():
	}
	if f.mode == "no-exit" {
		time.Sleep(time.Hour) // until killed, with its child
	}
	if f.child != nil {
		f.child.Process.Kill()
		f.child.Wait()
	}
	return 0
}

// broken plays the modes that never get through initialize.
func (f *fakeServer) broken() int {
	r := jsonrpc.NewReader(os.Stdin, 0)
	if _, err := r.Read(); err != nil {
		return 1
	}
	switch f.mode {
	case "crash-init":
		fmt.Fprintln(os.Stderr, "fake: loading the workspace")
		fmt.Fprintln(os.Stderr, "panic: fake crashed on purpose")
		return 3
	case "garbage":
		io.WriteString(os.Stdout, "this is not a header\r\n\r\n")
	case "huge":
		io.WriteString(os.Stdout, "Content-Length: 100000000\r\n\r\n")
	}
	for { // hang: read and drop everything until the pipe closes
		if _, err := r.Read(); err != nil {
			return 0
		}
	}
}

func (f *fakeServer) request(ctx context.Context, method string, params json.RawMessage) (any, error) {
	record(recorded{Method: method, Params: params})
	switch method {
	case "initialize":
		var ip struct {
			RootURI string `json:"rootUri"`
		}
		json.Unmarshal(params, &ip)
		f.root, _ = uriPath(ip.RootURI)
		caps := map[string]any{
			"textDocumentSync":        map[string]any{"openClose": true, "change": 2},
			"definitionProvider":      true,
			"referencesProvider":      true,
			"hoverProvider":           true,
			"documentSymbolProvider":  true,
			"workspaceSymbolProvider": true,
			"renameProvider":          true,
		}
		if f.mode == "pull" {
			caps["diagnosticProvider"] = map[string]any{"interFileDependencies": false, "workspaceDiagnostics": false}
		}
		if f.mode == "child" || f.mode == "no-exit" {
			f.child = exec.Command("sleep", "1000")
			f.child.Start()
		}
		return map[string]any{"capabilities": caps, "serverInfo": map[string]string{"name": "fake", "version": "1.0"}}, nil
	case "shutdown":
		return nil, nil
	case "textDocument/hover":
		var p textDocumentPositionParams
		json.Unmarshal(params, &p)
		if f.mode == "hang-request" {
			<-ctx.Done()
			return nil, nil
		}
		select {
		case <-f.initDone:
		case <-ctx.Done():
		}
		f.mu.Lock()
		st := fakeState{Text: f.docs[p.TextDocument.URI], Version: f.versions[p.TextDocument.URI], Config: f.config, Answers: f.answers, Changes: f.changes}
		if f.child != nil {
			st.ChildPID = f.child.Process.Pid
		}
		f.mu.Unlock()
		b, _ := json.Marshal(st)
		return map[string]any{"contents": map[string]string{"kind": "plaintext", "value": string(b)}}, nil
	case "textDocument/definition":
		if f.mode == "hang-request" {
			<-ctx.Done()
			return nil, nil
		}
		if f.mode == "crash-request" {
			fmt.Fprintln(os.Stderr, "panic: definition is broken")
			os.Exit(2)
		}
		// The word at the position, as a link to its first occurrence.
		var p textDocumentPositionParams
		json.Unmarshal(params, &p)
		f.mu.Lock()
		text := f.docs[p.TextDocument.URI]
		f.mu.Unlock()
		word := fakeWordAt(text, p.Position)
		start := fakeFind(text, word)
		if start == nil {
			return nil, nil
		}
		end := position{Line: start.Line, Character: start.Character + fakeUnits(word)}
		r := span{Start: *start, End: end}
		return []locationLink{{TargetURI: p.TextDocument.URI, TargetRange: r, TargetSelectionRange: r}}, nil
	case "textDocument/references":
		var p textDocumentPositionParams
		json.Unmarshal(params, &p)
		f.mu.Lock()
		text := f.docs[p.TextDocument.URI]
		f.mu.Unlock()
		var out []location
		for _, r := range fakeAll(text, fakeWordAt(text, p.Position)) {
			out = append(out, location{URI: p.TextDocument.URI, Range: r})
		}
		return out, nil
	case "textDocument/rename":
		var p struct {
			textDocumentPositionParams
			NewName string `json:"newName"`
		}
		json.Unmarshal(params, &p)
		f.mu.Lock()
		word := fakeWordAt(f.docs[p.TextDocument.URI], p.Position)
		f.mu.Unlock()
		names, _ := filepath.Glob(filepath.Join(f.root, "*.fake"))
		sort.Strings(names)
		changes := []any{}
		for _, name := range names {
			uri := fileURI(name)
			f.mu.Lock()
			text, open := f.docs[uri]
			var version any
			if open {
				version = f.versions[uri]
			}
			f.mu.Unlock()
			if !open {
				data, err := os.ReadFile(name)
				if err != nil {
					continue
				}
				text = string(data)
			}
			var edits []textEdit
			for _, r := range fakeAll(text, word) {
				edits = append(edits, textEdit{Range: r, NewText: p.NewName})
			}
			if len(edits) > 0 {
				changes = append(changes, map[string]any{"textDocument": map[string]any{"uri": uri, "version": version}, "edits": edits})
			}
		}
		return map[string]any{"documentChanges": changes}, nil
	case "textDocument/documentSymbol":
		return []map[string]any{{"name": "Top", "kind": 12, "range": span{}, "selectionRange": span{},
			"children": []map[string]any{{"name": "inner", "kind": 13, "detail": "int", "range": span{Start: position{1, 0}}, "selectionRange": span{Start: position{1, 2}}}}}}, nil
	case "workspace/symbol":
		return []map[string]any{}, nil
	case "textDocument/diagnostic":
		var p struct {
			TextDocument textDocumentIdentifier `json:"textDocument"`
		}
		json.Unmarshal(params, &p)
		f.mu.Lock()
		text := f.docs[p.TextDocument.URI]
		f.mu.Unlock()
		return map[string]any{"kind": "full", "items": fakeDiagnostics(text)}, nil
	}
	return nil, &jsonrpc.Error{Code: jsonrpc.MethodNotFound, Message: "fake: no " + method}
}

func (f *fakeServer) notification(method string, params json.RawMessage) {
	record(recorded{Method: method, Params: params})
	switch method {
	case "initialized":
		go f.afterInitialized()
	case "exit":
		if f.mode != "no-exit" {
			close(f.exit)
		}
	case "fake/endLoad":
		close(f.endLoad)
	case "textDocument/didOpen":
		var p struct {
			TextDocument textDocumentItem `json:"textDocument"`
		}
		json.Unmarshal(params, &p)
		f.mu.Lock()
		f.docs[p.TextDocument.URI], f.versions[p.TextDocument.URI] = p.TextDocument.Text, p.TextDocument.Version
		f.mu.Unlock()
		f.publish(p.TextDocument.URI)
	case "textDocument/didChange":
		var p struct {
			TextDocument   versionedTextDocumentIdentifier `json:"textDocument"`
			ContentChanges []contentChange                 `json:"contentChanges"`
		}
		json.Unmarshal(params, &p)
		f.mu.Lock()
		text := f.docs[p.TextDocument.URI]
		f.prev[p.TextDocument.URI] = text
		for _, c := range p.ContentChanges {
			if c.Range == nil {
				text = c.Text
				continue
			}
			a, b := fakeOffset(text, c.Range.Start), fakeOffset(text, c.Range.End)
			text = text[:a] + c.Text + text[b:]
		}
		f.docs[p.TextDocument.URI] = text
		f.versions[p.TextDocument.URI] = *p.TextDocument.Version
		f.changes++
		f.mu.Unlock()
		f.publish(p.TextDocument.URI)
		if f.mode == "stale" {
			f.publishStale(p.TextDocument.URI)
		}
	case "textDocument/didClose":
		var p struct {
			TextDocument textDocumentIdentifier `json:"textDocument"`
		}
		json.Unmarshal(params, &p)
		f.mu.Lock()
		delete(f.docs, p.TextDocument.URI)
		f.mu.Unlock()
	}
}

// afterInitialized plays the requests servers make of clients.
func (f *fakeServer) afterInitialized() {
	defer close(f.initDone)
	<-f.connSet
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ask := func(method string, params any) {
		var res json.RawMessage
		err := f.conn.Call(ctx, method, params, &res)
		f.mu.Lock()
		if err == nil {
			r := res
			if r == nil {
				r = json.RawMessage("null")
			}
			record(recorded{Answer: method, Result: r})
		}
		switch {
		case err != nil:
			f.answers[method] = "error: " + err.Error()
		case res == nil:
			f.answers[method] = "null"
		default:
			f.answers[method] = string(res)
		}
		f.mu.Unlock()
	}
	ask("window/workDoneProgress/create", map[string]string{"token": "load"})
	f.conn.Notify(ctx, "$/progress", map[string]any{"token": "load", "value": map[string]any{"kind": "begin", "title": "Loading"}})
	ask("client/registerCapability", map[string]any{"registrations": []any{map[string]any{"id": "1", "method": "workspace/didChangeWatchedFiles"}}})
	ask("workspace/workspaceFolders", nil)
	ask("window/showDocument", map[string]string{"uri": "file:///x"})
	ask("fake/unknown", nil)
	var cfg []json.RawMessage
	f.conn.Call(ctx, "workspace/configuration", map[string]any{"items": []map[string]string{{"section": "fake"}, {"section": "none"}}}, &cfg)
	raw, _ := json.Marshal(cfg)
	record(recorded{Answer: "workspace/configuration", Result: raw})
	f.mu.Lock()
	if len(cfg) == 2 {
		f.config = cfg[0]
	}
	f.mu.Unlock()
	f.conn.Notify(ctx, "window/logMessage", map[string]any{"type": 3, "message": "fake: configured"})
	switch f.mode {
	case "workspace":
		names, _ := filepath.Glob(filepath.Join(f.root, "*.fake"))
		for _, name := range names {
			if data, err := os.ReadFile(name); err == nil {
				f.conn.Notify(ctx, "textDocument/publishDiagnostics", map[string]any{"uri": fileURI(name), "diagnostics": fakeDiagnostics(string(data))})
			}
		}
	case "cold":
		select {
		case <-f.endLoad:
		case <-ctx.Done():
		}
	}
	// The load is over before its end is told, so that what a client
	// sends after the end is judged whole.
	f.mu.Lock()
	f.loading = false
	var uris []string
	for uri := range f.docs {
		uris = append(uris, uri)
	}
	f.mu.Unlock()
	f.conn.Notify(ctx, "$/progress", map[string]any{"token": "load", "value": map[string]any{"kind": "end"}})
	if f.mode == "cold" {
		// What was open during the load, judged again.
		sort.Strings(uris)
		for _, uri := range uris {
			f.publish(uri)
		}
	}
}

// publish sends the diagnostics of a document.
func (f *fakeServer) publish(uri string) {
	if f.mode == "pull" {
		return
	}
	f.mu.Lock()
	text, v, loading := f.docs[uri], f.versions[uri], f.loading
	f.mu.Unlock()
	<-f.connSet
	diags := fakeDiagnostics(text)
	if loading && len(diags) > 1 {
		diags = diags[:1] // what a server knows before it has loaded the workspace
	}
	p := map[string]any{"uri": uri, "diagnostics": diags}
	if f.mode != "unversioned" {
		p["version"] = v
	}
	f.conn.Notify(context.Background(), "textDocument/publishDiagnostics", p)
}

// publishStale sends the diagnostics of a document's text before its last
// change, with the version before.
func (f *fakeServer) publishStale(uri string) {
	f.mu.Lock()
	text, v := f.prev[uri], f.versions[uri]-1
	f.mu.Unlock()
	f.conn.Notify(context.Background(), "textDocument/publishDiagnostics", map[string]any{"uri": uri, "version": v, "diagnostics": fakeDiagnostics(text)})
}

// fakeDiagnostics finds ERROR and WARN in text.
func fakeDiagnostics(text string) []wireDiagnostic {
	out := []wireDiagnostic{}
	for _, w := range []struct {
		word string
		sev  int
	}{{"ERROR", 1}, {"WARN", 2}} {
		for _, r := range fakeAll(text, w.word) {
			out = append(out, wireDiagnostic{Range: r, Severity: w.sev, Source: "fake", Code: json.RawMessage(`"F1"`), Message: "found " + w.word})
		}
	}
	return out
}

// fakeLines splits text at "\n" only, keeping the line ends.
func fakeLines(text string) []string { return strings.SplitAfter(text, "\n") }

// fakeUnits is the length of s in UTF-16 code units.
func fakeUnits(s string) int { return len(utf16.Encode([]rune(s))) }

// fakeOffset converts a UTF-16 position into a byte offset.
func fakeOffset(text string, p position) int {
	lines := fakeLines(text)
	off := 0
	for i := 0; i < p.Line && i < len(lines); i++ {
		off += len(lines[i])
	}
	if p.Line >= len(lines) {
		return len(text)
	}
	u := utf16.Encode([]rune(strings.TrimSuffix(lines[p.Line], "\n")))
	if p.Character < len(u) {
		u = u[:p.Character]
	}
	return off + len(string(utf16.Decode(u)))
}

// fakePos converts a byte offset into a UTF-16 position.
func fakePos(text string, off int) position {
	before := text[:off]
	line := strings.Count(before, "\n")
	start := strings.LastIndex(before, "\n") + 1
	return position{Line: line, Character: fakeUnits(before[start:])}
}

// fakeAll returns the ranges of every occurrence of word.
func fakeAll(text, word string) []span {
	var out []span
	if word == "" {
		return out
	}
	for off := 0; ; {
		i := strings.Index(text[off:], word)
		if i < 0 {
			return out
		}
		a := off + i
		out = append(out, span{Start: fakePos(text, a), End: fakePos(text, a+len(word))})
		off = a + len(word)
	}
}

func fakeFind(text, word string) *position {
	if r := fakeAll(text, word); len(r) > 0 {
		return &r[0].Start
	}
	return nil
}

// fakeWordAt is the run of letters and digits at a position.
func fakeWordAt(text string, p position) string {
	off := fakeOffset(text, p)
	isWord := func(r rune) bool {
		return r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
	}
	a, b := off, off
	for a > 0 {
		r, size := utf8.DecodeLastRuneInString(text[:a])
		if !isWord(r) {
			break
		}
		a -= size
	}
	for b < len(text) {
		r, size := utf8.DecodeRuneInString(text[b:])
		if !isWord(r) {
			break
		}
		b += size
	}
	return text[a:b]
}
