package agent

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestMarshalDelta: MarshalEvent's own path for the deltas writes what
// the general one (encoding/json of the struct, the type put first)
// writes, escapes and invalid UTF-8 included.
func TestMarshalDelta(t *testing.T) {
	for _, s := range []string{"", "Hello", `a "quoted" \ word`, "line\nbreak\ttab\r\x00\x1f", "<b> & </b>",
		"\u2028\u2029", "é 😀", "bad \xff\xfe utf-8", "\x7f"} {
		for _, ev := range []Event{TextDelta{Delta: s}, ThinkingDelta{Delta: s}} {
			got, err := MarshalEvent(ev)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := json.Marshal(ev)
			want := append([]byte(`{"type":`+quote(ev.EventType())+","), body[1:]...)
			if !bytes.Equal(got, want) {
				t.Errorf("MarshalEvent(%#v) = %s, want %s", ev, got, want)
			}
		}
	}
}

// FuzzMarshalDelta holds MarshalEvent's path for the deltas to
// encoding/json on any text.
func FuzzMarshalDelta(f *testing.F) {
	for _, s := range []string{"", "Hello", "<&>\u2028\x00\x7f\xff", "é 😀 \"\\"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ev := TextDelta{Delta: s}
		got, _ := MarshalEvent(ev)
		body, _ := json.Marshal(ev)
		if want := append([]byte(`{"type":"text_delta",`), body[1:]...); !bytes.Equal(got, want) {
			t.Fatalf("MarshalEvent(%#v) = %s, want %s", ev, got, want)
		}
	})
}
