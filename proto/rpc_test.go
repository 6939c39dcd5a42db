package proto

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func rpcID(s string) RPCHead { return RPCHead{ID: json.RawMessage(s)} }

func intPtr(i int) *int { return &i }

// rpcCommandCases are sample commands of every type; each group's
// encodings are the golden file testdata/rpc/<type>.json.
var rpcCommandCases = map[string][]RPCCommand{
	"hello": {&RPCHello{RPCHead: rpcID(`1`)}, &RPCHello{RPCHead: rpcID(`"h"`), Token: "s3cret"}},
	"prompt": {
		&RPCPrompt{RPCHead: rpcID(`"p1"`), Message: "explain main.go"},
		&RPCPrompt{Message: "what is in this picture?", Images: []RPCImage{{MIMEType: "image/png", Data: "iVBORw0KGgo="}}},
	},
	"abort":          {&RPCAbort{RPCHead: rpcID(`7`)}},
	"compact":        {&RPCCompact{RPCHead: rpcID(`"c"`)}, &RPCCompact{Instructions: "keep the API decisions"}},
	"get_state":      {&RPCGetState{RPCHead: rpcID(`2`)}},
	"get_messages":   {&RPCGetMessages{RPCHead: rpcID(`3`)}},
	"clear":          {&RPCClear{}},
	"set_model":      {&RPCSetModel{RPCHead: rpcID(`4`), Model: "anthropic/claude-sonnet-4-6"}},
	"set_reasoning":  {&RPCSetReasoning{RPCHead: rpcID(`5`), Reasoning: "high"}},
	"get_models":     {&RPCGetModels{RPCHead: rpcID(`6`)}},
	"ping":           {&RPCPing{RPCHead: rpcID(`-1.5`)}},
	"get_commands":   {&RPCGetCommands{RPCHead: rpcID(`"cmds"`)}},
	"run_command":    {&RPCRunCommand{RPCHead: rpcID(`8`), Name: "compact", Args: "focus on tests"}, &RPCRunCommand{Name: "skill:review"}},
	"panel_key":      {&RPCPanelKey{PanelID: "todo-main", Key: "down"}, &RPCPanelKey{RPCHead: rpcID(`9`), PanelID: "todo-main", Key: "rune", Text: "x"}},
	"panel_close":    {&RPCPanelClose{PanelID: "todo-main"}},
	"steer":          {&RPCSteer{RPCHead: rpcID(`10`), Message: "use the v2 API instead"}},
	"follow_up":      {&RPCFollowUp{RPCHead: rpcID(`11`), Message: "then run the tests"}},
	"new_session":    {&RPCNewSession{}},
	"fork":           {&RPCFork{RPCHead: rpcID(`12`), EntryID: "a1b2c3d4"}},
	"switch_session": {&RPCSwitchSession{SessionID: "0190aa2e"}},
	"switch_branch":  {&RPCSwitchBranch{LeafID: "e5f6a7b8"}},
	"get_tree":       {&RPCGetTree{}},
	"get_sessions":   {&RPCGetSessions{}},
	"get_extensions": {&RPCGetExtensions{}},
	"set_goal": {
		&RPCSetGoal{RPCHead: rpcID(`"g"`), Objective: "make the tests pass"},
		&RPCSetGoal{Status: "paused"},
	},
	"get_subagents": {&RPCGetSubagents{RPCHead: rpcID(`5`)}},
	"get_mcp_servers": {
		&RPCGetMCPServers{RPCHead: rpcID(`"m"`)},
		&RPCGetMCPServers{RPCHead: rpcID(`6`), Restart: "files"},
	},
	"reload_extensions": {
		&RPCReloadExtensions{RPCHead: rpcID(`"r"`)},
	},
	"ext_ui_response": {
		&RPCExtUIResponse{RequestID: "41", Value: json.RawMessage(`"green"`), Index: intPtr(1)},
		&RPCExtUIResponse{RequestID: "42", Value: json.RawMessage(`true`)},
		&RPCExtUIResponse{RequestID: "43", Action: "retry"},
		&RPCExtUIResponse{RequestID: "44", Cancelled: true},
	},
}

