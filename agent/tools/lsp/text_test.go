package lsp

import (
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"
)

func TestToPosition(t *testing.T) {
	text := newText("a😀b\n\té𝄞x\r\nlast")
	tests := []struct {
		line, col int
		enc       encoding
		want      position
		wantErr   string
	}{
		{1, 1, encUTF16, position{0, 0}, ""},
		{1, 2, encUTF16, position{0, 1}, ""},
		{1, 3, encUTF16, position{0, 3}, ""}, // after the emoji: 2 units
		{1, 4, encUTF16, position{0, 4}, ""}, // end of line
		{1, 3, encUTF8, position{0, 5}, ""},
		{1, 3, encUTF32, position{0, 2}, ""},
		{2, 4, encUTF16, position{1, 4}, ""}, // tab, é, 𝄞 (2 units)
		{2, 5, encUTF16, position{1, 5}, ""},
		{3, 5, encUTF16, position{2, 4}, ""},
		{1, 5, encUTF16, position{}, "column 5 is past the end of line 1 (3 characters)"},
		{4, 1, encUTF16, position{}, "line 4 is past the end of the file (3 lines)"},
		{0, 1, encUTF16, position{}, "line 0 is past the end of the file (3 lines)"},
	}
	for _, tc := range tests {
		got, err := text.toPosition(tc.line, tc.col, tc.enc)
		if tc.wantErr != "" {
			if err == nil || err.Error() != tc.wantErr {
				t.Errorf("toPosition(%d, %d, %v) error = %v, want %q", tc.line, tc.col, tc.enc, err, tc.wantErr)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("toPosition(%d, %d, %v) = %v, %v, want %v", tc.line, tc.col, tc.enc, got, err, tc.want)
		}
	}
}

func TestOffsetAndPoint(t *testing.T) {
	s := "a😀b\r\nx\ry\n"
	text := newText(s)
	tests := []struct {
		p         position
		enc       encoding
		off       int
		line, col int
	}{
		{position{0, 0}, encUTF16, 0, 1, 1},
		{position{0, 1}, encUTF16, 1, 1, 2},
		{position{0, 2}, encUTF16, 1, 1, 2}, // inside the surrogate pair: its start
		{position{0, 3}, encUTF16, 5, 1, 3},
		{position{0, 99}, encUTF16, 6, 1, 4}, // past the line: its end, before CRLF
		{position{1, 0}, encUTF16, 8, 2, 1},
		{position{2, 1}, encUTF16, 11, 3, 2}, // lone CR ends a line
		{position{3, 0}, encUTF16, 12, 4, 1},
		{position{9, 0}, encUTF16, 12, 4, 1},
		{position{0, 5}, encUTF8, 5, 1, 3},
	}
	for _, tc := range tests {
		off := text.offset(tc.p, tc.enc)
		if off != tc.off {
			t.Errorf("offset(%v, %v) = %d, want %d", tc.p, tc.enc, off, tc.off)
		}
		if l, c := text.point(off); l != tc.line || c != tc.col {
			t.Errorf("point(%d) = %d:%d, want %d:%d", off, l, c, tc.line, tc.col)
		}
	}
}

func TestLineCount(t *testing.T) {
	tests := []struct {
		s    string
		want int
	}{{"", 1}, {"a", 1}, {"a\n", 1}, {"a\nb", 2}, {"a\r\nb\r\n", 2}, {"a\rb", 2}, {"\n\n", 2}}
	for _, tc := range tests {
		if got := newText(tc.s).lineCount(); got != tc.want {
			t.Errorf("lineCount(%q) = %d, want %d", tc.s, got, tc.want)
		}
	}
}

func TestChange(t *testing.T) {
	tests := []struct{ old, new string }{
		{"abc", "abc"}, {"abc", "abXc"}, {"", "x"}, {"x", ""}, {"a\r\nb", "a\nb"}, {"a\nb", "a\r\nb"},
		{"😀", "😁"}, {"é", "è"}, {"aaa", "aa"}, {"a\r\n", "a\r\r\n"}, {"x😀y", "x😀😀y"},
	}
	for _, tc := range tests {
		checkChange(t, tc.old, tc.new)
	}
}

// checkChange verifies change(old, new) against the invariants the
// incremental sync relies on.
func checkChange(t *testing.T, old, new string) {
	t.Helper()
	start, oldEnd, newEnd := change(old, new)
	if start > oldEnd || start > newEnd || oldEnd > len(old) || newEnd > len(new) {
		t.Fatalf("change(%q, %q) = %d, %d, %d: out of range", old, new, start, oldEnd, newEnd)
	}
	if got := old[:start] + new[start:newEnd] + old[oldEnd:]; got != new {
		t.Fatalf("change(%q, %q) = %d, %d, %d rebuilds %q", old, new, start, oldEnd, newEnd, got)
	}
	for _, cut := range []struct {
		s string
		i int
	}{{old, start}, {old, oldEnd}, {new, start}, {new, newEnd}} {
		if cut.i > 0 && cut.i < len(cut.s) && (!utf8.RuneStart(cut.s[cut.i]) || cut.s[cut.i-1] == '\r' && cut.s[cut.i] == '\n') {
			t.Fatalf("change(%q, %q) = %d, %d, %d cuts %q at %d", old, new, start, oldEnd, newEnd, cut.s, cut.i)
		}
	}
	// The range, as positions in old, lands on the same offsets.
	ot := newText(old)
	for _, enc := range []encoding{encUTF16, encUTF8, encUTF32} {
		if a := ot.offset(ot.positionAt(start, enc), enc); a != start {
			t.Fatalf("start %d of change(%q, %q) round-trips to %d in %v", start, old, new, a, enc)
		}
		if b := ot.offset(ot.positionAt(oldEnd, enc), enc); b != oldEnd {
			t.Fatalf("end %d of change(%q, %q) round-trips to %d in %v", oldEnd, old, new, b, enc)
		}
	}
}

func FuzzChange(f *testing.F) {
	f.Add("héllo 😀\r\nworld", "héllo 😁\nworld!")
	f.Add("a\rb", "a\r\nb")
	f.Fuzz(func(t *testing.T, old, new string) {
		if !utf8.ValidString(old) || !utf8.ValidString(new) || hasLoneCR(old) || hasLoneCR(new) {
			return
		}
		checkChange(t, old, new)
	})
}

// FuzzPositions checks that a character column converts to UTF-16 and
// back, against the standard library's UTF-16 encoder.
func FuzzPositions(f *testing.F) {
	f.Add("a😀b\nxé𝄞", 2, 2)
	f.Fuzz(func(t *testing.T, s string, line, col int) {
		if !utf8.ValidString(s) || strings.ContainsRune(s, '\r') {
			return
		}
		text := newText(s)
		p, err := text.toPosition(line, col, encUTF16)
		if err != nil {
			return
		}
		l := strings.Split(s, "\n")[line-1]
		prefix := string([]rune(l)[:col-1])
		if want := len(utf16.Encode([]rune(prefix))); p.Character != want {
			t.Fatalf("toPosition(%q, %d, %d) = %v, want character %d", s, line, col, p, want)
		}
		if gl, gc := text.point(text.offset(p, encUTF16)); gl != line || gc != col {
			t.Fatalf("round trip of %d:%d in %q = %d:%d", line, col, s, gl, gc)
		}
	})
}

func TestWords(t *testing.T) {
	tests := []struct {
		line, word string
		want       int
	}{
		{"x := foo(foobar)", "foobar", 9},
		{"foobar foo", "foo", 7},
		{"foobar", "foo", 0},
		{"nothing", "foo", -1},
		{"ünïcode ünï", "ünï", 10},
	}
	for _, tc := range tests {
		if got := findWord(tc.line, tc.word); got != tc.want {
			t.Errorf("findWord(%q, %q) = %d, want %d", tc.line, tc.word, got, tc.want)
		}
	}
	if got := wordAt("a.Greet(x)", 4); got != "Greet" {
		t.Errorf("wordAt = %q, want Greet", got)
	}
}

func TestURI(t *testing.T) {
	tests := []struct{ path, uri string }{
		{"/a/b.go", "file:///a/b.go"},
		{"/a b/c#d.go", "file:///a%20b/c%23d.go"},
		{"/é/x.go", "file:///%C3%A9/x.go"},
	}
	for _, tc := range tests {
		if got := fileURI(tc.path); got != tc.uri {
			t.Errorf("fileURI(%q) = %q, want %q", tc.path, got, tc.uri)
		}
		if got, err := uriPath(tc.uri); err != nil || got != tc.path {
			t.Errorf("uriPath(%q) = %q, %v, want %q", tc.uri, got, err, tc.path)
		}
	}
	for _, bad := range []string{"http://x/y", "file://host/x", "%zz", "file:"} {
		if _, err := uriPath(bad); err == nil {
			t.Errorf("uriPath(%q) succeeded, want an error", bad)
		}
	}
}

func TestHasLoneCR(t *testing.T) {
	tests := []struct {
		s    string
		want bool
	}{{"", false}, {"a\r\nb", false}, {"a\rb", true}, {"a\r", true}, {"\r\n\r\n\r", true}, {"\n", false}}
	for _, tc := range tests {
		if got := hasLoneCR(tc.s); got != tc.want {
			t.Errorf("hasLoneCR(%q) = %v, want %v", tc.s, got, tc.want)
		}
	}
}
