package proto

import (
	"encoding/json"
	"testing"
)

func strp(s string) *string { return &s }
func boolp(b bool) *bool    { return &b }
func intp(i int) *int       { return &i }

// addedFrameCases are the golden cases of the additions beyond v2. Groups
// named "<type>.added" hold the additive members of v2 frames.
var addedFrameCases = map[string][]Frame{
	"hello.added": {
		&Hello{ProtocolVersion: 2, Name: "plan-mode", Version: "1.0.0", Capabilities: []string{"commands", "tool_cancel", "host_requests", "events2", "intercepts2", "ui2"}},
	},
	"hello_ack.added": {
		&HelloAck{ProtocolVersion: 2, ZutVersion: "0.1.0", CWD: "/p", ExtensionDir: "/e", DataDir: "/e",
			Capabilities: []string{"host_requests", "events2", "intercepts2", "ui2"}},
	},
	"register_command.added": {
		&RegisterCommand{Name: "deploy", Description: "deploy to an environment", Complete: true},
	},
	"status.added": {
		&Status{Key: "plan-mode", Level: "warn", Text: "PLAN MODE (read-only)", Priority: 10},
	},
	"widget.added": {
		&Widget{ID: "clock", Position: "below_input", Lines: []string{"12:00"}, Priority: -1, Markdown: true, BorderColor: "#89b4fa", NoBorder: true},
	},
	"event.added": {
		&Event{Name: "session_shutdown"},
		&Event{Name: "agent_start", Prompt: "fix the build"},
		&Event{Name: "agent_end", Response: "Fixed.", Stop: "completed"},
		&Event{Name: "agent_end", Response: "", Stop: "error", Error: "overloaded"},
		&Event{Name: "tool_execution_start", ToolID: "toolu_1", ToolName: "bash"},
		&Event{Name: "tool_execution_end", ToolID: "toolu_1", ToolName: "bash"},
		&Event{Name: "tool_result", ToolID: "toolu_1", ToolName: "bash", ToolArgs: json.RawMessage(`{"command":"ls"}`), Content: "a\nb", IsError: true},
		&Event{Name: "input", Text: "hello", Source: "interactive"},
		&Event{Name: "message_start"},
		&Event{Name: "message_update", Chunk: "Hel"},
		&Event{Name: "message_end", Content: "Hello."},
		&Event{Name: "model_change", Model: "openai/gpt-5", PreviousModel: "anthropic/claude-sonnet-4-5", Source: "extension"},
		&Event{Name: "custom", CustomName: "plan-toggled", Data: json.RawMessage(`{"on":true}`), From: "plan-mode"},
		&Event{Name: "custom", CustomName: "ping", From: "a"},
	},
	"event_intercept.added": {
		&EventIntercept{ID: "20", Name: "input", Text: "/deploy now", Source: "rpc"},
		&EventIntercept{ID: "21", Name: "before_agent_start", Prompt: "explain"},
		&EventIntercept{ID: "22", Name: "tool_result", ToolID: "toolu_3", ToolName: "read", ToolArgs: json.RawMessage(`{"path":"a.go"}`), Content: "package a"},
		&EventIntercept{ID: "23", Name: "context_prepare", Messages: []ContextMessage{{Index: 0, Role: "user", Content: "hi"}, {Index: 1, Role: "assistant", Content: "hello"}}},
		&EventIntercept{ID: "24", Name: "context_prepare"},
		&EventIntercept{ID: "25", Name: "before_fork", TargetID: "e7", IsUserMessage: true, UserText: "try again"},
		&EventIntercept{ID: "26", Name: "before_session_switch", Reason: "new"},
		&EventIntercept{ID: "27", Name: "before_compact", EstimatedTokens: 170000, ContextLimit: 200000, UsagePercent: 85, MessageCount: 42, IsAutomatic: true},
	},
	"event_intercept_response.added": {
		&EventInterceptResponse{ID: "20", Action: "transform", Text: "/deploy staging"},
		&EventInterceptResponse{ID: "21", SystemPrompt: "You are in PLAN MODE.", InjectText: "Context: read-only"},
		&EventInterceptResponse{ID: "22", Content: strp(""), IsError: boolp(false)},
		&EventInterceptResponse{ID: "23", Messages: []ContextMessage{{Index: -1, Role: "system", Content: "notes"}, {Index: 1, Role: "assistant", Content: "hello"}}},
		&EventInterceptResponse{ID: "25", Cancel: true, Reason: "unsaved plan"},
	},
	"host_request": {
		&HostRequest{ID: "x1", Method: "ui.select", Params: json.RawMessage(`{"title":"Deploy","message":"Where to?","options":["staging","production"],"default":"staging"}`)},
		&HostRequest{ID: "x2", Method: "session.info"},
		&HostRequest{ID: "x3", Method: "llm.complete", Params: json.RawMessage(`{"prompt":"Summarise <this> & that","stream":true}`)},
	},
	"register_option": {
		&RegisterOption{Name: "plan", Description: "Start in plan mode", Default: "false"},
	},
	"tool_progress":       {&ToolProgress{ID: "17", Text: "Step 3/10..."}},
	"print":               {&Print{Text: "Plan mode ON", Style: "info"}, &Print{Text: "**done**", Style: "block", Markdown: true, BorderColor: "#a6e3a1", Subtitle: "tests"}, &Print{Text: "All tests passed", Renderer: "success"}},
	"header":              {&Header{Text: "My Header", BorderColor: "#89b4fa"}},
	"footer":              {&Footer{Text: "*footer*", Markdown: true}},
	"header_clear":        {&HeaderClear{}},
	"footer_clear":        {&FooterClear{}},
	"ui_visibility":       {&UIVisibility{HideStartupMessage: true, HideStatusBar: true, HideSeparator: true, HideInputHint: true}, &UIVisibility{}},
	"register_shortcut":   {&RegisterShortcut{Key: "ctrl+alt+p", Description: "Toggle plan mode"}},
	"command_completions": {&CommandCompletions{ID: "c1", Items: []string{"staging", "production"}}},
	"set_editor":          {&SetEditor{Keys: []string{"ctrl+s", "tab"}}},
	"reset_editor":        {&ResetEditor{}},
	"editor_key_response": {
		&EditorKeyResponse{ID: "k1", Action: "passthrough"},
		&EditorKeyResponse{ID: "k2", Action: "remap", Key: "up"},
		&EditorKeyResponse{ID: "k3", Action: "submit", Text: "saved text"},
	},
	"register_tool_renderer": {
		&RegisterToolRenderer{ToolName: "bash", DisplayName: "Shell", BorderColor: "#89b4fa", BodyMarkdown: true, RenderHeader: true, RenderBody: true},
	},
	"render_tool_response":      {&RenderToolResponse{ID: "r1", Header: "$ ls -la", Body: "ok"}, &RenderToolResponse{ID: "r2"}},
	"register_message_renderer": {&RegisterMessageRenderer{Name: "success"}},
	"render_message_response":   {&RenderMessageResponse{ID: "m1", Lines: []string{"  ✓ All tests passed"}}},
	"host_response": {
		&HostResponse{ID: "x1", Result: json.RawMessage(`{"value":"staging","index":0,"cancelled":false}`)},
		&HostResponse{ID: "x2"},
		&HostResponse{ID: "x3", Error: `unknown method "ui.teleport"; see docs/protocol.md`},
	},
	"host_stream":      {&HostStream{ID: "x3", Text: "Sum"}},
	"shortcut":         {&Shortcut{Key: "ctrl+alt+p"}},
	"command_complete": {&CommandComplete{ID: "c1", Name: "deploy", Prefix: "sta"}},
	"editor_key":       {&EditorKey{ID: "k1", Key: "ctrl+s", Text: "draft"}},
	"render_tool": {
		&RenderTool{ID: "r1", ToolName: "bash", Args: json.RawMessage(`{"command":"ls -la"}`), Width: 80},
		&RenderTool{ID: "r2", ToolName: "bash", Args: json.RawMessage(`{"command":"false"}`), Result: strp("exit 1"), IsError: true, Width: 40},
	},
	"render_message": {&RenderMessage{ID: "m1", Name: "success", Content: "All tests passed", Width: 80}},
}

