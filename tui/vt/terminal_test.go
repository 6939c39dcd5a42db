package vt

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

func TestTerminal(t *testing.T) {
	tests := []struct {
		name       string
		w, h       int
		in         string
		lines      string // screen rows joined by "|"
		scrollback string
		row, col   int
	}{
		{"text", 10, 3, "hello", "hello||", "", 0, 5},
		{"cr lf", 10, 3, "ab\r\ncd", "ab|cd|", "", 1, 2},
		{"lf keeps column", 10, 3, "ab\ncd", "ab|  cd|", "", 1, 4},
		{"scroll into scrollback", 5, 2, "1\r\n2\r\n3\r\n4", "3|4", "1|2", 1, 1},
		{"autowrap", 4, 3, "abcdef", "abcd|ef|", "", 1, 2},
		{"pending wrap then cr", 4, 3, "abcd\rX", "Xbcd||", "", 0, 1},
		{"pending wrap then lf", 4, 3, "abcd\r\nX", "abcd|X|", "", 1, 1},
		{"pending wrap cleared by cursor move", 4, 3, "abcd\x1b[2DX", "aXcd||", "", 0, 2},
		{"pending wrap kept over sgr", 4, 3, "abcd\x1b[1mX", "abcd|X|", "", 1, 1},
		{"el at pending wrap erases last cell", 4, 3, "abcd\x1b[K", "abc||", "", 0, 3},
		{"wide", 6, 2, "世界", "世界|", "", 0, 4},
		{"wide wraps at last column", 5, 2, "abcd世", "abcd|世", "", 1, 2},
		{"overwrite half of wide", 6, 2, "世界\x1b[1GX", "X 界|", "", 0, 1},
		{"combining joins", 5, 1, "e\u0301x", "e\u0301x", "", 0, 2},
		{"emoji zwj one cell pair", 6, 1, "👨\u200d👩\u200d👧x", "👨\u200d👩\u200d👧x", "", 0, 3},
		{"vs16 widens", 6, 1, "\u2764\ufe0fx", "\u2764\ufe0fx", "", 0, 3},
		{"cup", 5, 3, "\x1b[2;3HX", "|  X|", "", 1, 3},
		{"cup clamps", 5, 3, "\x1b[9;9HX", "||    X", "", 2, 4},
		{"cuu cud cuf cub", 6, 4, "\x1b[3;3H\x1b[AA\x1b[2BB\x1b[3CC\x1b[5DD", "|  A||D  B C", "", 3, 1},
		{"cha", 6, 1, "abcdef\x1b[3GX", "abXdef", "", 0, 3},
		{"el modes", 6, 3, "abcdef\x1b[3G\x1b[K\r\nabcdef\x1b[3G\x1b[1K\r\nabcdef\x1b[2K", "ab|   def|", "", 2, 5},
		{"ed below", 4, 3, "aaaa\r\nbbbb\r\ncccc\x1b[2;2H\x1b[J", "aaaa|b|", "", 1, 1},
		{"ed all", 4, 2, "ab\r\ncd\x1b[2J", "|", "", 1, 2},
		{"tab", 12, 1, "a\tb", "a       b", "", 0, 9},
		{"backspace", 5, 1, "ab\bX", "aX", "", 0, 2},
		{"split sequence", 5, 1, "\x1b", "", "", 0, 0},
		{"save restore", 6, 2, "ab\x1b7\r\ncd\x1b8X", "abX|cd", "", 0, 3},
		{"insert lines", 4, 4, "a\r\nb\r\nc\r\nd\x1b[2;3H\x1b[2L", "a|||b", "", 1, 0},
		{"delete lines", 4, 4, "a\r\nb\r\nc\r\nd\x1b[2;3H\x1b[2M", "a|d||", "", 1, 0},
		{"reverse index at top", 4, 2, "ab\x1bMcd", "  cd|ab", "", 0, 4 - 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			term := New(tc.w, tc.h)
			term.WriteString(tc.in)
			got := strings.Join(term.Lines(), "|")
			if got != tc.lines {
				t.Errorf("screen after %q = %q, want %q", tc.in, got, tc.lines)
			}
			if sb := strings.Join(term.Scrollback(), "|"); sb != tc.scrollback {
				t.Errorf("scrollback after %q = %q, want %q", tc.in, sb, tc.scrollback)
			}
			if r, c := term.Cursor(); r != tc.row || c != tc.col {
				t.Errorf("cursor after %q = %d,%d, want %d,%d", tc.in, r, c, tc.row, tc.col)
			}
		})
	}
}