// rpcOutputCases are sample responses and extension events.
var rpcOutputCases = map[string][]Frame{
	"response": {
		&RPCResponse{ID: json.RawMessage(`1`), Command: "ping", Success: true, Data: json.RawMessage(`{"pong":true}`)},
		&RPCResponse{ID: json.RawMessage(`"p1"`), Command: "prompt", Success: true, Data: json.RawMessage(`{"started":true}`)},
		&RPCResponse{Command: "teleport", Error: "unknown command"},
		&RPCResponse{ID: json.RawMessage(`3`), Command: "clear", Success: true},
	},
	"ext_notify":      {&RPCExtNotify{Extension: "todo", Level: "warn", Message: "todos.json is not writable"}},
	"ext_display":     {&RPCExtDisplay{Extension: "hello", Text: "project: /src/app"}},
	"ext_clear_notes": {&RPCExtClearNotes{Extension: "guard"}},
	"ext_alert":       {&RPCExtAlert{Extension: "ask", Kind: "bell", Reason: "question_ready"}, &RPCExtAlert{Extension: "ask", Kind: "bell"}},
	"ext_status": {
		&RPCExtStatus{Extension: "phases", Key: "phase", Level: "info", Text: "phase 2/4: parse files"},
		&RPCExtStatus{Extension: "plan", Key: "mode", Level: "warn", Text: "plan mode", Priority: -1},
	},
	"ext_widget":       {&RPCExtWidget{Extension: "phases", ID: "phases", Position: "above_input", Title: "Phases", Lines: []string{"✓ plan", "▶ parse"}}},
	"ext_widget_clear": {&RPCExtWidgetClear{Extension: "phases", ID: "phases"}},
	"ext_chrome_clear": {&RPCExtChromeClear{Extension: "todo"}},
	"ext_exited":       {&RPCExtExited{Extension: "todo", Error: "extension \"todo\" stopped: exit status 3", Log: "/home/u/.local/state/zut/logs/ext-todo.log"}},
	"ext_insert":       {&RPCExtInsert{Extension: "files", Text: "@main.go"}},
	"ext_panel_open": {
		&RPCExtPanelOpen{RPCExtPanel{Extension: "todo", PanelID: "todo-main", Title: "Todos", Lines: []string{"› □ ship"}, Footer: "esc close"}},
	},
	"ext_panel_render": {
		&RPCExtPanelRender{RPCExtPanel{Extension: "todo", PanelID: "todo-main", Title: "Todos", Lines: []string{"› ✓ ship"}, Footer: "esc close"}},
	},
	"ext_panel_close":  {&RPCExtPanelClose{Extension: "todo", PanelID: "todo-main"}},
	"commands_changed": {&RPCCommandsChanged{}},
	"compact_done":     {&RPCCompactDone{Summary: "Goal: ..."}, &RPCCompactDone{Error: "nothing to compact yet: the conversation is short"}},
	"ext_ui_request": {
		&RPCExtUIRequest{RequestID: "41", Extension: "ask", Kind: UISelect, Title: "Colour", Message: "Pick one", Options: []string{"red", "green"}, Default: json.RawMessage(`"red"`)},
		&RPCExtUIRequest{RequestID: "42", Extension: "ask", Kind: UIConfirm, Message: "Deploy now?", Default: json.RawMessage(`false`), TimeoutMS: 30000},
		&RPCExtUIRequest{RequestID: "43", Extension: "ask", Kind: UIInput, Message: "Branch name?", Placeholder: "feature/..."},
		&RPCExtUIRequest{RequestID: "44", Extension: "ask", Kind: UIOverlay, Title: "Build failed", Text: "**3** tests failed", Markdown: true, Actions: []string{"retry", "skip"}},
	},
	"ext_ui_request_closed": {&RPCExtUIRequestClosed{RequestID: "42", Extension: "ask"}},
	"ext_print": {
		&RPCExtPrint{Extension: "plan", Text: "## Plan\n1. parse", Style: "block", Markdown: true, BorderColor: "#5f87ff", Subtitle: "plan mode"},
		&RPCExtPrint{Extension: "plan", Text: "saved", Style: "info"},
	},
	"ext_header":         {&RPCExtHeader{Extension: "plan", Text: "PLAN MODE", BorderColor: "yellow"}, &RPCExtHeader{Extension: "plan"}},
	"ext_footer":         {&RPCExtFooter{Extension: "plan", Text: "*read-only*", Markdown: true}},
	"ext_ui_visibility":  {&RPCExtUIVisibility{Extension: "zen", UIVisibility: UIVisibility{HideStatusBar: true, HideInputHint: true}}},
	"ext_editor_text":    {&RPCExtEditorText{Extension: "snippets", Text: "Refactor @main.go"}},
	"ext_exit_requested": {&RPCExtExitRequested{Extension: "plan"}},
}

var rpcOutputTypes = []string{
	"response", "ext_notify", "ext_display", "ext_clear_notes", "ext_alert", "ext_status", "ext_widget",
	"ext_widget_clear", "ext_chrome_clear", "ext_exited", "ext_insert", "ext_panel_open", "ext_panel_render",
	"ext_panel_close", "commands_changed", "compact_done", "ext_ui_request", "ext_ui_request_closed",
	"ext_print", "ext_header", "ext_footer", "ext_ui_visibility", "ext_editor_text", "ext_exit_requested",
}

