package ext

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/zut-go/zut/proto"
)

func TestRunIOErrors(t *testing.T) {
	tests := []struct {
		name  string
		input string
		want  []string // parts of the error
	}{
		{
			name:  "version mismatch",
			input: `{"type":"hello_ack","protocol_version":3}` + "\n",
			want:  []string{`run extension "x"`, "protocol_version 3", "speaks 2"},
		},
		{
			name:  "end of input before hello_ack",
			input: "",
			want:  []string{`run extension "x"`, "closed stdin before hello_ack"},
		},
		{
			name:  "only garbage before the end",
			input: "garbage\n{\"type\":\"nope\"}\n",
			want:  []string{"closed stdin before hello_ack"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := New("x", "1")
			var log syncBuffer
			e.SetLogOutput(&log)
			err := e.RunIO(context.Background(), strings.NewReader(tc.input), io.Discard)
			if err == nil {
				t.Fatalf("RunIO(%q) = nil, want an error", tc.input)
			}
			for _, part := range tc.want {
				if !strings.Contains(err.Error(), part) {
					t.Errorf("RunIO(%q) = %v, want it to contain %q", tc.input, err, part)
				}
			}
		})
	}
}

func TestRunIOEndOfInputAfterAck(t *testing.T) {
	e := New("x", "1")
	var out strings.Builder
	in := `{"type":"hello_ack","protocol_version":2}` + "\n"
	if err := e.RunIO(context.Background(), strings.NewReader(in), &out); err != nil {
		t.Fatalf("RunIO(%q) = %v, want nil", in, err)
	}
	want := `{"type":"hello","protocol_version":2,"name":"x","version":"1","capabilities":["commands","tools","alerts","panels","tool_cancel"]}` + "\n" +
		`{"type":"ready"}` + "\n"
	if out.String() != want {
		t.Errorf("RunIO(%q) wrote\n%s\nwant\n%s", in, out.String(), want)
	}
	if err := e.Notify(LevelInfo, "late"); !errors.Is(err, ErrClosed) {
		t.Errorf("Notify after the connection ended = %v, want ErrClosed", err)
	}
}

func TestRunIOTwiceAtOnce(t *testing.T) {
	e := New("x", "1")
	r, w := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- e.RunIO(context.Background(), r, io.Discard) }()
	// Wait until the first RunIO is attached: the hello is written by
	// then, and the ack makes the handshake complete.
	io.WriteString(w, `{"type":"hello_ack","protocol_version":2}`+"\n")
	for e.Host().ProtocolVersion == 0 {
		runtime.Gosched()
	}
	err := e.RunIO(context.Background(), strings.NewReader(""), io.Discard)
	if err == nil || !strings.Contains(err.Error(), "already running") {
		t.Errorf("second RunIO = %v, want an already running error", err)
	}
	w.Close()
	if err := <-done; err != nil {
		t.Errorf("first RunIO = %v, want nil", err)
	}
}

func TestRunIOContextInterruptsRead(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	e := New("x", "1")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.RunIO(ctx, r, io.Discard) }()
	io.WriteString(w, `{"type":"hello_ack","protocol_version":2}`+"\n")
	for e.Host().ProtocolVersion == 0 {
		runtime.Gosched()
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("RunIO after cancel = %v, want context.Canceled", err)
	}
}

// failWriter fails every write.
type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("broken pipe") }

func TestRunIOWriteFailure(t *testing.T) {
	e := New("x", "1")
	err := e.RunIO(context.Background(), strings.NewReader(""), failWriter{})
	if err == nil || !strings.Contains(err.Error(), "write hello frame to the host: broken pipe") {
		t.Errorf("RunIO on a broken writer = %v, want the hello write error", err)
	}
}

func TestEarlyFramesAreBounded(t *testing.T) {
	e := New("x", "1")
	for i := range maxEarly {
		if err := e.Notify(LevelInfo, fmt.Sprint(i)); err != nil {
			t.Fatalf("Notify #%d before Run = %v, want nil", i, err)
		}
	}
	if err := e.Notify(LevelInfo, "one too many"); err == nil {
		t.Errorf("Notify #%d before Run = nil, want an error", maxEarly)
	}
}