// TestSplitWrites feeds sequences one byte per write.
func TestSplitWrites(t *testing.T) {
	in := "\x1b[1;31m世\x1b]8;;http://x\x1b\\e\u0301\x1b]8;;\x07\x1b[0m\x1b[2;1H👍🏽"
	whole := New(8, 2)
	whole.WriteString(in)
	split := New(8, 2)
	for i := 0; i < len(in); i++ {
		split.Write([]byte{in[i]})
	}
	if a, b := whole.Dump(true, true), split.Dump(true, true); a != b {
		t.Errorf("byte-by-byte writes give\n%s\nwant\n%s", b, a)
	}
	if len(whole.Unknown) != 0 {
		t.Errorf("Unknown = %q, want none", whole.Unknown)
	}
}

func TestModes(t *testing.T) {
	term := New(5, 2)
	var replies []string
	term.Respond = func(s string) { replies = append(replies, s) }
	term.WriteString("\x1b[?25l\x1b[?2026h\x1b[?2004h\x1b[>1u\x1b[>4;2m\x1b]0;title\x07")
	if term.CursorVisible || !term.Modes[2026] || !term.Modes[2004] {
		t.Errorf("modes after set = cursor %v, %v, want hidden, 2026 and 2004 set", term.CursorVisible, term.Modes)
	}
	term.WriteString("\x1b[?2026$p\x1b[?u\x1b[c\x1b]11;?\x1b\\\x1b[6n")
	want := []string{"\x1b[?2026;1$y", "\x1b[?1u", "\x1b[?62;22c", "\x1b]11;rgb:0000/0000/0000\x1b\\", "\x1b[1;1R"}
	if strings.Join(replies, " ") != strings.Join(want, " ") {
		t.Errorf("replies = %q, want %q", replies, want)
	}
	term.WriteString("\x1b[?2026l\x1b[<u\x1b[>4m\x1b[?25h")
	if !term.CursorVisible || term.SyncFrames != 1 || len(term.KittyFlags) != 0 || term.ModifyOtherKeys != 0 || term.Title != "title" {
		t.Errorf("after reset: cursor %v, frames %d, kitty %v, mok %d, title %q", term.CursorVisible, term.SyncFrames, term.KittyFlags, term.ModifyOtherKeys, term.Title)
	}
	if len(term.Unknown) != 0 {
		t.Errorf("Unknown = %q, want none", term.Unknown)
	}
}

func TestStyles(t *testing.T) {
	term := New(20, 3)
	term.WriteString("\x1b[1;31mred\x1b[0m \x1b[38;5;200;48;2;1;2;3mx\x1b[m \x1b[4:3;38:2::10:20:30my\x1b[0m")
	term.WriteString("\r\n\x1b]8;;https://go.dev\x1b\\go\x1b]8;;\x1b\\ \x1b[7;92mrev\x1b[27mok\x1b[m")
	golden(t, "styles.txt", term.Dump(false, true))
}

func TestResize(t *testing.T) {
	for _, reflow := range []bool{false, true} {
		name := "cut"
		if reflow {
			name = "reflow"
		}
		t.Run(name, func(t *testing.T) {
			term := New(10, 4)
			term.Reflow = reflow
			term.WriteString("line one\r\nabcdefghijKL\r\n世界世界世界\r\n> ")
			var b strings.Builder
			b.WriteString(term.Dump(true, false))
			for _, sz := range [][2]int{{6, 4}, {6, 2}, {12, 5}, {4, 3}, {10, 4}} {
				term.Resize(sz[0], sz[1])
				fmt.Fprintf(&b, "\nresize %dx%d\n", sz[0], sz[1])
				b.WriteString(term.Dump(true, false))
			}
			golden(t, "resize_"+name+".txt", b.String())
		})
	}
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden file: %v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs:\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

// TestContent shows the same rows whether the screen scrolled or not.
func TestContent(t *testing.T) {
	a, b := New(10, 4), New(10, 4)
	a.WriteString("one\r\ntwo\r\nthree")
	b.WriteString("one\r\ntwo\r\nthree\r\n\r\n\r\n\x1b[3A\x1b[6G")
	if a.Content(0) != b.Content(0) {
		t.Errorf("Content differs:\n%s\n%s", a.Content(0), b.Content(0))
	}
	want := "     +----------+\n   0 |two       |\n   1 |three     |\n     +----------+\ncursor 1,5 visible\n"
	if got := a.Content(2); got != want {
		t.Errorf("Content(2) = %q, want %q", got, want)
	}
}