// TestRPCCatalogs checks that every type of both catalogs has golden
// cases and that the catalogs know exactly the listed types.
func TestRPCCatalogs(t *testing.T) {
	for _, typ := range RPCCommandTypes {
		f := NewRPCCommand(typ)
		if f == nil || f.Type() != typ {
			t.Errorf("NewRPCCommand(%q) = %#v, want a command of that type", typ, f)
		}
		if len(rpcCommandCases[typ]) == 0 {
			t.Errorf("command %q has no golden cases", typ)
		}
	}
	if len(rpcCommandCases) != len(RPCCommandTypes) {
		t.Errorf("%d command case groups, %d command types", len(rpcCommandCases), len(RPCCommandTypes))
	}
	for _, typ := range rpcOutputTypes {
		f := NewRPCOutput(typ)
		if f == nil || f.Type() != typ {
			t.Errorf("NewRPCOutput(%q) = %#v, want a frame of that type", typ, f)
		}
		if len(rpcOutputCases[typ]) == 0 {
			t.Errorf("output %q has no golden cases", typ)
		}
	}
	if len(rpcOutputCases) != len(rpcOutputTypes) {
		t.Errorf("%d output case groups, %d output types", len(rpcOutputCases), len(rpcOutputTypes))
	}
	for _, bad := range []string{"", "response", "teleport"} {
		if f := NewRPCCommand(bad); f != nil {
			t.Errorf("NewRPCCommand(%q) = %#v, want nil", bad, f)
		}
	}
	if f := NewRPCOutput("prompt"); f != nil {
		t.Errorf("NewRPCOutput(%q) = %#v, want nil", "prompt", f)
	}
}

// rpcGolden compares the encodings of frames with
// testdata/rpc/<name>.json, or rewrites it with -update.
func rpcGolden(t *testing.T, name string, frames []Frame) []byte {
	t.Helper()
	var got []byte
	for _, f := range frames {
		line, err := AppendFrame(got, f)
		if err != nil {
			t.Fatalf("AppendFrame(%#v) error: %v", f, err)
		}
		got = line
	}
	path := filepath.Join("testdata", "rpc", name+".json")
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return got
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./proto -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("encoding of %s frames =\n%s\nwant (%s)\n%s", name, got, path, want)
	}
	return got
}

func TestRPCCommandGolden(t *testing.T) {
	for _, typ := range RPCCommandTypes {
		t.Run(typ, func(t *testing.T) {
			var frames []Frame
			for _, c := range rpcCommandCases[typ] {
				frames = append(frames, c)
			}
			data := rpcGolden(t, typ, frames)
			// Each line decodes to the command it came from.
			for i, line := range bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
				got, err := DecodeRPCCommand(line)
				if err != nil {
					t.Fatalf("DecodeRPCCommand(%q) error: %v", line, err)
				}
				if want := rpcCommandCases[typ][i]; !reflect.DeepEqual(got, want) {
					t.Errorf("DecodeRPCCommand(%q) = %#v, want %#v", line, got, want)
				}
			}
		})
	}
}