func TestResponseFrame(t *testing.T) {
	p := Panel{ID: "p", Title: "T", Lines: []string{"l"}, Footer: "f"}
	tests := []struct {
		name string
		r    Response
		want proto.CommandResponse
	}{
		{"prompt", Prompt("hi"), proto.CommandResponse{ID: "1", Action: "prompt", Prompt: "hi"}},
		{"insert", Insert("ins"), proto.CommandResponse{ID: "1", Action: "insert", Insert: "ins"}},
		{"display", Display("d"), proto.CommandResponse{ID: "1", Action: "display", Display: "d"}},
		{"open panel", OpenPanelResponse(p), proto.CommandResponse{ID: "1", Action: "open_panel", OpenPanel: &proto.Panel{ID: "p", Title: "T", Lines: []string{"l"}, Footer: "f"}}},
		{"noop", Noop(), proto.CommandResponse{ID: "1", Action: "noop"}},
		{"error", ErrorResponse("bad"), proto.CommandResponse{ID: "1", Action: "noop", Error: "bad"}},
		{"zero", Response{}, proto.CommandResponse{ID: "1", Action: "noop"}},
		{"prompt with error", Response{Action: ActionPrompt, Text: "x", Error: "warn"}, proto.CommandResponse{ID: "1", Action: "prompt", Prompt: "x", Error: "warn"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.r.frame("1"); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("%#v.frame(1) = %#v, want %#v", tc.r, got, tc.want)
			}
		})
	}
}

func TestJSONDetails(t *testing.T) {
	tests := []struct {
		name string
		v    any
		want string
	}{
		{"object", map[string]int{"a": 1}, `{"a":1}`},
		{"null", nil, `null`},
		{"struct", struct {
			Items []string `json:"items"`
		}{[]string{"x"}}, `{"items":["x"]}`},
		{"unencodable", make(chan int), ``},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := string(JSONDetails(tc.v)); got != tc.want {
				t.Errorf("JSONDetails(%v) = %q, want %q", tc.v, got, tc.want)
			}
		})
	}
}

// TestDiagnosticsAreLogged checks that panics (with their stacks), bad
// rewrites, invalid details and bad input reach the extension's log.
func TestDiagnosticsAreLogged(t *testing.T) {
	d := newDemo()
	h := startScript(t, d.Extension, false)
	h.ready()
	h.call(proto.CommandInvoked{ID: "1", Name: "boom"})
	h.call(proto.ToolCall{ID: "2", Name: "panics"})
	h.call(proto.ToolCall{ID: "3", Name: "bad_details"})
	h.call(proto.EventIntercept{ID: "4", Name: EventToolCall, ToolName: "badrewrite"})
	h.call(proto.EventIntercept{ID: "5", Name: EventToolCall, ToolName: "boom"})
	h.sendRaw("not json")
	h.sendRaw(`{"type":"mystery"}`)
	h.shutdown()
	log := h.log.String()
	for _, want := range []string{
		"demo: command /boom panicked: kaboom",
		`demo: tool "panics" panicked: tool kaboom`,
		"goroutine ", // a stack
		`tool "bad_details": details are not valid JSON`,
		`ModifiedArgs for "badrewrite" is not a JSON object; ignored`,
		"tool_call interceptor panicked: interceptor kaboom",
		`read frame: line`,
		`unknown frame type "mystery"`,
	} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %q; log:\n%s", want, log)
		}
	}
}

// TestConcurrentUse runs many tool calls at once while other goroutines
// send one-way frames; with -race it checks the SDK's locking, and it
// checks that every call is answered once and every line is whole.
func TestConcurrentUse(t *testing.T) {
	before := runtime.NumGoroutine()
	d := newDemo()
	h := startScript(t, d.Extension, false)
	h.ready()
	const calls, notes = 200, 200
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := range notes {
			d.Notify(LevelInfo, fmt.Sprint("note ", i))
		}
	}()
	go func() {
		for i := range calls {
			line, _ := proto.Marshal(proto.ToolCall{ID: fmt.Sprint(i), Name: "echo", Args: json.RawMessage(fmt.Sprintf(`{"i":%d}`, i))})
			io.WriteString(h.in, string(line)+"\n")
		}
	}()
	results := map[string]bool{}
	nNotes := 0
	for range calls + notes {
		switch f := h.recv().(type) {
		case *proto.ToolResult:
			if results[f.ID] {
				t.Errorf("two results for call %s", f.ID)
			}
			results[f.ID] = true
			var in struct{ I int }
			if err := json.Unmarshal([]byte(f.Content[0].Text), &in); err != nil || fmt.Sprint(in.I) != f.ID {
				t.Errorf("result of call %s = %q, want its own arguments", f.ID, f.Content[0].Text)
			}
		case *proto.Notify:
			nNotes++
		default:
			t.Errorf("unexpected %s frame", f.Type())
		}
	}
	wg.Wait()
	if len(results) != calls || nNotes != notes {
		t.Errorf("got %d results and %d notes, want %d and %d", len(results), nNotes, calls, notes)
	}
	h.shutdown()
	checkNoLeak(t, before)
}
