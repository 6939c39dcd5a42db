package provider

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
)

type sseEvent struct{ Name, Data string }

// readSSE decodes all events of r.
func readSSE(r io.Reader) ([]sseEvent, error) {
	s := newSSEReader(r)
	var out []sseEvent
	for {
		name, data, err := s.next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, sseEvent{string(name), string(data)})
	}
}

// splitReader returns the input in two reads split at i.
func splitReader(b []byte, i int) io.Reader {
	return io.MultiReader(bytes.NewReader(b[:i]), bytes.NewReader(b[i:]))
}

var sseCases = []struct {
	name string
	in   string
	want []sseEvent
}{
	{"empty", "", nil},
	{"one event", "event: ping\ndata: {}\n\n", []sseEvent{{"ping", "{}"}}},
	{"data only", "data: hello\n\n", []sseEvent{{"", "hello"}}},
	{"no space after colon", "event:x\ndata:y\n\n", []sseEvent{{"x", "y"}}},
	{"two spaces keeps one", "data:  y\n\n", []sseEvent{{"", " y"}}},
	{"multi-line data", "data: a\ndata: b\ndata:\n\n", []sseEvent{{"", "a\nb\n"}}},
	{"empty data line", "data:\n\n", []sseEvent{{"", ""}}},
	{"field without colon", "data\n\n", []sseEvent{{"", ""}}},
	{"comments skipped", ": OPENROUTER PROCESSING\n\n: x\ndata: 1\n: y\n\n", []sseEvent{{"", "1"}}},
	{"event without data is dropped", "event: a\n\ndata: b\n\n", []sseEvent{{"", "b"}}},
	{"id and retry ignored", "id: 7\nretry: 10\ndata: z\n\n", []sseEvent{{"", "z"}}},
	{"unknown field ignored", "foo: bar\ndata: z\n\n", []sseEvent{{"", "z"}}},
	{"name resets between events", "event: a\ndata: 1\n\ndata: 2\n\n", []sseEvent{{"a", "1"}, {"", "2"}}},
	{"blank lines between", "\n\n\ndata: 1\n\n\n\ndata: 2\n\n", []sseEvent{{"", "1"}, {"", "2"}}},
	{"crlf", "event: a\r\ndata: 1\r\n\r\n", []sseEvent{{"a", "1"}}},
	{"lone cr", "event: a\rdata: 1\r\rdata: 2\r\r", []sseEvent{{"a", "1"}, {"", "2"}}},
	{"mixed breaks", "data: 1\r\n\ndata: 2\r\r\n", []sseEvent{{"", "1"}, {"", "2"}}},
	{"bom", "\xef\xbb\xbfdata: 1\n\n", []sseEvent{{"", "1"}}},
	{"colon in value", "data: {\"a\":1}\n\n", []sseEvent{{"", `{"a":1}`}}},
	// Next to the form read whole off the buffer (lineReader.event).
	{"two event lines", "event: a\nevent: b\ndata: 1\n\n", []sseEvent{{"b", "1"}}},
	{"second data line", "event: a\ndata: 1\ndata: 2\n\n", []sseEvent{{"a", "1\n2"}}},
	{"blank line with cr", "event: a\ndata: 1\n\r\nevent: b\ndata: 2\n\n", []sseEvent{{"a", "1"}, {"b", "2"}}},
	{"cr inside the data line", "data: 1\r2\n\n", []sseEvent{{"", "1"}}},
	{"no blank line at the end", "event: a\ndata: 1\n", []sseEvent{{"a", "1"}}},
	{"empty event name", "event: \ndata: 1\n\n", []sseEvent{{"", "1"}}},
	{"last event without blank line", "data: 1\n\ndata: [DONE]\n", []sseEvent{{"", "1"}, {"", "[DONE]"}}},
	{"cut last line dropped", "data: 1\n\ndata: {\"type\":\"mess", []sseEvent{{"", "1"}}},
	{"cut event keeps nothing", "data: a\ndata: b", nil},
	{"unterminated whole JSON kept", "data: 1\n\ndata: {\"type\":\"message_stop\"}", []sseEvent{{"", "1"}, {"", `{"type":"message_stop"}`}}},
	{"unterminated done kept", "data: 1\n\ndata: [DONE]", []sseEvent{{"", "1"}, {"", "[DONE]"}}},
	{"unterminated event line dropped", "data: 1\n\nevent: x", []sseEvent{{"", "1"}}},
	{"utf8 data", "data: héllo 😊\n\n", []sseEvent{{"", "héllo 😊"}}},
}

func TestSSE(t *testing.T) {
	for _, tc := range sseCases {
		t.Run(tc.name, func(t *testing.T) {
			in := []byte(tc.in)
			check := func(how string, r io.Reader) {
				t.Helper()
				got, err := readSSE(r)
				if err != nil {
					t.Fatalf("%s: readSSE(%q) error %v", how, tc.in, err)
				}
				if !reflect.DeepEqual(got, tc.want) {
					t.Fatalf("%s: readSSE(%q) = %q, want %q", how, tc.in, got, tc.want)
				}
			}
			check("whole", bytes.NewReader(in))
			check("bytewise", iotest.OneByteReader(bytes.NewReader(in)))
			check("data error-free half reads", iotest.HalfReader(bytes.NewReader(in)))
			for i := range in {
				check(fmt.Sprintf("split at %d", i), splitReader(in, i))
			}
		})
	}
}

