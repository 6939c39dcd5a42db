package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/zut-go/zut/agent/tools/lsp/jsonrpc"
)

// This file answers what a server sends unasked: its requests (answered
// on their own goroutines) and its notifications (handled in order on the
// connection's reading goroutine, without blocking).

// answer answers a request of the server.
func (s *server) answer(ctx context.Context, method string, params json.RawMessage) (any, error) {
	switch method {
	case "workspace/configuration":
		var p struct {
			Items []struct {
				Section string `json:"section"`
			} `json:"items"`
		}
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.InvalidParams, Message: "workspace/configuration params: " + err.Error()}
		}
		out := make([]json.RawMessage, len(p.Items))
		for i, it := range p.Items {
			out[i] = s.setting(it.Section)
		}
		return out, nil
	case "window/workDoneProgress/create":
		s.mu.Lock()
		s.announced = true
		s.mu.Unlock()
		return nil, nil
	case "client/registerCapability", "client/unregisterCapability",
		"workspace/codeLens/refresh", "workspace/semanticTokens/refresh", "workspace/inlayHint/refresh",
		"workspace/inlineValue/refresh", "workspace/diagnostic/refresh", "workspace/foldingRange/refresh":
		return nil, nil
	case "workspace/workspaceFolders":
		return []map[string]string{{"uri": fileURI(s.root), "name": filepath.Base(s.root)}}, nil
	case "window/showMessageRequest":
		var p struct {
			Type    int    `json:"type"`
			Message string `json:"message"`
		}
		json.Unmarshal(params, &p)
		s.logMessage(p.Type, p.Message)
		return nil, nil
	case "window/showDocument":
		return map[string]bool{"success": false}, nil
	case "workspace/applyEdit":
		return map[string]any{"applied": false, "failureReason": "zut applies edits only through its own tools"}, nil
	}
	return nil, &jsonrpc.Error{Code: jsonrpc.MethodNotFound, Message: "zut does not handle " + method}
}

// setting answers one item of workspace/configuration from the server's
// Settings: the whole object for an empty section, else the value at the
// section's key ("gopls") or dotted path ("python.analysis"), else null.
func (s *server) setting(section string) json.RawMessage {
	raw := bytes.TrimSpace(s.cfg.Settings)
	if len(raw) == 0 {
		return nil
	}
	if section == "" {
		return raw
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil {
		return nil
	}
	if v, ok := obj[section]; ok {
		return v
	}
	parts := strings.Split(section, ".")
	cur := raw
	for _, p := range parts {
		var o map[string]json.RawMessage
		if json.Unmarshal(cur, &o) != nil {
			return nil
		}
		v, ok := o[p]
		if !ok {
			return nil
		}
		cur = v
	}
	return cur
}

// notified handles a notification of the server.
func (s *server) notified(method string, params json.RawMessage) {
	switch method {
	case "textDocument/publishDiagnostics":
		var p publishDiagnosticsParams
		if err := json.Unmarshal(params, &p); err != nil {
			s.log.printf("zut: bad publishDiagnostics: %v", err)
			return
		}
		path, err := uriPath(p.URI)
		if err != nil {
			return
		}
		if !s.diag.publish(path, p.Version, p.Diagnostics) && p.Version != nil {
			s.log.printf("zut: dropped diagnostics of %s version %d: a newer version was sent since", path, *p.Version)
		}
	case "window/logMessage", "window/showMessage":
		var p struct {
			Type    int    `json:"type"`
			Message string `json:"message"`
		}
		if json.Unmarshal(params, &p) == nil {
			s.logMessage(p.Type, p.Message)
		}
	case "$/progress":
		s.progressed(params)
	case "$/logTrace":
		var p struct {
			Message string `json:"message"`
		}
		if json.Unmarshal(params, &p) == nil {
			s.log.printf("trace: %s", p.Message)
		}
	}
}

// logMessage writes a message of the server to its log; errors are also
// kept for status.
func (s *server) logMessage(typ int, msg string) {
	names := map[int]string{1: "error", 2: "warning", 3: "info", 4: "log", 5: "debug"}
	name, ok := names[typ]
	if !ok {
		name = "message"
	}
	s.log.printf("%s: %s", name, msg)
	if typ == 1 {
		s.noteError(strings.TrimSpace(msg))
	}
}

// maxProgress bounds the work done progress entries kept.
const maxProgress = 32

// progressed records a $/progress notification of work done progress.
func (s *server) progressed(params json.RawMessage) {
	var p struct {
		Token json.RawMessage `json:"token"`
		Value struct {
			Kind       string `json:"kind"`
			Title      string `json:"title"`
			Message    string `json:"message"`
			Percentage *int   `json:"percentage"`
		} `json:"value"`
	}
	if json.Unmarshal(params, &p) != nil {
		return
	}
	token := string(p.Token)
	s.mu.Lock()
	defer s.mu.Unlock()
	defer func() {
		close(s.progSig)
		s.progSig = make(chan struct{})
	}()
	switch p.Value.Kind {
	case "begin":
		s.announced = true
		if len(s.progress) >= maxProgress {
			return
		}
		text := strings.TrimSpace(p.Value.Title)
		if m := strings.TrimSpace(p.Value.Message); m != "" {
			text += ": " + m
		}
		s.progress[token] = text
	case "report":
		cur, ok := s.progress[token]
		if !ok {
			return
		}
		title, _, _ := strings.Cut(cur, ": ")
		text := title + ": " + p.Value.Message
		if p.Value.Percentage != nil {
			text += fmt.Sprintf(" (%d%%)", *p.Value.Percentage)
		}
		s.progress[token] = text
	case "end":
		delete(s.progress, token)
		if len(s.progress) == 0 && s.announced {
			s.markLoaded("its work done progress ended")
		}
	}
}

// progressChanged returns a channel closed at the next change of work
// done progress.
func (s *server) progressChanged() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.progSig
}

// progressText is the work the server reports in progress, or "".
func (s *server) progressText() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var parts []string
	for _, v := range s.progress {
		parts = append(parts, strings.TrimSuffix(v, ": "))
	}
	sort.Strings(parts)
	return strings.Join(parts, "; ")
}
