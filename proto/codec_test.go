package proto

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// splitReader returns data in two reads split at index at, or one byte
// per read when at is negative.
type splitReader struct {
	data []byte
	at   int
	off  int
}

func (r *splitReader) Read(p []byte) (int, error) {
	if r.off >= len(r.data) {
		return 0, io.EOF
	}
	end := len(r.data)
	switch {
	case r.at < 0:
		end = r.off + 1
	case r.off < r.at:
		end = r.at
	}
	n := copy(p, r.data[r.off:end])
	r.off += n
	return n, nil
}

// readAll reads frames until io.EOF and fails the test on any other error.
func readAll(t *testing.T, r *Reader) []Frame {
	t.Helper()
	var frames []Frame
	for {
		f, err := r.Read()
		if err == io.EOF {
			return frames
		}
		if err != nil {
			t.Fatalf("Read() error: %v", err)
		}
		frames = append(frames, f)
	}
}

// event is one result of a Read, rendered for comparison: the frame's
// encoding or the error's kind.
func readEvents(r *Reader) []string {
	var out []string
	for {
		f, err := r.Read()
		var (
			tooLong *LineTooLongError
			unknown *UnknownTypeError
			bad     *InvalidFrameError
		)
		switch {
		case err == io.EOF:
			return out
		case errors.As(err, &tooLong):
			out = append(out, fmt.Sprintf("too-long@%d", tooLong.Line))
		case errors.As(err, &unknown):
			out = append(out, fmt.Sprintf("unknown %q@%d", unknown.Type, unknown.Line))
		case errors.As(err, &bad):
			out = append(out, fmt.Sprintf("invalid type=%q id=%q@%d", bad.Type, bad.ID, bad.Line))
		case err != nil:
			return append(out, "error "+err.Error())
		default:
			b, _ := Marshal(f)
			out = append(out, string(b))
		}
	}
}

