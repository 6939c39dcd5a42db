package provider

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

// replay decodes a recorded response body of wire w the way a stream does,
// without HTTP: frames, decoder, assembler.
func replay(w Wire, r io.Reader, origin string) ([]Event, Message, error) {
	return replaySlow(w, r, origin, false)
}

// replaySlow is replay, with the decoders' fast paths off when slow is set.
func replaySlow(w Wire, r io.Reader, origin string, slow bool) ([]Event, Message, error) {
	asm := &assembler{}
	dec := newDecoder(w, asm, origin)
	switch d := dec.(type) {
	case *anthropicDecoder:
		d.slow = slow
	case *chatDecoder:
		d.slow = slow
	case *responsesDecoder:
		d.slow = slow
	}
	frames := framesFor(w)(r)
	var events []Event
	drain := func() {
		events = append(events, asm.out...)
		asm.out = asm.out[:0]
	}
	for !dec.done() {
		name, data, err := frames.next()
		if err == io.EOF {
			if dec.endOK() {
				break
			}
			drain()
			return events, asm.message(), &ConnError{Provider: origin, URL: "replay", Truncated: true, Err: errTruncated}
		}
		if err != nil {
			drain()
			return events, asm.message(), err
		}
		if err := dec.frame(name, data); err != nil {
			drain()
			return events, asm.message(), err
		}
		drain()
	}
	drain()
	return events, asm.message(), nil
}

// wireOf reads the wire from a fixture name: "anthropic-…", "chat-…",
// "responses-…", "ollama-…".
func wireOf(name string) Wire {
	w, _, _ := strings.Cut(filepath.Base(name), "-")
	return Wire(w)
}

// goldenEvent is the JSON shape of an Event in golden files.
type goldenEvent struct {
	Type     string          `json:"type"`
	Index    *int            `json:"index,omitempty"`
	Text     string          `json:"text,omitempty"`
	ToolID   string          `json:"tool_id,omitempty"`
	ToolName string          `json:"tool_name,omitempty"`
	Input    json.RawMessage `json:"input,omitempty"`
	Usage    *Usage          `json:"usage,omitempty"`
	Stop     StopReason      `json:"stop,omitempty"`
	Model    string          `json:"model,omitempty"`
	Err      string          `json:"err,omitempty"`
}

func toGolden(evs []Event) []goldenEvent {
	var out []goldenEvent
	for _, e := range evs {
		g := goldenEvent{Type: e.Type.String(), Text: e.Text, ToolID: e.ToolID, ToolName: e.ToolName, Input: e.Input, Stop: e.Stop, Model: e.Model}
		switch e.Type {
		case EventTextDelta, EventThinkingDelta, EventToolStart, EventToolDelta, EventToolEnd:
			g.Index = ptr(e.Index)
		case EventUsage, EventStop:
			g.Usage = ptr(e.Usage)
		}
		if e.Err != nil {
			g.Err = e.Err.Error()
		}
		out = append(out, g)
	}
	return out
}

type goldenResult struct {
	Events  []goldenEvent `json:"events"`
	Message Message       `json:"message"`
	Error   string        `json:"error,omitempty"`
}

func renderResult(evs []Event, msg Message, err error) []byte {
	res := goldenResult{Events: toGolden(evs), Message: msg}
	if err != nil {
		res.Error = err.Error()
	}
	b, _ := json.MarshalIndent(res, "", "  ")
	return append(b, '\n')
}

// checkGolden compares got with the golden file, rewriting it with -update.
func checkGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden file: %v (run go test ./provider -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file; got:\n%s", path, got)
	}
}

func TestStreamGolden(t *testing.T) {
	files, _ := filepath.Glob("testdata/streams/*.sse")
	if len(files) == 0 {
		t.Fatal("no stream fixtures in testdata/streams")
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".sse")
		t.Run(name, func(t *testing.T) {
			t.Parallel() // each fixture its own golden file; splitting at every byte is CPU work
			body, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			w := wireOf(f)
			evs, msg, err := replay(w, bytes.NewReader(body), "test")
			got := renderResult(evs, msg, err)
			checkGolden(t, strings.TrimSuffix(f, ".sse")+".json", got)
			// The same result whatever the chunking of the body.
			for i := 1; i < len(body); i++ {
				evs, msg, err := replay(w, splitReader(body, i), "test")
				if again := renderResult(evs, msg, err); !bytes.Equal(again, got) {
					t.Fatalf("split at byte %d: replay(%s) differs from the whole body:\n%s", i, name, again)
				}
			}
		})
	}
}

// TestFastPathsMatchSlowPaths feeds every hot-path event of the fixtures
// through the decoders with the fast path disabled and compares.
func TestFastPathsMatchSlowPaths(t *testing.T) {
	files, _ := filepath.Glob("testdata/streams/*.sse")
	for _, f := range files {
		body, _ := os.ReadFile(f)
		w := wireOf(f)
		fast, _, ferr := replaySlow(w, bytes.NewReader(body), "test", false)
		slow, _, serr := replaySlow(w, bytes.NewReader(body), "test", true)
		a, b := renderResult(fast, Message{}, ferr), renderResult(slow, Message{}, serr)
		if !bytes.Equal(a, b) {
			t.Errorf("%s: fast path result differs from encoding/json:\nfast %s\nslow %s", f, a, b)
		}
	}
}

func ExampleEventType_String() {
	fmt.Println(EventTextDelta, EventToolEnd)
	// Output: text_delta tool_end
}

// TestExactDelta: the Messages API's own form of a delta event takes the
// one-pass path, and every variation of it is left to the member scanner
// (whose results FuzzFastPaths holds to encoding/json's).
func TestExactDelta(t *testing.T) {
	for _, tc := range []struct {
		data string
		want bool
	}{
		{`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello"}}`, true},
		{`{"type":"content_block_delta","index":12,"delta":{"type":"text_delta","text":"a \"b\" }}"}}`, true},
		{`{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"a\":"}}`, true},
		{`{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"hm"}}`, true},
		{`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a"}} `, false},
		{`{"type":"content_block_delta","index":0,"delta":{"text":"a","type":"text_delta"}}`, false},
		{`{"index":0,"type":"content_block_delta","delta":{"type":"text_delta","text":"a"}}`, false},
		{`{"type":"content_block_delta","index":01,"delta":{"type":"text_delta","text":"a"}}`, false},
		{`{"type":"content_block_delta","index":,"delta":{"type":"text_delta","text":"a"}}`, false},
		{`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a","b":"c"}}`, false},
		{`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a"}}}`, false},
		{`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a\x01"}}`, false},
		{`{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"s"}}`, false},
	} {
		asm := &assembler{}
		d := newDecoder(WireAnthropic, asm, "test").(*anthropicDecoder)
		if got := d.exactDelta([]byte(tc.data)); got != tc.want {
			t.Errorf("exactDelta(%s) = %v, want %v", tc.data, got, tc.want)
		}
	}
}
