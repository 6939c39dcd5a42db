package tools

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// FuzzEdit applies one replacement of a piece of arbitrary file text: when
// the piece is unique the result must be the LF view of the file with the
// piece replaced, and text outside it must keep its bytes.
func FuzzEdit(f *testing.F) {
	f.Add([]byte("a\r\nb\r\nc\r\n"), 2, 3, "X\nY")
	f.Add([]byte("\uFEFFhello\nworld"), 0, 5, "hi")
	f.Add([]byte("x\r\ny\nz"), 1, 4, "")
	f.Add([]byte("a\rb\r\n"), 0, 2, "q")
	f.Fuzz(func(t *testing.T, data []byte, start, n int, repl string) {
		d := newDocument(data)
		if start < 0 || n <= 0 || start+n > len(d.norm) {
			return
		}
		old := d.norm[start : start+n]
		reps := []replacement{{old: old, new: toLF(repl)}}
		msg := d.match(reps)
		unique := strings.Count(d.norm, old) == 1 && !overlapsSelf(d.norm, old)
		if old == toLF(repl) {
			if msg == "" {
				t.Fatalf("match(%q -> %q) accepted a no-op", old, repl)
			}
			return
		}
		if (msg == "") != unique {
			t.Fatalf("match(%q in %q) = %q, unique %v", old, d.norm, msg, unique)
		}
		if msg != "" {
			return
		}
		out, newNorm, _ := d.apply(reps)
		want := d.norm[:reps[0].start] + toLF(repl) + d.norm[reps[0].start+len(old):]
		if newNorm != want {
			t.Fatalf("apply: new text %q, want %q", newNorm, want)
		}
		// A file's byte order mark stays, and none is added (the edit may
		// still leave text that starts with U+FEFF, when the file held
		// one further in). The bytes before and after the piece are kept
		// as they were (CRs of the file's CRLFs and lone CRs alike), and
		// the piece's place holds the replacement with the file's line end.
		got := out
		if d.bom {
			if !bytes.HasPrefix(out, []byte("\uFEFF")) {
				t.Fatalf("apply lost the byte order mark: %q", out)
			}
			got = out[len("\uFEFF"):]
		}
		text := toLF(repl)
		if d.crlf {
			text = strings.ReplaceAll(text, "\n", "\r\n")
		}
		prefix := d.orig[:d.origOffset(reps[0].start)]
		suffix := d.orig[d.origOffset(reps[0].start+len(old)):]
		if string(got) != prefix+text+suffix {
			t.Fatalf("apply wrote %q, want %q + %q + %q (the bytes around the edit kept, no mark added)", out, prefix, text, suffix)
		}
	})
}

// overlapsSelf reports whether old occurs at two overlapping positions.
func overlapsSelf(s, old string) bool {
	i := strings.Index(s, old)
	return i >= 0 && strings.Contains(s[i+1:], old)
}

// FuzzIgnore parses arbitrary ignore files and matches paths with them.
// Nothing may panic, and a rule followed by its own negation must
// re-include every path the rule ignores.
func FuzzIgnore(f *testing.F) {
	f.Add([]byte("*.o\n!keep.o\nbuild/\n/top\n[a-\n**/x/**\n\\#h\n"), "a/b.o")
	f.Add([]byte("[]]\n[!]x]\n\\\n"), "]x")
	f.Add([]byte("a/**/b"), "a/x/b")
	f.Fuzz(func(t *testing.T, data []byte, path string) {
		file := parseIgnore("/r", data)
		file.match(path, true)
		file.match(path, false)
		line, _, _ := strings.Cut(string(data), "\n")
		if line == "" || line[0] == '!' || line[0] == '#' || strings.Contains(line, "\r") {
			return
		}
		for _, dir := range []bool{false, true} {
			m, ign := parseIgnore("/r", []byte(line)).match(path, dir)
			if !m {
				continue
			}
			m2, ign2 := parseIgnore("/r", []byte(line+"\n!"+line)).match(path, dir)
			if !ign || !m2 || ign2 {
				t.Fatalf("rule %q ignores %q (dir %v) = %v, but with its negation after it: matched %v, ignored %v", line, path, dir, ign, m2, ign2)
			}
		}
	})
}

// TestCaptureSplit feeds output to capture split at every byte boundary:
// the rendering must not depend on how reads were cut.
func TestCaptureSplit(t *testing.T) {
	inputs := []string{
		"one\ntwo\nthree\nfour\nfive\nsix\nseven\n",
		"a long first line that is over the byte cap\nb\nc",
		"x\ny\nz",
		strings.Repeat("é", 40),
	}
	for _, in := range inputs {
		render := func(chunks ...string) string {
			c := newCapture(4, 24, t.TempDir(), "fuzz")
			for _, ch := range chunks {
				c.Write([]byte(ch))
			}
			text, saved := c.finish()
			if saved != "" {
				if got := readFile(t, saved); got != in {
					t.Fatalf("saved output %q, want %q", got, in)
				}
				text = strings.Replace(text, saved, "FILE", 1)
			}
			return text
		}
		whole := render(in)
		for i := 1; i < len(in); i++ {
			if got := render(in[:i], in[i:]); got != whole {
				t.Errorf("capture(%q split at %d) = %q, want %q", in, i, got, whole)
			}
		}
		bytewise := make([]string, len(in))
		for i := 0; i < len(in); i++ {
			bytewise[i] = in[i : i+1]
		}
		if got := render(bytewise...); got != whole {
			t.Errorf("capture(%q byte by byte) = %q, want %q", in, got, whole)
		}
	}
}

// TestReadLine reads rg's output one byte per read and in bulk.
func TestReadLine(t *testing.T) {
	in := "{\"type\":\"begin\"}\n" + strings.Repeat("x", 300) + "\nlast"
	for _, oneByte := range []bool{false, true} {
		var r io.Reader = strings.NewReader(in)
		if oneByte {
			r = iotest.OneByteReader(r)
		}
		br := bufio.NewReaderSize(r, 16)
		var got []string
		for {
			line, err := readLine(br, 1000)
			if len(line) > 0 {
				got = append(got, string(line))
			}
			if err != nil {
				break
			}
		}
		want := strings.Split(in, "\n")
		if strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("readLine (one byte %v) = %q, want %q", oneByte, got, want)
		}
	}
	// A line over the limit is read through and dropped; the next one
	// reads as usual.
	br := bufio.NewReaderSize(strings.NewReader(strings.Repeat("y", 100)+"\nnext\n"), 16)
	if line, err := readLine(br, 50); !errors.Is(err, errLineTooLong) || line != nil {
		t.Errorf("readLine over the limit = %q, %v; want nil, errLineTooLong", line, err)
	}
	if line, err := readLine(br, 50); string(line) != "next" || err != nil {
		t.Errorf("readLine after a long line = %q, %v; want next", line, err)
	}
}
