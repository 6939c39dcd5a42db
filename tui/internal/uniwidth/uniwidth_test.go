package uniwidth

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const dataDir = "/usr/share/unicode"

// openData opens a Unicode data file, skipping the test when the
// unicode-data package is not installed.
func openData(t *testing.T, name string) *os.File {
	t.Helper()
	f, err := os.Open(filepath.Join(dataDir, name))
	if err != nil {
		t.Skipf("Unicode data file %s not available (apt-get install unicode-data): %v", name, err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// eachRange calls f for every "lo..hi ; value" line of a data file.
func eachRange(t *testing.T, name string, f func(lo, hi rune, v string)) {
	t.Helper()
	sc := bufio.NewScanner(openData(t, name))
	for sc.Scan() {
		line, _, _ := strings.Cut(sc.Text(), "#")
		span, v, ok := strings.Cut(line, ";")
		if !ok {
			continue
		}
		a, b, ok := strings.Cut(strings.TrimSpace(span), "..")
		if !ok {
			b = a
		}
		lo, err1 := strconv.ParseUint(a, 16, 32)
		hi, err2 := strconv.ParseUint(b, 16, 32)
		if err1 != nil || err2 != nil {
			t.Fatalf("%s: bad range %q", name, span)
		}
		f(rune(lo), rune(hi), strings.TrimSpace(v))
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
}

// TestRuneAgainstData re-derives the width of every code point from the
// data files and compares it with Rune.
func TestRuneAgainstData(t *testing.T) {
	want := make([]int8, 0x110000)
	for i := range want {
		want[i] = 1
	}
	set := func(lo, hi rune, w int8) {
		for r := lo; r <= hi; r++ {
			want[r] = w
		}
	}
	// Unassigned code points of the CJK blocks default to wide.
	for _, r := range [][2]rune{{0x3400, 0x4DBF}, {0x4E00, 0x9FFF}, {0xF900, 0xFAFF}, {0x20000, 0x2FFFD}, {0x30000, 0x3FFFD}} {
		set(r[0], r[1], 2)
	}
	eachRange(t, "EastAsianWidth.txt", func(lo, hi rune, v string) {
		if v == "W" || v == "F" {
			set(lo, hi, 2)
		} else {
			set(lo, hi, 1)
		}
	})
	eachRange(t, "emoji/emoji-data.txt", func(lo, hi rune, v string) {
		if v == "Emoji_Presentation" {
			set(lo, hi, 2)
		}
	})
	eachRange(t, "extracted/DerivedGeneralCategory.txt", func(lo, hi rune, v string) {
		switch v {
		case "Mn", "Me", "Cf", "Cc", "Zl", "Zp":
			set(lo, hi, 0)
		}
	})
	eachRange(t, "PropList.txt", func(lo, hi rune, v string) {
		if v == "Prepended_Concatenation_Mark" {
			set(lo, hi, 1)
		}
	})
	want[0xAD] = 1
	eachRange(t, "auxiliary/GraphemeBreakProperty.txt", func(lo, hi rune, v string) {
		if v == "V" || v == "T" {
			set(lo, hi, 0)
		}
	})
	bad := 0
	for r := rune(0); r <= 0x10FFFF; r++ {
		if got := Rune(r); got != int(want[r]) {
			if bad++; bad <= 20 {
				t.Errorf("Rune(%U) = %d, want %d", r, got, want[r])
			}
		}
	}
	if bad > 20 {
		t.Errorf("... %d code points differ in all", bad)
	}
}

// TestClusterBreaks runs the official grapheme break test cases.
func TestClusterBreaks(t *testing.T) {
	sc := bufio.NewScanner(openData(t, "auxiliary/GraphemeBreakTest.txt"))
	n := 0
	for sc.Scan() {
		line, _, _ := strings.Cut(sc.Text(), "#")
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		var s strings.Builder
		var want []string
		var cur strings.Builder
		for _, f := range strings.Fields(line) {
			switch f {
			case "÷":
				if cur.Len() > 0 {
					want = append(want, cur.String())
					cur.Reset()
				}
			case "×":
			default:
				v, err := strconv.ParseUint(f, 16, 32)
				if err != nil {
					t.Fatalf("bad test line %q", line)
				}
				s.WriteRune(rune(v))
				cur.WriteRune(rune(v))
			}
		}
		in := s.String()
		var got []string
		for i := 0; i < len(in); {
			size, _ := Cluster(in[i:])
			got = append(got, in[i:i+size])
			i += size
		}
		if strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("clusters of %+q = %+q, want %+q (%s)", in, got, want, line)
		}
		n++
	}
	if n < 500 {
		t.Fatalf("read only %d grapheme break test cases", n)
	}
}

// TestEmojiSequences checks that every fully-qualified emoji of the
// emoji test file is one cluster of width 2.
func TestEmojiSequences(t *testing.T) {
	sc := bufio.NewScanner(openData(t, "emoji/emoji-test.txt"))
	n := 0
	for sc.Scan() {
		line, _, _ := strings.Cut(sc.Text(), "#")
		points, status, ok := strings.Cut(line, ";")
		if !ok || strings.TrimSpace(status) != "fully-qualified" {
			continue
		}
		var b strings.Builder
		for _, f := range strings.Fields(points) {
			v, err := strconv.ParseUint(f, 16, 32)
			if err != nil {
				t.Fatalf("bad emoji line %q", line)
			}
			b.WriteRune(rune(v))
		}
		s := b.String()
		if size, w := Cluster(s); size != len(s) || w != 2 {
			t.Errorf("Cluster(%+q) = %d, %d, want %d, 2", s, size, w, len(s))
		}
		n++
	}
	if n < 3000 {
		t.Fatalf("read only %d emoji", n)
	}
}

func TestCluster(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		size  int
		width int
	}{
		{"empty", "", 0, 0},
		{"ascii", "ab", 1, 1},
		{"crlf", "\r\nx", 2, 0},
		{"control", "\x01a", 1, 0},
		{"combining", "e\u0301x", 3, 1},
		{"wide", "世界", 3, 2},
		{"hangul jamo", "\u1100\u1161\u11a8x", 9, 2},
		{"flag", "🇯🇵🇫🇷", 8, 2},
		{"lone regional indicator", "🇯", 4, 2},
		{"zwj family", "👨\u200d👩\u200d👧!", 18, 2},
		{"skin tone", "👍🏽", 8, 2},
		{"text heart", "\u2764", 3, 1},
		{"heart with vs16", "\u2764\ufe0f", 6, 2},
		{"heart with vs15", "\u2764\ufe0e", 6, 1},
		{"keycap", "1\ufe0f\u20e3", 7, 2},
		{"invalid byte", "\xffa", 1, 1},
		{"invalid then mark", "\xff\u0301", 1, 1},
		{"spacing mark", "\u0915\u093f", 6, 1},
		{"prepend", "\u0600\u0661", 4, 1},
		{"zero width joiner alone", "\u200d", 3, 0},
		{"esc", "\x1b[", 1, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			size, width := Cluster(tc.in)
			if size != tc.size || width != tc.width {
				t.Errorf("Cluster(%+q) = %d, %d, want %d, %d", tc.in, size, width, tc.size, tc.width)
			}
		})
	}
}

func TestRune(t *testing.T) {
	tests := []struct {
		r    rune
		want int
	}{
		{'a', 1}, {0, 0}, {'\t', 0}, {0x7f, 0}, {0x85, 0}, {0xa0, 1}, {0xad, 1},
		{0x300, 0}, {0x200b, 0}, {0x200d, 0}, {0xfe0f, 0}, {0x4e16, 2}, {0xff21, 2},
		{0x1f600, 2}, {0x2764, 1}, {0x1160, 0}, {0xac00, 2}, {0xe000, 1},
		{0x3fffd, 2}, {-1, 1}, {0x110000, 1}, {0x0600, 1},
	}
	for _, tc := range tests {
		if got := Rune(tc.r); got != tc.want {
			t.Errorf("Rune(%U) = %d, want %d", tc.r, got, tc.want)
		}
	}
}

func BenchmarkCluster(b *testing.B) {
	s := "héllo wörld 世界 👍🏽 ok\u0301 🇯🇵 "
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		String(s)
	}
}
