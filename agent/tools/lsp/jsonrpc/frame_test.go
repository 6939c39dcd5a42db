package jsonrpc

import (
	"bytes"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
)

// splitReader returns its data in two reads, cut at at.
type splitReader struct {
	data []byte
	at   int
	n    int // reads done
}

func (r *splitReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, io.EOF
	}
	end := len(r.data)
	if r.n == 0 && r.at < end {
		end = r.at
	}
	r.n++
	if end == 0 {
		return 0, nil
	}
	n := copy(p, r.data[:end])
	r.data = r.data[n:]
	return n, nil
}

// readAll reads frames until an error and returns the bodies and the error.
func readAll(r io.Reader, max int) ([]string, error) {
	fr := NewReader(r, max)
	var out []string
	for {
		b, err := fr.Read()
		if err != nil {
			return out, err
		}
		out = append(out, string(b))
	}
}

func TestReader(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		max     int
		want    []string
		wantErr string // "" means io.EOF at the end
	}{
		{name: "one", in: "Content-Length: 2\r\n\r\n{}", want: []string{"{}"}},
		{name: "two", in: "Content-Length: 2\r\n\r\n{}Content-Length: 7\r\n\r\n{\"a\":1}", want: []string{"{}", `{"a":1}`}},
		{name: "content type", in: "Content-Type: application/vscode-jsonrpc; charset=utf-8\r\nContent-Length: 4\r\n\r\nnull", want: []string{"null"}},
		{name: "lower case and spaces", in: "content-length:   3  \r\n\r\n[1]", want: []string{"[1]"}},
		{name: "bare LF", in: "Content-Length: 2\n\n{}", want: []string{"{}"}},
		{name: "utf-8 body", in: "Content-Length: 6\r\n\r\n\"h\u00e9\"x", want: []string{"\"h\u00e9\"x"}},
		{name: "empty body", in: "Content-Length: 0\r\n\r\n", want: []string{""}},
		{name: "empty stream", in: "", want: nil},
		{name: "no length", in: "Content-Type: x\r\n\r\n{}", wantErr: "header has no Content-Length field"},
		{name: "bad length", in: "Content-Length: ten\r\n\r\n", wantErr: `bad Content-Length "ten"`},
		{name: "negative length", in: "Content-Length: -1\r\n\r\n", wantErr: `bad Content-Length "-1"`},
		{name: "two lengths", in: "Content-Length: 1\r\nContent-Length: 2\r\n\r\n{}", wantErr: "two different Content-Length fields"},
		{name: "garbage", in: "hello world\r\n\r\n", wantErr: `malformed header line "hello world"`},
		{name: "too large", in: "Content-Length: 100\r\n\r\n", max: 10, wantErr: "message of 100 B is over the 10 B limit"},
		{name: "header too long", in: "X: " + strings.Repeat("a", maxHeader) + "\r\n\r\n", wantErr: "header is over 8 KiB"},
		{name: "cut in header", in: "Content-Len", wantErr: io.ErrUnexpectedEOF.Error()},
		{name: "cut after header", in: "Content-Length: 2\r\n", wantErr: io.ErrUnexpectedEOF.Error()},
		{name: "cut in body", in: "Content-Length: 5\r\n\r\n{}", wantErr: io.ErrUnexpectedEOF.Error()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			check := func(how string, r io.Reader) {
				t.Helper()
				got, err := readAll(r, tc.max)
				if tc.wantErr == "" {
					if err != io.EOF {
						t.Fatalf("%s: Read(%q) error %v, want io.EOF", how, tc.in, err)
					}
				} else if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("%s: Read(%q) error %v, want one containing %q", how, tc.in, err, tc.wantErr)
				}
				if strings.Join(got, "|") != strings.Join(tc.want, "|") || len(got) != len(tc.want) {
					t.Fatalf("%s: Read(%q) = %q, want %q", how, tc.in, got, tc.want)
				}
			}
			check("whole", strings.NewReader(tc.in))
			check("byte by byte", iotest.OneByteReader(strings.NewReader(tc.in)))
			for i := 0; i <= len(tc.in); i++ {
				check("split at "+strconv.Itoa(i), &splitReader{data: []byte(tc.in), at: i})
			}
		})
	}
}

func TestFrameErrorFields(t *testing.T) {
	_, err := NewReader(strings.NewReader("Content-Length: 1000\r\n\r\n"), 100).Read()
	var fe *FrameError
	if !errors.As(err, &fe) || fe.Size != 1000 || fe.Max != 100 {
		t.Fatalf("Read(oversized) = %#v, want a *FrameError with Size 1000 and Max 100", err)
	}
}

func TestWriteRoundTrip(t *testing.T) {
	bodies := []string{"{}", "", `{"jsonrpc":"2.0","method":"x","params":"h\u00e9"}`, strings.Repeat("z", 70000)}
	var buf bytes.Buffer
	for _, b := range bodies {
		if err := Write(&buf, []byte(b)); err != nil {
			t.Fatal(err)
		}
	}
	if !strings.HasPrefix(buf.String(), "Content-Length: 2\r\n\r\n{}") {
		t.Fatalf("Write({}) wrote %q, want the LSP header", buf.String()[:30])
	}
	got, err := readAll(&buf, 0)
	if err != io.EOF || len(got) != len(bodies) {
		t.Fatalf("read back %d frames (err %v), want %d", len(got), err, len(bodies))
	}
	for i := range bodies {
		if got[i] != bodies[i] {
			t.Errorf("frame %d = %q, want %q", i, clip(got[i], 40), clip(bodies[i], 40))
		}
	}
}