func TestSSELargeEvent(t *testing.T) {
	big := strings.Repeat("x", 3<<20) // 3 MiB, past the initial buffer many times
	in := "event: big\ndata: " + big + "\n\ndata: after\n\n"
	got, err := readSSE(strings.NewReader(in))
	if err != nil {
		t.Fatalf("readSSE(3 MiB event) error %v", err)
	}
	if len(got) != 2 || got[0].Name != "big" || got[0].Data != big || got[1].Data != "after" {
		t.Fatalf("readSSE(3 MiB event) returned %d events, want the big one and \"after\"", len(got))
	}
	// Many data lines adding up to more than 1 MiB.
	var b strings.Builder
	for range 20000 {
		b.WriteString("data: ")
		b.WriteString(strings.Repeat("y", 100))
		b.WriteString("\n")
	}
	b.WriteString("\n")
	got, err = readSSE(strings.NewReader(b.String()))
	if err != nil || len(got) != 1 || len(got[0].Data) != 20000*101-1 {
		t.Fatalf("readSSE(2 MB multi-line event) = %d events, err %v", len(got), err)
	}
}

func TestSSETooLarge(t *testing.T) {
	r := io.MultiReader(strings.NewReader("data: "), &repeatReader{b: 'z', n: maxFrame + 10})
	_, err := readSSE(r)
	if !errors.Is(err, errFrameTooLarge) {
		t.Fatalf("readSSE(%d-byte line) error = %v, want %v", maxFrame+10, err, errFrameTooLarge)
	}
}

func TestSSEReadError(t *testing.T) {
	boom := errors.New("connection reset")
	r := io.MultiReader(strings.NewReader("data: 1\n\ndata: 2"), iotest.ErrReader(boom))
	got, err := readSSE(r)
	if !errors.Is(err, boom) || len(got) != 1 {
		t.Fatalf("readSSE(body then reset) = %q, %v; want one event and %v", got, err, boom)
	}
}

func TestNDJSON(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"lines", "{\"a\":1}\n{\"b\":2}\n", []string{`{"a":1}`, `{"b":2}`}},
		{"crlf and blanks", "{\"a\":1}\r\n\r\n  \n{\"b\":2}\r\n", []string{`{"a":1}`, `{"b":2}`}},
		{"whole last line kept", "{\"a\":1}\n{\"b\":2}", []string{`{"a":1}`, `{"b":2}`}},
		{"cut last line dropped", "{\"a\":1}\n{\"b\":", []string{`{"a":1}`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := []byte(tc.in)
			for i := range len(in) + 1 {
				r := newNDJSONReader(splitReader(in, i))
				var got []string
				for {
					_, data, err := r.next()
					if err == io.EOF {
						break
					}
					if err != nil {
						t.Fatalf("next() error %v", err)
					}
					got = append(got, string(data))
				}
				if !reflect.DeepEqual(got, tc.want) {
					t.Fatalf("split %d: ndjson(%q) = %q, want %q", i, tc.in, got, tc.want)
				}
			}
		})
	}
}

// repeatReader yields n copies of b.
type repeatReader struct {
	b byte
	n int
}

func (r *repeatReader) Read(p []byte) (int, error) {
	if r.n == 0 {
		return 0, io.EOF
	}
	k := min(len(p), r.n)
	for i := range k {
		p[i] = r.b
	}
	r.n -= k
	return k, nil
}

func FuzzSSE(f *testing.F) {
	for _, tc := range sseCases {
		f.Add([]byte(tc.in), uint16(3))
	}
	f.Fuzz(func(t *testing.T, in []byte, split uint16) {
		whole, err1 := readSSE(bytes.NewReader(in))
		i := int(split) % (len(in) + 1)
		parts, err2 := readSSE(splitReader(in, i))
		bytewise, err3 := readSSE(iotest.OneByteReader(bytes.NewReader(in)))
		if (err1 == nil) != (err2 == nil) || (err1 == nil) != (err3 == nil) {
			t.Fatalf("errors differ: whole %v, split %v, bytewise %v", err1, err2, err3)
		}
		if !reflect.DeepEqual(whole, parts) || !reflect.DeepEqual(whole, bytewise) {
			t.Fatalf("readSSE(%q) differs by chunking:\nwhole    %q\nsplit %d %q\nbytewise %q", in, whole, i, parts, bytewise)
		}
	})
}

// sseBenchBody is a realistic Anthropic text stream of n deltas.
func sseBenchBody(n int) []byte {
	var b bytes.Buffer
	b.WriteString("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"model\":\"claude\",\"usage\":{\"input_tokens\":10,\"output_tokens\":1}}}\n\n")
	b.WriteString("event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n")
	for i := range n {
		fmt.Fprintf(&b, "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\" token %d, and \\\"more\\\"\"}}\n\n", i)
	}
	b.WriteString("event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n")
	b.WriteString("event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":99}}\n\n")
	b.WriteString("event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n")
	return b.Bytes()
}

func BenchmarkSSE(b *testing.B) {
	body := sseBenchBody(10000)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	r := bytes.NewReader(body)
	for b.Loop() {
		r.Reset(body)
		s := newSSEReader(r)
		for {
			if _, _, err := s.next(); err != nil {
				break
			}
		}
	}
}
