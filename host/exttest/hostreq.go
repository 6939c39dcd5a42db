package exttest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/zut-go/zut/proto"
)

// hostRequest is one host_request the extension sent and how the tester
// judged it.
type hostRequest struct {
	method   string
	rec      *record
	status   Status
	msg      string
	answered bool // the answer was written; guarded by world.mu
}

// hostData is the small world the tester's answers describe: a session,
// a model, tools, options and custom entries.
type hostData struct {
	model   proto.ModelInfo
	options map[string]proto.OptionResult // set with options.set
	entries []proto.Entry
	active  []string
}

func newHostData() hostData {
	return hostData{
		model: proto.ModelInfo{Model: "anthropic/claude-sonnet-4-5", Provider: "anthropic", ID: "claude-sonnet-4-5",
			ContextWindow: 200000, MaxOutput: 64000, Reasoning: "adaptive", Ready: "key"},
		options: map[string]proto.OptionResult{},
	}
}

// testSession is the session the tester pretends is open.
func (w *world) testSession() *proto.Session {
	return &proto.Session{ID: "zut-test-branch", ParentID: "zut-test-root", CWD: w.cwd, ForkPoint: 2}
}

var builtinToolInfo = []proto.ToolInfo{
	{Name: "read", Description: "Read a file", Source: proto.ToolBuiltin, Enabled: true},
	{Name: "write", Description: "Write a file", Source: proto.ToolBuiltin, Enabled: true},
	{Name: "edit", Description: "Edit a file", Source: proto.ToolBuiltin, Enabled: true},
	{Name: "bash", Description: "Run a shell command", Source: proto.ToolBuiltin, Enabled: true},
	{Name: "grep", Description: "Search files", Source: proto.ToolBuiltin, Enabled: true},
	{Name: "skill", Description: "Load a skill", Source: proto.ToolBuiltin, Enabled: true},
}

// hostRequest validates a host_request and answers it the way zut would,
// with realistic data. w.mu is held.
func (w *world) hostRequest(f *proto.HostRequest, r *record) {
	hr := &hostRequest{method: f.Method, rec: r, status: Pass}
	w.hostReq = append(w.hostReq, hr)
	if f.ID == "" {
		hr.status, hr.msg = Fail, "host_request without an id; zut cannot answer it"
		return
	}
	for _, o := range w.hostReq[:len(w.hostReq)-1] {
		if o.rec.frame.(*proto.HostRequest).ID == f.ID && o.open() {
			hr.status, hr.msg = Fail, fmt.Sprintf("host_request id %q is already in use by a running request; zut answers the duplicate with an error", f.ID)
			w.respond(hr, proto.HostResponse{ID: f.ID, Error: "duplicate host_request id " + f.ID})
			return
		}
	}
	params := f.Params
	if len(bytes.TrimSpace(params)) == 0 || string(bytes.TrimSpace(params)) == "null" {
		params = json.RawMessage(`{}`)
	}
	if bytes.TrimSpace(params)[0] != '{' {
		hr.status, hr.msg = Fail, fmt.Sprintf("%s params are not a JSON object; zut answers with an error", f.Method)
		w.respond(hr, proto.HostResponse{ID: f.ID, Error: f.Method + ": params must be a JSON object"})
		return
	}
	result, streams, err := w.serve(f.Method, params)
	if err != nil {
		hr.status, hr.msg = err.status, err.msg
		w.respond(hr, proto.HostResponse{ID: f.ID, Error: err.msg})
		return
	}
	b, merr := json.Marshal(result)
	if merr != nil {
		b = []byte(`{}`)
	}
	var frames []proto.Frame
	for _, s := range streams {
		frames = append(frames, proto.HostStream{ID: f.ID, Text: s})
	}
	frames = append(frames, proto.HostResponse{ID: f.ID, Result: b})
	w.respond(hr, frames...)
}

// open reports whether the request still waits for its answer. w.mu is
// held.
func (hr *hostRequest) open() bool { return !hr.answered }

// respond writes the answer frames of hr and marks it answered.
func (w *world) respond(hr *hostRequest, frames ...proto.Frame) {
	w.s.answerThen(func() {
		w.mu.Lock()
		hr.answered = true
		w.mu.Unlock()
	}, frames...)
}

// requestError is a host_request zut would answer with an error.
type requestError struct {
	status Status
	msg    string
}

func badParams(method, format string, args ...any) *requestError {
	return &requestError{Fail, method + ": " + fmt.Sprintf(format, args...) + "; zut answers with an error"}
}

