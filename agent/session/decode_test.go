package session

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// TestFastEntry checks which lines take the fast path; whatever path a
// line takes, the entry must equal what encoding/json decodes.
func TestFastEntry(t *testing.T) {
	lines := smallLines(t)
	cases := []struct {
		name string
		line string
		fast bool
	}{
		{"user message", lines[2], true},
		{"assistant message with usage", lines[3], true},
		{"tool result", lines[4], true},
		{"state", lines[5], true},
		{"cleared state", lines[10], true},
		{"state with a message", `{"type":"ext_state","id":"a","extension":"x","state":1,"message":{"role":"user","content":[]}}`, false},
		{"repeated usage", `{"type":"message","id":"a","usage":{"input":1},"usage":{"output":2},"message":{"role":"user","content":[]}}`, true},
		{"title", lines[7], false},
		{"header", lines[0], false},
		{"spaces everywhere", ` { "type" : "message" , "id" : "a", "message" : {"role":"user","content":[]} } `, true},
		{"escaped id", `{"type":"message","id":"a\"b","message":{"role":"user","content":[]}}`, false},
		{"unknown field", `{"type":"message","id":"a","extra":1,"message":{"role":"user","content":[]}}`, false},
		{"null message", `{"type":"message","id":"a","message":null}`, false},
		{"null usage", `{"type":"message","id":"a","usage":null,"message":{"role":"user","content":[]}}`, true},
		{"bad time", `{"type":"message","id":"a","time":"yesterday","message":{"role":"user","content":[]}}`, false},
		{"no message", `{"type":"message","id":"a"}`, false},
		{"nested braces in strings", `{"type":"message","id":"a","message":{"role":"user","content":[{"type":"text","text":"}]{[\"\\"}]}}`, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var fast Entry
			_, ok := fastEntry([]byte(tc.line), &fast, "")
			if ok != tc.fast {
				t.Errorf("fastEntry(%q) ok = %v, want %v", tc.line, ok, tc.fast)
			}
			checkSameDecoding(t, []byte(tc.line))
		})
	}
}

// checkSameDecoding compares decodeEntry with plain encoding/json. The
// one allowed difference: a fast-path message that encoding/json cannot
// decode reads as a note instead of failing the whole line.
func checkSameDecoding(t *testing.T, line []byte) {
	t.Helper()
	if !json.Valid(line) {
		return
	}
	var want Entry
	wantErr := json.Unmarshal(line, &want)
	var got Entry
	raw, err := decodeEntry(line, &got, "id01")
	if raw == nil {
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("decodeEntry(%q) error = %v, encoding/json says %v", line, err, wantErr)
		}
		if err == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("decodeEntry(%q) = %+v, encoding/json gives %+v", line, got, want)
		}
		return
	}
	if err != nil {
		t.Fatalf("decodeEntry(%q) returned a raw message and error %v", line, err)
	}
	s := &Session{raw: []json.RawMessage{raw}}
	*s.entries.add() = got
	m := s.message(0)
	if wantErr != nil {
		if !strings.HasPrefix(m.Text(), "[zut: this message could not be read") {
			t.Fatalf("decodeEntry(%q) message = %+v, want the unreadable note (encoding/json: %v)", line, *m, wantErr)
		}
		return
	}
	if !reflect.DeepEqual(*m, *want.Message) {
		t.Fatalf("decodeEntry(%q) message = %+v, encoding/json gives %+v", line, *m, *want.Message)
	}
	got.Message, want.Message = nil, nil
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("decodeEntry(%q) = %+v, encoding/json gives %+v", line, got, want)
	}
}

func FuzzDecodeEntry(f *testing.F) {
	for _, l := range smallLines(f) {
		f.Add([]byte(l))
	}
	f.Add([]byte(`{"type":"message","id":"a","message":{"role":"user","content":[{"type":"text","text":"}]{[\"\\"}]}}`))
	f.Add([]byte(` { "type" : "message" , "id" : "a", "usage":null, "message" : {"role":5} } `))
	f.Fuzz(func(t *testing.T, line []byte) {
		checkSameDecoding(t, line)
	})
}