func TestRPCOutputGolden(t *testing.T) {
	for _, typ := range rpcOutputTypes {
		t.Run(typ, func(t *testing.T) {
			data := rpcGolden(t, typ, rpcOutputCases[typ])
			r := NewReader(bytes.NewReader(data), 0)
			r.New = NewRPCOutput
			for i, want := range rpcOutputCases[typ] {
				got, err := r.Read()
				if err != nil {
					t.Fatalf("Read() of %s frame %d error: %v", typ, i, err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("Read() = %#v, want %#v", got, want)
				}
			}
		})
	}
}

// TestRPCCommandStream reads all golden commands as one stream, split at
// every byte boundary and one byte per read, with blank lines between
// them.
func TestRPCCommandStream(t *testing.T) {
	var stream []byte
	var want []string
	for _, typ := range RPCCommandTypes {
		for _, c := range rpcCommandCases[typ] {
			line, err := AppendFrame(nil, c)
			if err != nil {
				t.Fatal(err)
			}
			stream = append(stream, line...)
			stream = append(stream, "\n  \r\n"...)
			want = append(want, string(bytes.TrimSuffix(line, []byte("\n"))))
		}
	}
	read := func(r io.Reader) []string {
		rd := NewReader(r, 0)
		rd.New = NewRPCCommand
		var got []string
		for {
			f, err := rd.Read()
			if err == io.EOF {
				return got
			}
			if err != nil {
				t.Fatalf("Read() error: %v", err)
			}
			b, _ := Marshal(f)
			got = append(got, string(b))
		}
	}
	for split := -1; split <= len(stream); split += 7 {
		got := read(&splitReader{data: stream, at: split})
		if !slices.Equal(got, want) {
			t.Fatalf("commands read with a split at %d differ:\n%q\nwant\n%q", split, got, want)
		}
	}
}

func TestDecodeRPCCommandErrors(t *testing.T) {
	tests := []struct {
		line    string
		id      string
		typ     string
		unknown bool
		msg     string
	}{
		{`{not json`, "", "", false, "malformed JSON"},
		{`[1,2]`, "", "", false, "must be a JSON object"},
		{`"ping"`, "", "", false, "must be a JSON object"},
		{`{"id":"x"}`, `"x"`, "", false, `missing "type"`},
		{`{"type":3,"id":4}`, `4`, "", false, `"type" must be a string`},
		{`{"type":"teleport","id":"u"}`, `"u"`, "teleport", true, "unknown command"},
		{`{"type":"ping","id":{"a":1}}`, "", "ping", false, `"id" must be a string or a number`},
		{`{"type":"ping","id":[1]}`, "", "ping", false, `"id" must be a string or a number`},
		{`{"type":"ping","id":true}`, "", "ping", false, `"id" must be a string or a number`},
		{`{"type":"prompt","id":1,"message":42}`, `1`, "prompt", false, `prompt: member "message" must be a string, not number`},
		{`{"type":"prompt","images":"x"}`, "", "prompt", false, `member "images" must be an array`},
		{`{"type":"ext_ui_response","index":"1"}`, "", "ext_ui_response", false, `member "index" must be a number`},
		{`{"type":"ping"} {"type":"ping"}`, "", "", false, "malformed JSON"},
	}
	for _, tc := range tests {
		t.Run(tc.line, func(t *testing.T) {
			c, err := DecodeRPCCommand([]byte(tc.line))
			var re *RPCError
			if !errors.As(err, &re) {
				t.Fatalf("DecodeRPCCommand(%q) = %#v, %v; want *RPCError", tc.line, c, err)
			}
			if string(re.ID) != tc.id || re.Type != tc.typ || re.Unknown != tc.unknown || !strings.Contains(re.Msg, tc.msg) {
				t.Errorf("DecodeRPCCommand(%q) = {ID:%s Type:%q Unknown:%v Msg:%q}, want {ID:%s Type:%q Unknown:%v Msg containing %q}",
					tc.line, re.ID, re.Type, re.Unknown, re.Msg, tc.id, tc.typ, tc.unknown, tc.msg)
			}
		})
	}
}

func TestDecodeRPCCommandLenient(t *testing.T) {
	tests := []struct {
		line string
		want RPCCommand
	}{
		// An escaped type name takes the slow path.
		{`{"type":"p\u0069ng","id":1}`, &RPCPing{RPCHead: rpcID(`1`)}},
		// Members in any order, unknown members ignored, null id absent.
		{`{"message":"hi","x":[1],"type":"prompt","id":null}`, &RPCPrompt{RPCHead: rpcID(`null`), Message: "hi"}},
		{` {"type" : "abort" } `, &RPCAbort{}},
	}
	for _, tc := range tests {
		got, err := DecodeRPCCommand([]byte(tc.line))
		if err != nil {
			t.Fatalf("DecodeRPCCommand(%q) error: %v", tc.line, err)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("DecodeRPCCommand(%q) = %#v, want %#v", tc.line, got, tc.want)
		}
	}
}

// FuzzDecodeRPCCommand checks that no line makes the decoder panic, that
// failures are *RPCError with a message, and that what decodes encodes to
// a line that decodes to the same command.
func FuzzDecodeRPCCommand(f *testing.F) {
	for _, cases := range rpcCommandCases {
		for _, c := range cases {
			b, _ := Marshal(c)
			f.Add(b)
		}
	}
	for _, s := range []string{`{not json`, `{"type":"teleport"}`, `{"type":"ping","id":{}}`, `{"type":"p\u0069ng"}`, `[]`, `{"type":"prompt","images":[{"mime_type":1}]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		c, err := DecodeRPCCommand(line)
		if err != nil {
			var re *RPCError
			if !errors.As(err, &re) || re.Msg == "" {
				t.Fatalf("DecodeRPCCommand(%q) error %#v is not an *RPCError with a message", line, err)
			}
			return
		}
		b, err := Marshal(c)
		if err != nil {
			t.Fatalf("Marshal(%#v) error: %v", c, err)
		}
		again, err := DecodeRPCCommand(b)
		if err != nil {
			t.Fatalf("DecodeRPCCommand(Marshal(%#v)) = %v", c, err)
		}
		b2, _ := Marshal(again)
		if !bytes.Equal(b, b2) {
			t.Fatalf("round trip of %q: %s then %s", line, b, b2)
		}
	})
}