// serve answers one method. w.mu is held.
func (w *world) serve(method string, params json.RawMessage) (any, []string, *requestError) {
	decode := func(v any) *requestError {
		if err := json.Unmarshal(params, v); err != nil {
			return badParams(method, "params do not decode: %v", err)
		}
		return nil
	}
	switch method {
	case proto.MethodUISelect, proto.MethodUIConfirm, proto.MethodUIInput, proto.MethodUIOverlay:
		var req proto.UIRequest
		if e := decode(&req); e != nil {
			return nil, nil, e
		}
		return dialog(method, req)
	case proto.MethodSessionMessages:
		return proto.MessagesResult{Messages: []proto.Message{
			{Role: "user", Content: []proto.MessageBlock{{Type: "text", Text: "Why does the build fail?"}}},
			{Role: "assistant", Content: []proto.MessageBlock{{Type: "tool_call", ID: "toolu_test_1", Name: "bash", Args: json.RawMessage(`{"command":"go build ./...","timeout":120}`)}}},
			{Role: "user", Content: []proto.MessageBlock{{Type: "tool_result", CallID: "toolu_test_1", Content: []proto.MessageBlock{{Type: "text", Text: "main.go:12: undefined: run"}}}}},
			{Role: "assistant", Content: []proto.MessageBlock{{Type: "text", Text: "main.go calls run, which is not defined. I will add it."}}},
		}}, nil, nil
	case proto.MethodSessionInfo:
		return proto.SessionInfo{ID: "zut-test-session", CWD: w.cwd, Title: "Why does the build fail?", Branch: w.testSession()}, nil, nil
	case proto.MethodSessionContextStats:
		return proto.ContextStats{EstimatedTokens: 12400, ContextLimit: 200000, UsagePercent: 6.2, MessageCount: 4}, nil, nil
	case proto.MethodSessionAppendEntry:
		var p proto.AppendEntryParams
		if e := decode(&p); e != nil {
			return nil, nil, e
		}
		if p.EntryType == "" {
			return nil, nil, badParams(method, "entry_type is empty")
		}
		if len(p.Data) == 0 {
			p.Data = json.RawMessage("null")
		}
		id := fmt.Sprintf("entry-%d", len(w.data.entries)+1)
		w.data.entries = append(w.data.entries, proto.Entry{ID: id, EntryType: p.EntryType, Data: p.Data, Time: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)})
		return proto.IDResult{ID: id}, nil, nil
	case proto.MethodSessionEntries:
		var p proto.EntriesParams
		if e := decode(&p); e != nil {
			return nil, nil, e
		}
		out := []proto.Entry{}
		for _, e := range w.data.entries {
			if p.EntryType == "" || e.EntryType == p.EntryType {
				out = append(out, e)
			}
		}
		return proto.EntriesResult{Entries: out}, nil, nil
	case proto.MethodModelGet:
		return w.data.model, nil, nil
	case proto.MethodModelSet:
		var p proto.ModelParams
		if e := decode(&p); e != nil {
			return nil, nil, e
		}
		if p.Model == "" {
			return nil, nil, badParams(method, "model is empty; give provider/id")
		}
		prov, id, ok := strings.Cut(p.Model, "/")
		if !ok {
			prov, id = w.data.model.Provider, p.Model
		}
		w.data.model = proto.ModelInfo{Model: prov + "/" + id, Provider: prov, ID: id, ContextWindow: 200000, MaxOutput: 32000, Ready: "key"}
		return w.data.model, nil, nil
	case proto.MethodModelList:
		return proto.ModelsResult{Models: []proto.ModelInfo{w.data.model,
			{Model: "openai/gpt-5", Provider: "openai", ID: "gpt-5", ContextWindow: 400000, MaxOutput: 128000, Reasoning: "effort", Ready: "key"},
			{Model: "ollama/qwen3:8b", Provider: "ollama", ID: "qwen3:8b", ContextWindow: 40960, Ready: "local"},
		}}, nil, nil
	case proto.MethodToolsList:
		tools := slices.Clone(builtinToolInfo)
		for _, t := range w.tools {
			tools = append(tools, proto.ToolInfo{Name: t.f.Name, Description: t.f.Description, Source: proto.ToolExtension, Extension: w.name, Enabled: true})
		}
		if w.data.active != nil {
			for i := range tools {
				tools[i].Enabled = slices.Contains(w.data.active, tools[i].Name)
			}
		}
		return proto.ToolsResult{Tools: tools}, nil, nil
	case proto.MethodToolsSetActive:
		var p struct {
			Names *[]string `json:"names"`
		}
		if e := decode(&p); e != nil {
			return nil, nil, e
		}
		w.data.active = nil
		if p.Names != nil {
			w.data.active = append([]string{}, *p.Names...)
		}
		return struct{}{}, nil, nil
	case proto.MethodLLMComplete:
		var p proto.CompleteParams
		if e := decode(&p); e != nil {
			return nil, nil, e
		}
		if strings.TrimSpace(p.Prompt) == "" {
			return nil, nil, badParams(method, "prompt is empty")
		}
		text := "The build fails because main.go calls run, which is not defined."
		var chunks []string
		if p.Stream {
			chunks = []string{"The build fails because ", "main.go calls run, ", "which is not defined."}
		}
		return proto.CompleteResult{Text: text, InputTokens: 42 + len(p.Prompt)/4, OutputTokens: 14, Model: w.data.model.Model}, chunks, nil
	case proto.MethodOptionsGet, proto.MethodOptionsSet:
		var p proto.OptionParams
		if e := decode(&p); e != nil {
			return nil, nil, e
		}
		if p.Name == "" {
			return nil, nil, badParams(method, "name is empty")
		}
		if method == proto.MethodOptionsSet {
			w.data.options[p.Name] = proto.OptionResult{Name: p.Name, Value: p.Value, Source: "set"}
		}
		if o, ok := w.data.options[p.Name]; ok {
			return o, nil, nil
		}
		for _, o := range w.options {
			if o.f.Name == p.Name {
				return proto.OptionResult{Name: p.Name, Value: o.f.Default, Source: "default"}, nil, nil
			}
		}
		return nil, nil, &requestError{Warn, fmt.Sprintf("%s: no option %q is registered; register it with register_option first (zut answers with an error)", method, p.Name)}
	case proto.MethodAppSend:
		var p proto.SendParams
		if e := decode(&p); e != nil {
			return nil, nil, e
		}
		switch p.Mode {
		case "", proto.SendQueue, proto.SendSteer, proto.SendInterrupt:
		default:
			return nil, nil, badParams(method, "mode %q is not queue, steer or interrupt", p.Mode)
		}
		if strings.TrimSpace(p.Text) == "" {
			return nil, nil, badParams(method, "text is empty")
		}
		return struct{}{}, nil, nil
	case proto.MethodAppNotifyCustom:
		var p proto.CustomParams
		if e := decode(&p); e != nil {
			return nil, nil, e
		}
		if p.Name == "" {
			return nil, nil, badParams(method, "name is empty")
		}
		return struct{}{}, nil, nil
	case proto.MethodEditorSetText:
		var p proto.TextParams
		if e := decode(&p); e != nil {
			return nil, nil, e
		}
		return struct{}{}, nil, nil
	case proto.MethodAppExit, proto.MethodAppReloadExtensions, proto.MethodTUIResume:
		return struct{}{}, nil, nil
	case proto.MethodTUISuspend:
		return proto.SuspendResult{Suspended: false}, nil, nil
	}
	return nil, nil, &requestError{Warn, fmt.Sprintf("unknown method %q; zut answers with an error naming it", method)}
}

