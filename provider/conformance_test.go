package provider

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The conformance test replays the recorded streams of the shared fixtures
// corpus and validates the OpenAI request bodies against the official
// OpenAPI document. It runs when ZUT_CONFORMANCE_DIR names the corpus
// (.ci/run sets it).

// conformanceExpect lists the recordings that must not end in a complete
// message, by path suffix, with the outcome they must produce instead.
var conformanceExpect = map[string]string{
	// Anthropic SSE that stops inside a tool block: complete, but the tool
	// input is cut (a ToolInputError on its tool_end).
	"streaming/fixtures/incomplete_partial_json_response.txt": "tool-input-error",
	// OpenAI Responses streams that fail with an error event.
	"openai/stream-rate-limited-1.json":            "api-error",
	"openai/stream-unknown-error-responses-1.json": "api-error",
	// An empty recording: no final event, so a truncated stream.
	"openai/stream-with-image-generation-1.json": "truncated",
}

func conformanceDir(t *testing.T) string {
	dir := os.Getenv("ZUT_CONFORMANCE_DIR")
	if dir == "" {
		t.Skip("ZUT_CONFORMANCE_DIR is not set; .ci/run points it at the shared fixtures")
	}
	return dir
}

// sniffWire guesses a recorded body's wire from its first frame.
func sniffWire(body []byte) (Wire, bool) {
	s := strings.TrimSpace(string(body))
	switch {
	case s == "":
		return "", false
	case strings.HasPrefix(s, "event: message_start"), strings.HasPrefix(s, "event: ping"):
		return WireAnthropic, true
	case strings.HasPrefix(s, "event: response."), strings.HasPrefix(s, "event: error"):
		return WireResponses, true
	case strings.HasPrefix(s, "data:"), strings.HasPrefix(s, ":"):
		return WireChat, true
	case strings.HasPrefix(s, "{") && strings.Contains(s, `"done":`):
		return WireOllama, true
	}
	return "", false
}

// outcome classifies a replay.
func outcome(evs []Event, msg Message, err error) string {
	var ae *APIError
	var ce *ConnError
	switch {
	case errors.As(err, &ae):
		return "api-error"
	case errors.As(err, &ce) && ce.Truncated:
		return "truncated"
	case err != nil:
		return "error: " + err.Error()
	}
	for _, e := range evs {
		if e.Type == EventToolEnd && e.Err != nil {
			return "tool-input-error"
		}
	}
	return "ok"
}

// checkComplete asserts the invariants of a complete response.
func checkComplete(t *testing.T, name string, evs []Event, msg Message) {
	t.Helper()
	if len(evs) == 0 || evs[len(evs)-1].Type != EventStop {
		t.Errorf("%s: last event is not stop", name)
	}
	open := map[int]bool{}
	for _, e := range evs {
		switch e.Type {
		case EventToolStart:
			open[e.Index] = true
		case EventToolEnd:
			if !open[e.Index] {
				t.Errorf("%s: tool_end %d without tool_start", name, e.Index)
			}
			delete(open, e.Index)
		}
	}
	if len(open) > 0 {
		t.Errorf("%s: tool calls never ended: %v", name, open)
	}
	for _, b := range msg.Content {
		if b.Type == BlockToolUse && (len(b.Input) == 0 || !json.Valid(b.Input)) {
			t.Errorf("%s: tool %s input %q is not JSON", name, b.Name, b.Input)
		}
	}
	if _, err := json.Marshal(msg); err != nil {
		t.Errorf("%s: message does not marshal: %v", name, err)
	}
}

func TestConformanceStreams(t *testing.T) {
	dir := filepath.Join(conformanceDir(t), "providers")
	counts := map[Wire]int{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		switch ext := filepath.Ext(path); {
		case strings.HasSuffix(path, "openapi.json"), ext == ".golden", filepath.Base(path) == "LICENSE":
			return nil
		case ext == ".yaml":
			for i, body := range cassetteBodies(t, path) {
				replayRecorded(t, rel+"#"+string(rune('0'+i)), []byte(body), counts)
			}
			return nil
		case strings.Contains(path, "__inline_snapshot__"):
			replaySnapshot(t, rel, path, counts)
			return nil
		}
		body, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		replayRecorded(t, rel, body, counts)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("replayed streams by wire: %v", counts)
	for _, w := range []Wire{WireAnthropic, WireChat, WireResponses, WireOllama} {
		if counts[w] == 0 {
			t.Errorf("no %s stream found in the corpus", w)
		}
	}
}

func replayRecorded(t *testing.T, name string, body []byte, counts map[Wire]int) {
	t.Helper()
	want := "ok"
	for suffix, o := range conformanceExpect {
		if strings.HasSuffix(filepath.ToSlash(name), suffix) {
			want = o
		}
	}
	w, ok := sniffWire(body)
	if !ok {
		if want != "truncated" {
			t.Errorf("%s: cannot tell the wire of this recording", name)
		}
		return
	}
	counts[w]++
	evs, msg, err := replay(w, bytes.NewReader(body), "conformance")
	got := outcome(evs, msg, err)
	if got != want {
		t.Errorf("%s (%s): outcome %s, want %s", name, w, got, want)
	}
	if got == "ok" || got == "tool-input-error" {
		checkComplete(t, name, evs, msg)
	}
	// Byte-at-a-time delivery gives the same result.
	evs2, _, err2 := replay(w, &oneByte{b: body}, "conformance")
	if !bytes.Equal(renderResult(evs, Message{}, err), renderResult(evs2, Message{}, err2)) {
		t.Errorf("%s: replay differs when the body arrives byte by byte", name)
	}
}

type oneByte struct{ b []byte }

func (r *oneByte) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		return 0, io.EOF
	}
	p[0] = r.b[0]
	r.b = r.b[1:]
	return 1, nil
}

