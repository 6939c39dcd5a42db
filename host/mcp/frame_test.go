package mcp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// splitReader returns its data in two reads, split at n.
func splitReader(data string, n int) io.Reader {
	return io.MultiReader(strings.NewReader(data[:n]), strings.NewReader(data[n:]))
}

func readLines(r io.Reader, max int) ([]string, error) {
	lr := newLineReader(r, max)
	var out []string
	for {
		line, err := lr.next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return out, nil
			}
			return out, err
		}
		out = append(out, string(line))
	}
}

func TestLineReader(t *testing.T) {
	tests := []struct {
		name string
		in   string
		max  int
		want string
		err  bool
	}{
		{"lines", "{\"a\":1}\n{\"b\":2}\n", 100, `{"a":1}|{"b":2}`, false},
		{"crlf and blanks", "\r\n{\"a\":1}\r\n\n  \n{}\n", 100, `{"a":1}|{}`, false},
		{"last line without newline", "{}\n[1]", 100, `{}|[1]`, false},
		{"at the limit", strings.Repeat("x", 10) + "\n", 10, strings.Repeat("x", 10), false},
		{"over the limit", strings.Repeat("x", 11) + "\n", 10, "", true},
		{"endless", strings.Repeat("y", 1000), 10, "", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for n := 0; n <= len(tc.in); n++ {
				got, err := readLines(splitReader(tc.in, n), tc.max)
				var tooLong *TooLongError
				if tc.err != errors.As(err, &tooLong) {
					t.Fatalf("split %d: next() error = %v, want too long: %v", n, err, tc.err)
				}
				if !tc.err && strings.Join(got, "|") != tc.want {
					t.Fatalf("split %d: lines = %q, want %q", n, strings.Join(got, "|"), tc.want)
				}
			}
			got, err := readLines(iotest.OneByteReader(strings.NewReader(tc.in)), tc.max)
			if !tc.err && (err != nil || strings.Join(got, "|") != tc.want) {
				t.Errorf("one byte at a time: %q, %v", got, err)
			}
		})
	}
}

func readEvents(r io.Reader, max int) (string, error) {
	d := newSSEDecoder(r, max)
	var b strings.Builder
	for {
		ev, err := d.next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return b.String(), nil
			}
			return b.String(), err
		}
		fmt.Fprintf(&b, "[%s|%s|%s|%d]", ev.Event, ev.Data, ev.ID, ev.Retry)
	}
}

func TestSSEDecoder(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
		err  bool
	}{
		{"one event", "data: {\"a\":1}\n\n", `[|{"a":1}||-1]`, false},
		{"named, id, retry", "event: endpoint\nid: 7\nretry: 250\ndata: /messages?s=1\n\n", `[endpoint|/messages?s=1|7|250]`, false},
		{"multi-line data", "data: a\ndata:b\ndata:  c\n\n", "[|a\nb\n c||-1]", false},
		{"CR and CRLF line ends", "data: x\r\rdata: y\r\n\r\n", `[|x||-1][|y||-1]`, false},
		{"comments and unknown fields", ": ping\nfoo: bar\ndata: z\n\n", `[|z||-1]`, false},
		{"priming event", "id: e1\ndata:\n\n", `[||e1|-1]`, false},
		{"id without data is kept", "id: 5\n\ndata: q\n\n", `[|q|5|-1]`, false},
		{"bad retry ignored", "retry: 1x\ndata: q\n\n", `[|q||-1]`, false},
		{"id with NUL ignored", "id: a\x00b\ndata: q\n\n", `[|q||-1]`, false},
		{"BOM", "\xEF\xBB\xBFdata: q\n\n", `[|q||-1]`, false},
		{"cut-off event dropped", "data: a\n\ndata: b\n", `[|a||-1]`, false},
		{"field without colon", "data\n\n", `[|||-1]`, false},
		{"too long", "data: " + strings.Repeat("z", 100) + "\n\n", "", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for n := 0; n <= len(tc.in); n++ {
				got, err := readEvents(splitReader(tc.in, n), 64)
				var tooLong *TooLongError
				if tc.err != errors.As(err, &tooLong) {
					t.Fatalf("split %d: error = %v, want too long: %v", n, err, tc.err)
				}
				if !tc.err && got != tc.want {
					t.Fatalf("split %d: events = %q, want %q", n, got, tc.want)
				}
			}
		})
	}
}

func FuzzLineReader(f *testing.F) {
	f.Add([]byte("{\"jsonrpc\":\"2.0\"}\n\r\n{}"), 16)
	f.Add([]byte(strings.Repeat("a", 40)), 8)
	f.Fuzz(func(t *testing.T, data []byte, max int) {
		if max <= 0 || max > 1<<16 {
			max = 64
		}
		lines, err := readLines(bytes.NewReader(data), max)
		for _, l := range lines {
			if len(l) > max || strings.ContainsAny(l, "\n") {
				t.Fatalf("line %q breaks the limit %d or holds a newline", l, max)
			}
		}
		var tooLong *TooLongError
		if err != nil && !errors.As(err, &tooLong) {
			t.Fatalf("unexpected error %v", err)
		}
	})
}

func FuzzSSEDecoder(f *testing.F) {
	f.Add([]byte("event: endpoint\ndata: /m\n\nid: 1\nretry: 10\ndata: {}\r\n\r\n"))
	f.Add([]byte("\xEF\xBB\xBF: c\rdata\r\r"))
	f.Fuzz(func(t *testing.T, data []byte) {
		d := newSSEDecoder(bytes.NewReader(data), 256)
		for i := 0; ; i++ {
			ev, err := d.next()
			if err != nil {
				var tooLong *TooLongError
				if !errors.Is(err, io.EOF) && !errors.As(err, &tooLong) {
					t.Fatalf("unexpected error %v", err)
				}
				return
			}
			if len(ev.Data) > 256 {
				t.Fatalf("event data of %d bytes breaks the limit", len(ev.Data))
			}
			if i > len(data) {
				t.Fatal("more events than bytes")
			}
		}
	})
}

// FuzzClientDeliver feeds arbitrary bytes to a client's dispatcher, which
// must skip what it cannot use without panicking.
func FuzzClientDeliver(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}`))
	f.Add([]byte(`[{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}]`))
	f.Add([]byte(`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c := newClient("fuzz", nil, &logFile{}, ClientOptions{})
		c.t = discardTransport{}
		c.deliver(data)
		c.fail(errClosed)
		c.handlers.Wait()
	})
}

type discardTransport struct{}

func (discardTransport) send(ctx context.Context, m outgoing) error { return nil }
func (discardTransport) ready(string)                               {}
func (discardTransport) reset()                                     {}
func (discardTransport) close() error                               { return nil }
func (discardTransport) kind() string                               { return "discard" }