// dialog answers a dialog as a user would: the default (or the first
// option), yes, some text, the first action.
func dialog(method string, req proto.UIRequest) (any, []string, *requestError) {
	switch method {
	case proto.MethodUISelect:
		if len(req.Options) == 0 {
			return nil, nil, badParams(method, "options is empty; give at least one option")
		}
		i := max(slices.Index(req.Options, req.DefaultString()), 0)
		return proto.SelectResult{Value: req.Options[i], Index: i}, nil, nil
	case proto.MethodUIConfirm:
		yes := true
		if len(req.Default) > 0 {
			yes = req.DefaultBool()
		}
		return proto.ConfirmResult{Value: yes}, nil, nil
	case proto.MethodUIInput:
		v := req.DefaultString()
		if v == "" {
			v = "answer from zut ext test"
		}
		return proto.InputResult{Value: v}, nil, nil
	}
	if req.Title == "" && req.Text == "" {
		return nil, nil, badParams(method, "title and text are both empty")
	}
	switch req.Anchor {
	case "", proto.AnchorCenter, proto.AnchorTop, proto.AnchorBottom:
	default:
		return nil, nil, &requestError{Warn, fmt.Sprintf("%s: anchor %q is not center, top or bottom; zut centres it", method, req.Anchor)}
	}
	if len(req.Actions) == 0 {
		return proto.OverlayResult{Index: -1}, nil, nil
	}
	return proto.OverlayResult{Action: req.Actions[0], Index: 0}, nil, nil
}