// cassetteBodies extracts the block-scalar response bodies of a go-vcr
// YAML cassette ("body: |+" under "response:").
func cassetteBodies(t *testing.T, path string) []string {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var bodies []string
	var cur strings.Builder
	inResponse, inBody, indent := false, false, 0
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		lead := len(line) - len(strings.TrimLeft(line, " "))
		if inBody {
			if trimmed == "" || lead >= indent {
				if trimmed == "" {
					cur.WriteString("\n")
				} else {
					cur.WriteString(line[indent:] + "\n")
				}
				continue
			}
			bodies = append(bodies, cur.String())
			cur.Reset()
			inBody = false
		}
		switch {
		case trimmed == "response:":
			inResponse = true
		case trimmed == "request:" || strings.HasPrefix(trimmed, "- request:"):
			inResponse = false
		case inResponse && (trimmed == "body: |+" || trimmed == "body: |" || trimmed == "body: |-"):
			inBody, indent = true, lead+2
		}
	}
	if inBody {
		bodies = append(bodies, cur.String())
	}
	if len(bodies) == 0 && strings.Contains(path, "stream") {
		t.Errorf("%s: no streamed response bodies found", path)
	}
	return bodies
}

// replaySnapshot checks the request/response pairs of an inline snapshot:
// streamed bodies are replayed, error bodies parsed.
func replaySnapshot(t *testing.T, rel, path string, counts map[Wire]int) {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var pairs []struct {
		Response struct {
			StatusCode int               `json:"status_code"`
			Headers    map[string]string `json:"headers"`
			Body       json.RawMessage   `json:"body"`
		} `json:"response"`
	}
	if err := json.Unmarshal(data, &pairs); err != nil {
		t.Errorf("%s: %v", rel, err)
		return
	}
	for i, p := range pairs {
		name := rel + "#" + string(rune('0'+i))
		var s string
		if json.Unmarshal(p.Response.Body, &s) == nil {
			replayRecorded(t, name, []byte(s), counts)
			continue
		}
		if p.Response.StatusCode < 400 {
			continue // a non-streamed message
		}
		h := http.Header{}
		for k, v := range p.Response.Headers {
			h.Set(k, v)
		}
		e := &APIError{Provider: "anthropic", Status: p.Response.StatusCode, shouldRetry: shouldRetryHeader(h)}
		parseErrorBody(e, p.Response.Body)
		if e.Type == "" || e.Message == "" || e.RequestID == "" {
			t.Errorf("%s: parsed error %+v lacks type, message or request ID", name, e)
		}
		if e.shouldRetry != 0 && e.retryable() != (e.shouldRetry > 0) && !e.Quota() {
			t.Errorf("%s: retryable() = %v against x-should-retry %q", name, e.retryable(), h.Get("X-Should-Retry"))
		}
		if line := e.Error(); len(line) > 400 || strings.Contains(line, "\n") {
			t.Errorf("%s: Error() is not one short line: %q", name, line)
		}
	}
}

func TestConformanceRequestSchemas(t *testing.T) {
	dir := conformanceDir(t)
	doc, err := os.ReadFile(filepath.Join(dir, "providers", "openai-openapi", "openapi.json"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := newSchemaChecker(doc)
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, tc := range requestCases(t) {
		var schema string
		switch {
		case strings.HasPrefix(tc.name, "chat-"):
			schema = "CreateChatCompletionRequest"
		case strings.HasPrefix(tc.name, "responses-"):
			schema = "CreateResponse"
		default:
			continue
		}
		b, _ := json.Marshal(tc.body)
		var v any
		json.Unmarshal(b, &v)
		if m, ok := v.(map[string]any); ok && strings.Contains(tc.name, "deepseek") {
			delete(m, "thinking") // DeepSeek's own switch, not an OpenAI field
			for _, msg := range m["messages"].([]any) {
				delete(msg.(map[string]any), "reasoning_content")
			}
		}
		for _, e := range c.check(map[string]any{"$ref": "#/components/schemas/" + schema}, v, "$") {
			t.Errorf("%s: %s", tc.name, e)
		}
		checked++
	}
	if checked < 5 {
		t.Errorf("checked %d bodies, want every chat and responses case", checked)
	}
}