func TestReader(t *testing.T) {
	long := strings.Repeat("x", 100)
	tests := []struct {
		name  string
		in    string
		limit int
		want  []string
	}{
		{"blank lines skipped", "\n  \n{\"type\":\"ready\"}\n\n", 0, []string{`{"type":"ready"}`}},
		{"crlf", "{\"type\":\"ready\"}\r\n{\"type\":\"shutdown\"}\r\n", 0, []string{`{"type":"ready"}`, `{"type":"shutdown"}`}},
		{"last line without newline", `{"type":"notify","message":"bye"}`, 0, []string{`{"type":"notify","message":"bye"}`}},
		{"unknown members ignored", `{"type":"notify","message":"m","extra":{"a":[1,"}"]},"more":null}` + "\n", 0,
			[]string{`{"type":"notify","message":"m"}`}},
		{"type not first", `{"message":"m","level":"warn","type":"notify"}` + "\n", 0, []string{`{"type":"notify","level":"warn","message":"m"}`}},
		{"escaped type", `{"type":"re\u0061dy"}` + "\n", 0, []string{`{"type":"ready"}`}},
		{"key in another case", `{"Type":"ready"}` + "\n", 0, []string{`{"type":"ready"}`}},
		{"invalid json mid-stream", "{\"type\":\"ready\"}\n{not json\n{\"type\":\"shutdown\"}\n", 0,
			[]string{`{"type":"ready"}`, `invalid type="" id=""@2`, `{"type":"shutdown"}`}},
		{"truncated object", "{\"type\":\"tool_result\",\"id\":\"4\",\"content\":[\n{\"type\":\"ready\"}\n", 0,
			[]string{`invalid type="tool_result" id="4"@1`, `{"type":"ready"}`}},
		{"wrong member type keeps id", `{"type":"tool_result","id":"5","content":"text"}` + "\n", 0,
			[]string{`invalid type="tool_result" id="5"@1`}},
		{"unknown type", "{\"type\":\"teleport\",\"to\":\"mars\"}\n{\"type\":\"ready\"}\n", 0,
			[]string{`unknown "teleport"@1`, `{"type":"ready"}`}},
		{"unknown type invalid json", "{\"type\":\"teleport\",\n", 0, []string{`invalid type="teleport" id=""@1`}},
		{"missing type", `{"name":"x"}` + "\n", 0, []string{`invalid type="" id=""@1`}},
		{"type not a string", `{"type":5}` + "\n", 0, []string{`invalid type="" id=""@1`}},
		{"not an object", "[1,2]\n\"hello\"\n", 0, []string{`invalid type="" id=""@1`, `invalid type="" id=""@2`}},
		{"line at limit", `{"type":"notify","message":"` + long + `"}` + "\n", len(`{"type":"notify","message":"` + long + `"}`),
			[]string{`{"type":"notify","message":"` + long + `"}`}},
		{"line over limit then valid", `{"type":"notify","message":"` + long + `"}` + "\n{\"type\":\"ready\"}\n", 64,
			[]string{`too-long@1`, `{"type":"ready"}`}},
		{"line over limit at eof", `{"type":"notify","message":"` + long + `"}`, 64, []string{`too-long@1`}},
		{"two long lines", long + "\n" + long + "\n{\"type\":\"ready\"}\n", 50, []string{`too-long@1`, `too-long@2`, `{"type":"ready"}`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			data := []byte(tc.in)
			for split := -1; split <= len(data); split++ {
				got := readEvents(NewReader(&splitReader{data: data, at: split}, tc.limit))
				if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
					t.Fatalf("Read(%q) split at %d = %q, want %q", tc.in, split, got, tc.want)
				}
			}
			got := readEvents(NewReader(iotest.HalfReader(bytes.NewReader(data)), tc.limit))
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Fatalf("Read(%q) half reads = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestReaderErrors(t *testing.T) {
	errBoom := errors.New("boom")
	r := NewReader(io.MultiReader(strings.NewReader("{\"type\":\"ready\"}\n{\"type\""), iotest.ErrReader(errBoom)), 0)
	if f, err := r.Read(); err != nil || f.Type() != "ready" {
		t.Fatalf("Read() = %v, %v, want ready", f, err)
	}
	// The partial line before the error is returned as a last line, then
	// the error sticks.
	if _, err := r.Read(); err == nil {
		t.Fatalf("Read() of partial line = nil error, want an invalid frame")
	}
	for i := 0; i < 2; i++ {
		if _, err := r.Read(); !errors.Is(err, errBoom) {
			t.Fatalf("Read() = %v, want %v", err, errBoom)
		}
	}
}

// TestReaderOversizeBounded feeds a 20 MiB line to a Reader with the
// default 16 MiB limit (C12) and checks that it is rejected, that the
// next frame is read, and that the Reader never buffered the whole line.
func TestReaderOversizeBounded(t *testing.T) {
	const size = 20 << 20
	src := io.MultiReader(
		strings.NewReader(`{"type":"notify","message":"`),
		io.LimitReader(repeatReader('a'), size),
		strings.NewReader("\"}\n{\"type\":\"ready\"}\n"),
	)
	r := NewReader(src, 0)
	_, err := r.Read()
	var tooLong *LineTooLongError
	if !errors.As(err, &tooLong) || tooLong.Limit != MaxLine {
		t.Fatalf("Read() of a 20 MiB line = %v, want *LineTooLongError with limit %d", err, MaxLine)
	}
	if len(r.buf) > initialBuffer {
		t.Errorf("after an oversize line the buffer is %d bytes, want at most %d", len(r.buf), initialBuffer)
	}
	f, err := r.Read()
	if err != nil || f.Type() != "ready" {
		t.Fatalf("Read() after oversize line = %v, %v, want ready", f, err)
	}
	if _, err := r.Read(); err != io.EOF {
		t.Fatalf("Read() at end = %v, want io.EOF", err)
	}
}

// TestReaderShrinks checks that a buffer grown for a long (accepted) line
// is given back.
func TestReaderShrinks(t *testing.T) {
	long := `{"type":"notify","message":"` + strings.Repeat("y", 1<<20) + `"}` + "\n"
	r := NewReader(strings.NewReader(long+"{\"type\":\"ready\"}\n"), 0)
	if f, err := r.Read(); err != nil || len(f.(*Notify).Message) != 1<<20 {
		t.Fatalf("Read() of a 1 MiB line = %v", err)
	}
	if f, err := r.Read(); err != nil || f.Type() != "ready" {
		t.Fatalf("Read() = %v, %v, want ready", f, err)
	}
	if len(r.buf) > initialBuffer {
		t.Errorf("buffer is %d bytes after short lines, want at most %d", len(r.buf), initialBuffer)
	}
}

type repeatReader byte

func (c repeatReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(c)
	}
	return len(p), nil
}

func TestWriter(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&writeCounter{w: &buf})
	frames := []Frame{Hello{ProtocolVersion: 2, Name: "a"}, &Ready{}, Notify{Message: "multi\nline"}}
	for _, f := range frames {
		if err := w.Write(f); err != nil {
			t.Fatalf("Write(%#v) error: %v", f, err)
		}
	}
	want := `{"type":"hello","protocol_version":2,"name":"a"}` + "\n" + `{"type":"ready"}` + "\n" + `{"type":"notify","message":"multi\nline"}` + "\n"
	if buf.String() != want {
		t.Errorf("Write output = %q, want %q", buf.String(), want)
	}
	if c := w.w.(*writeCounter).calls; c != len(frames) {
		t.Errorf("Write made %d calls for %d frames, want one each", c, len(frames))
	}
	bad := ToolCall{ID: "1", Name: "x", Args: json.RawMessage(`{broken`)}
	if err := w.Write(bad); err == nil {
		t.Errorf("Write(%#v) = nil, want an encode error", bad)
	}
	if err := w.Write(nil); err == nil {
		t.Errorf("Write(nil) = nil, want an error")
	}
}

type writeCounter struct {
	w     io.Writer
	calls int
}

func (c *writeCounter) Write(p []byte) (int, error) {
	c.calls++
	return c.w.Write(p)
}

// TestReaderCustomCatalog checks that Reader.New replaces the catalog.
func TestReaderCustomCatalog(t *testing.T) {
	r := NewReader(strings.NewReader("{\"type\":\"ping\"}\n{\"type\":\"ready\"}\n"), 0)
	r.New = func(typ string) Frame {
		if typ == "ping" {
			return new(Shutdown)
		}
		return nil
	}
	if f, err := r.Read(); err != nil || f.Type() != "shutdown" {
		t.Fatalf("Read() = %v, %v, want the custom frame", f, err)
	}
	var unknown *UnknownTypeError
	if _, err := r.Read(); !errors.As(err, &unknown) {
		t.Fatalf("Read() = %v, want *UnknownTypeError for a type outside the custom catalog", err)
	}
}

func FuzzReader(f *testing.F) {
	for _, frames := range allFrameCases() {
		for _, fr := range frames {
			b, _ := Marshal(fr)
			f.Add(b)
		}
	}
	f.Add([]byte("{\"type\":\"ready\"}\n{bad\n\n{\"type\":\"x\"}"))
	f.Add([]byte(`{"type":"tool_result","id":"1","content":[{"type":"text","text":"\"}\\"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r := NewReader(bytes.NewReader(data), 256)
		for i := 0; ; i++ {
			if i > len(data)+1 {
				t.Fatalf("Reader returned more results than lines in %q", data)
			}
			fr, err := r.Read()
			if err == io.EOF {
				return
			}
			if err != nil {
				var (
					tooLong *LineTooLongError
					unknown *UnknownTypeError
					bad     *InvalidFrameError
				)
				if !errors.As(err, &tooLong) && !errors.As(err, &unknown) && !errors.As(err, &bad) {
					t.Fatalf("Read() error %T %v is not one of the codec's errors", err, err)
				}
				continue
			}
			enc1, err := Marshal(fr)
			if err != nil {
				t.Fatalf("Marshal(%#v) of a decoded frame: %v", fr, err)
			}
			fr2, err := Unmarshal(enc1)
			if err != nil {
				t.Fatalf("Unmarshal(%q) of an encoded frame: %v", enc1, err)
			}
			enc2, err := Marshal(fr2)
			if err != nil || !bytes.Equal(enc1, enc2) {
				t.Fatalf("re-encoding %q gave %q, %v", enc1, enc2, err)
			}
		}
	})
}

var benchLines = []string{
	`{"type":"tool_result","id":"42","content":[{"type":"text","text":"Berlin: 16°C, fog"}]}`,
	`{"type":"notify","level":"info","message":"refreshed cache (12 entries)"}`,
	`{"type":"status","key":"progress","level":"success","text":"2/4 tasks checked"}`,
	`{"type":"event_intercept_response","id":"43"}`,
}

// BenchmarkReader measures decoding of small frames through a Reader; the
// frames/s figure is the throughput target (>= 200k/s).
func BenchmarkReader(b *testing.B) {
	var stream bytes.Buffer
	for stream.Len() < 1<<20 {
		for _, l := range benchLines {
			stream.WriteString(l)
			stream.WriteByte('\n')
		}
	}
	data := stream.Bytes()
	src := bytes.NewReader(data)
	r := NewReader(src, 0)
	b.ReportAllocs()
	b.SetBytes(int64(len(data)) / int64(bytes.Count(data, []byte{'\n'})))
	n := 0
	for b.Loop() {
		if _, err := r.Read(); err != nil {
			if err != io.EOF {
				b.Fatal(err)
			}
			src.Reset(data)
			r = NewReader(src, 0)
			if _, err := r.Read(); err != nil {
				b.Fatal(err)
			}
		}
		n++
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "frames/s")
}

// BenchmarkWriter measures encoding of a small tool call.
func BenchmarkWriter(b *testing.B) {
	w := NewWriter(io.Discard)
	f := &ToolCall{ID: "42", Name: "weather", Args: json.RawMessage(`{"city":"Berlin"}`)}
	b.ReportAllocs()
	for b.Loop() {
		if err := w.Write(f); err != nil {
			b.Fatal(err)
		}
	}
}
