package proto

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// update rewrites the golden files under testdata/ instead of comparing
// against them: go test ./proto -update.
var update = flag.Bool("update", false, "rewrite golden files")

// frameCases lists sample frames of every type, grouped by type. Each
// group's canonical encodings, one per line, are the golden file
// testdata/frames/<type>.json.
var frameCases = map[string][]Frame{
	"hello": {
		&Hello{ProtocolVersion: 2, Name: "weather", Version: "1.0.0", Capabilities: []string{"commands", "tools", "alerts", "panels", "tool_cancel"}},
		&Hello{ProtocolVersion: 2, Name: "bare"},
	},
	"register_command": {
		&RegisterCommand{Name: "weather", Description: "current weather for a city"},
	},
	"register_tool": {
		&RegisterTool{Name: "weather", Description: "Get the current weather for a city.",
			Schema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`)},
		&RegisterTool{Name: "ask_user", Description: "Ask the user a question", Schema: json.RawMessage(`{"type":"object"}`), Interactive: true},
		&RegisterTool{Name: "lookup", Schema: json.RawMessage(`{"type":"object"}`), Deferred: true},
	},
	"subscribe": {
		&Subscribe{Events: []string{"session_start", "turn_start", "tool_call", "tool_confirmation_requested", "turn_end", "assistant_message"},
			Intercept: []string{"tool_call", "turn_start", "assistant_message"}},
	},
	"ready": {&Ready{}},
	"tool_result": {
		&ToolResult{ID: "7", Content: []ContentBlock{{Type: "text", Text: "Berlin: 16°C, fog <dense>"}}, Details: json.RawMessage(`{"state":{"version":1}}`)},
		&ToolResult{ID: "8", Content: []ContentBlock{{Type: "image", MIMEType: "image/png", Data: "iVBORw0KGgo="}}, IsError: true},
		&ToolResult{ID: "9", Content: []ContentBlock{{Type: "text", Text: "Enabled weather lookup"}}, ActivateTools: []string{"weather"}, Details: json.RawMessage(`null`)},
	},
	"event_intercept_response": {
		&EventInterceptResponse{ID: "1", Block: true, Reason: `refused: matches danger pattern "rm -rf"`},
		&EventInterceptResponse{ID: "2", ModifiedArgs: json.RawMessage(`{"command":"echo GUARDED: ls","timeout":30}`)},
		&EventInterceptResponse{ID: "3", ReplaceText: "[redacted]"},
		&EventInterceptResponse{ID: "4", Context: "Current phase: parse files\nRemaining: validate inputs"},
		&EventInterceptResponse{ID: "5"},
	},
	"command_response": {
		&CommandResponse{ID: "1", Action: "prompt", Prompt: "Show today's weather for Berlin in one line."},
		&CommandResponse{ID: "2", Action: "insert", Insert: "@file.go"},
		&CommandResponse{ID: "3", Action: "display", Display: "12 todos"},
		&CommandResponse{ID: "4", Action: "open_panel", OpenPanel: &Panel{ID: "todos-main", Title: "Todos",
			Lines: []string{"□ ship panel api", "✓ persist state"}, Footer: "↑/↓ navigate - a add - x complete - esc close"}},
		&CommandResponse{ID: "5", Action: "noop"},
		&CommandResponse{ID: "6", Error: "no city given"},
	},
	"submit":       {&Submit{Text: "Summarize the selected workspace."}},
	"submit_slash": {&SubmitSlash{Text: "/weather berlin"}},
	"open_panel": {
		&OpenPanel{Panel: Panel{ID: "todos-main", Title: "Todos", Lines: []string{"a", "b"}, Footer: "esc close"}},
	},
	"panel_render": {
		&PanelRender{PanelID: "todos-main", Title: "Todos", Lines: []string{"□ ship panel api", "✓ persist state"}, Footer: "esc close"},
	},
	"panel_close": {&PanelClose{PanelID: "todos-main"}},
	"status": {
		&Status{Key: "progress", Level: "success", Text: "2/4 tasks checked"},
		&Status{Key: "progress"},
	},
	"widget": {
		&Widget{ID: "progress", Position: "above_input", Title: "Progress", Lines: []string{"Indexing files", "12/20 complete"}},
	},
	"widget_clear": {&WidgetClear{ID: "plan"}},
	"notify":       {&Notify{Level: "info", Message: "refreshed cache (12 entries)"}},
	"alert":        {&Alert{Kind: "bell", Reason: "question_ready"}},
	"clear_notes":  {&ClearNotes{}},
	"shutdown_ack": {&ShutdownAck{}},
	"hello_ack": {
		&HelloAck{ProtocolVersion: 2, ZutVersion: "0.0.7", Provider: "anthropic", Model: "claude-opus-4-7", CWD: "/path/to/zut",
			ExtensionDir: "/path/to/zut/.zut/extensions/todos", DataDir: "/path/to/zut/.zut/extensions/todos",
			Session: &Session{ID: "branch-1", ParentID: "root-1", Path: "/s/session.jsonl", CWD: "/path/to/zut", ForkPoint: 4}},
		&HelloAck{ProtocolVersion: 2, ZutVersion: "0.1.0", CWD: "/p", ExtensionDir: "/e", DataDir: "/e"},
	},
	"command_invoked": {
		&CommandInvoked{ID: "1", Name: "weather", Args: "berlin"},
		&CommandInvoked{ID: "2", Name: "todos", Args: ""},
	},
	"tool_call": {
		&ToolCall{ID: "3", Name: "weather", Args: json.RawMessage(`{"city":"Berlin"}`)},
	},
	"tool_cancel": {&ToolCancel{ID: "3"}},
	"event": {
		&Event{Name: "session_opened", Session: &Session{ID: "branch-1", ParentID: "root-1", ForkPoint: 4}, State: json.RawMessage(`{"version":1}`)},
		&Event{Name: "session_start", Session: &Session{ID: "root-1"}},
		&Event{Name: "turn_start", Step: 1},
		&Event{Name: "tool_call", ToolID: "toolu_1", ToolName: "read", ToolArgs: json.RawMessage(`{"path":"foo.go"}`)},
		&Event{Name: "tool_confirmation_requested", ToolID: "toolu_1", ToolName: "read", ToolPreview: "foo.go"},
		&Event{Name: "assistant_message", Text: "done"},
		&Event{Name: "turn_end", Stop: "end_turn"},
		&Event{Name: "turn_end", Stop: "error", Error: "overloaded"},
	},
	"event_intercept": {
		&EventIntercept{ID: "10", Name: "tool_call", ToolID: "toolu_2", ToolName: "bash", ToolArgs: json.RawMessage(`{"command":"rm -rf /tmp/foo","timeout":30}`)},
		&EventIntercept{ID: "11", Name: "turn_start", Step: 3},
		&EventIntercept{ID: "12", Name: "assistant_message", Text: "here is your api key: sk-ant-..."},
	},
	"panel_key": {
		&PanelKey{PanelID: "todos-main", Key: "down"},
		&PanelKey{PanelID: "todos-main", Key: "rune", Text: "x"},
	},
	"shutdown": {&Shutdown{}},
}

// allFrameCases returns the golden case groups of protocol v2 and of the
// additions (frame_add_test.go). A group is named after its frame type,
// or "<type>.added" for additive members of a v2 frame, kept in a golden
// file of their own so that the v2 files never change.
func allFrameCases() map[string][]Frame {
	all := map[string][]Frame{}
	for k, v := range frameCases {
		all[k] = v
	}
	for k, v := range addedFrameCases {
		all[k] = v
	}
	return all
}

// groupType is the frame type of a case group.
func groupType(group string) string {
	typ, _, _ := strings.Cut(group, ".")
	return typ
}

// TestFrameCasesCoverCatalog fails when a frame type of NewFrame has no
// golden cases, or a case group is named after the wrong type.
func TestFrameCasesCoverCatalog(t *testing.T) {
	cases := allFrameCases()
	for group, frames := range cases {
		typ := groupType(group)
		if NewFrame(typ) == nil {
			t.Errorf("NewFrame(%q) = nil, want a frame", typ)
		}
		for _, f := range frames {
			if f.Type() != typ {
				t.Errorf("frame %#v in group %q has Type() %q", f, group, f.Type())
			}
		}
	}
	types := append(slices.Clone(extensionTypes), addedTypes...)
	for _, typ := range types {
		f := NewFrame(typ)
		if f == nil || f.Type() != typ {
			t.Errorf("NewFrame(%q) = %#v, want a frame of that type", typ, f)
		}
		if len(cases[typ]) == 0 {
			t.Errorf("frame type %q has no golden cases", typ)
		}
	}
	groups := 0
	for group := range cases {
		if !strings.Contains(group, ".") {
			groups++
		}
	}
	if groups != len(types) {
		t.Errorf("the golden cases have %d frame types, the catalog %d", groups, len(types))
	}
	if f := NewFrame("no_such_frame"); f != nil {
		t.Errorf("NewFrame(%q) = %#v, want nil", "no_such_frame", f)
	}
}

// catalogTypes lists the case groups, each with a golden file, sorted.
func catalogTypes() []string {
	var types []string
	for group := range allFrameCases() {
		types = append(types, group)
	}
	slices.Sort(types)
	return types
}

func TestFrameGolden(t *testing.T) {
	for _, typ := range catalogTypes() {
		t.Run(typ, func(t *testing.T) {
			var got []byte
			for _, f := range allFrameCases()[typ] {
				line, err := AppendFrame(got, f)
				if err != nil {
					t.Fatalf("AppendFrame(%#v) error: %v", f, err)
				}
				got = line
			}
			path := filepath.Join("testdata", "frames", typ+".json")
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("read golden file (run go test ./proto -update): %v", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("encoding of %s frames differs from %s\ngot:\n%s\nwant:\n%s", typ, path, got, want)
			}
		})
	}
}

// TestFrameRoundTrip decodes each golden line and compares it with the
// frame it came from, feeding the whole golden file to a Reader split at
// every byte boundary, then one byte per read.
func TestFrameRoundTrip(t *testing.T) {
	for _, typ := range catalogTypes() {
		t.Run(typ, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", "frames", typ+".json"))
			if err != nil {
				t.Fatal(err)
			}
			want := allFrameCases()[typ]
			for _, line := range strings.SplitAfter(string(data), "\n") {
				if line == "" {
					continue
				}
				f, err := Unmarshal([]byte(line))
				if err != nil {
					t.Fatalf("Unmarshal(%q) error: %v", line, err)
				}
				enc, err := Marshal(f)
				if err != nil {
					t.Fatalf("Marshal(%#v) error: %v", f, err)
				}
				if string(enc)+"\n" != line {
					t.Errorf("Marshal(Unmarshal(%q)) = %q", line, enc)
				}
			}
			for split := 0; split <= len(data); split++ {
				got := readAll(t, NewReader(&splitReader{data: data, at: split}, 0))
				if !framesEqual(got, want) {
					t.Fatalf("Read split at %d = %s, want %s", split, dump(got), dump(want))
				}
			}
			got := readAll(t, NewReader(&splitReader{data: data, at: -1}, 0))
			if !framesEqual(got, want) {
				t.Fatalf("Read one byte at a time = %s, want %s", dump(got), dump(want))
			}
		})
	}
}

// framesEqual compares decoded frames with the originals; nil and empty
// raw JSON and slices compare equal through a re-encoding.
func framesEqual(got, want []Frame) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if reflect.DeepEqual(got[i], want[i]) {
			continue
		}
		a, err1 := Marshal(got[i])
		b, err2 := Marshal(want[i])
		if err1 != nil || err2 != nil || !bytes.Equal(a, b) {
			return false
		}
	}
	return true
}

func dump(frames []Frame) string {
	var sb strings.Builder
	for _, f := range frames {
		b, err := Marshal(f)
		if err != nil {
			sb.WriteString(err.Error())
		}
		sb.Write(b)
		sb.WriteByte('\n')
	}
	return sb.String()
}

func TestEventMembers(t *testing.T) {
	tests := []struct {
		name string
		f    Frame
		want string
	}{
		{"turn_start step zero kept", Event{Name: "turn_start"}, `{"type":"event","event":"turn_start","step":0}`},
		{"assistant text empty kept", Event{Name: "assistant_message"}, `{"type":"event","event":"assistant_message","text":""}`},
		{"tool_call args default", Event{Name: "tool_call", ToolID: "a", ToolName: "b"}, `{"type":"event","event":"tool_call","tool_id":"a","tool_name":"b","tool_args":{}}`},
		{"foreign members dropped", Event{Name: "turn_end", Stop: "aborted", Step: 4, Text: "x"}, `{"type":"event","event":"turn_end","stop":"aborted"}`},
		{"unknown event keeps non-zero", Event{Name: "x_later", Step: 2, Text: "t"}, `{"type":"event","event":"x_later","step":2,"text":"t"}`},
		{"intercept step zero kept", EventIntercept{ID: "1", Name: "turn_start"}, `{"type":"event_intercept","id":"1","event":"turn_start","step":0}`},
		{"intercept text empty kept", EventIntercept{ID: "1", Name: "assistant_message"}, `{"type":"event_intercept","id":"1","event":"assistant_message","text":""}`},
		{"tool_call nil args", ToolCall{ID: "1", Name: "x"}, `{"type":"tool_call","id":"1","name":"x","args":{}}`},
		{"empty frame", Ready{}, `{"type":"ready"}`},
		{"no html escaping", Notify{Message: "<a&b>"}, `{"type":"notify","message":"<a&b>"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Marshal(tc.f)
			if err != nil {
				t.Fatalf("Marshal(%#v) error: %v", tc.f, err)
			}
			if string(got) != tc.want {
				t.Errorf("Marshal(%#v) = %s, want %s", tc.f, got, tc.want)
			}
		})
	}
}

func TestIsSessionEvent(t *testing.T) {
	tests := []struct {
		name string
		want bool
	}{
		{"session_start", true}, {"session_opened", true}, {"session_switched", true},
		{"session_forked", true}, {"session_compacted", true}, {"turn_start", false}, {"", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := IsSessionEvent(tc.name); got != tc.want {
				t.Errorf("IsSessionEvent(%q) = %v, want %v", tc.name, got, tc.want)
			}
		})
	}
}