func TestEventCapability(t *testing.T) {
	tests := []struct {
		name      string
		intercept bool
		want      string
	}{
		{"turn_start", false, ""}, {"turn_start", true, ""}, {"session_opened", true, "-"},
		{"agent_end", false, "events2"}, {"custom", false, "events2"}, {"tool_result", false, "events2"},
		{"tool_result", true, "intercepts2"}, {"context_prepare", true, "intercepts2"},
		{"context_prepare", false, "-"}, {"teleport", false, "-"},
	}
	for _, tc := range tests {
		if got := EventCapability(tc.name, tc.intercept); got != tc.want {
			t.Errorf("EventCapability(%q, %v) = %q, want %q", tc.name, tc.intercept, got, tc.want)
		}
	}
}

func TestAddedFrameCapability(t *testing.T) {
	for _, typ := range addedTypes {
		if AddedFrameCapability(typ) == "" {
			t.Errorf("AddedFrameCapability(%q) = \"\", want a capability", typ)
		}
	}
	for _, typ := range extensionTypes {
		if c := AddedFrameCapability(typ); c != "" {
			t.Errorf("AddedFrameCapability(%q) = %q, want \"\" for a v2 frame", typ, c)
		}
	}
}

func TestUIRequestDefaults(t *testing.T) {
	tests := []struct {
		raw      string
		wantStr  string
		wantBool bool
	}{
		{`"staging"`, "staging", false}, {`true`, "", true}, {``, "", false}, {`{"x":1}`, "", false},
	}
	for _, tc := range tests {
		r := UIRequest{Default: json.RawMessage(tc.raw)}
		if got := r.DefaultString(); got != tc.wantStr {
			t.Errorf("UIRequest{Default: %s}.DefaultString() = %q, want %q", tc.raw, got, tc.wantStr)
		}
		if got := r.DefaultBool(); got != tc.wantBool {
			t.Errorf("UIRequest{Default: %s}.DefaultBool() = %v, want %v", tc.raw, got, tc.wantBool)
		}
	}
}

func TestUIAnswers(t *testing.T) {
	tests := []struct {
		name string
		r    UIResponse
		want string
	}{
		{"select", SelectAnswer("b", 1), `{"value":"b","index":1}`},
		{"confirm yes", ConfirmAnswer(true), `{"value":true}`},
		{"confirm no", ConfirmAnswer(false), `{"value":false}`},
		{"input", InputAnswer("x \"y\""), `{"value":"x \"y\""}`},
		{"overlay", OverlayAnswer("OK", 0), `{"index":0,"action":"OK"}`},
		{"cancelled", CancelledAnswer(), `{"cancelled":true}`},
	}
	for _, tc := range tests {
		b, err := json.Marshal(tc.r)
		if err != nil || string(b) != tc.want {
			t.Errorf("%s: json.Marshal(%+v) = %s, %v, want %s", tc.name, tc.r, b, err, tc.want)
		}
	}
	_ = intp
}
