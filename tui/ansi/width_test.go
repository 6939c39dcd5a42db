package ansi

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestStringWidth(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want int
	}{
		{"empty", "", 0},
		{"ascii", "hello", 5},
		{"cjk", "世界", 4},
		{"mixed", "a世b", 4},
		{"combining", "e\u0301e\u0301", 2},
		{"ascii before combining", "abe\u0301", 3},
		{"emoji", "😀", 2},
		{"zwj family", "👨\u200d👩\u200d👧", 2},
		{"flag", "🇯🇵", 2},
		{"skin tone", "👍🏽", 2},
		{"vs16", "\u2764\ufe0f", 2},
		{"text heart", "\u2764", 1},
		{"sgr", "\x1b[1;31mred\x1b[0m", 3},
		{"osc8", "\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\", 4},
		{"osc bel", "\x1b]0;title\x07ab", 2},
		{"controls", "a\tb\x01", 2},
		{"fullwidth", "ＡＢ", 4},
		{"hangul jamo", "\u1100\u1161\u11a8", 2},
		{"invalid", "a\xffb", 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := StringWidth(tc.in); got != tc.want {
				t.Errorf("StringWidth(%q) = %d, want %d", tc.in, got, tc.want)
			}
		})
	}
}

func TestGraphemes(t *testing.T) {
	var got []string
	for g, w := range Graphemes("a👍🏽e\u0301世") {
		got = append(got, g+":"+string(rune('0'+w)))
	}
	want := []string{"a:1", "👍🏽:2", "e\u0301:1", "世:2"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("Graphemes = %q, want %q", got, want)
	}
	if g, w := FirstGrapheme("🇯🇵x"); g != "🇯🇵" || w != 2 {
		t.Errorf("FirstGrapheme = %q, %d, want 🇯🇵, 2", g, w)
	}
}

func TestTruncate(t *testing.T) {
	tests := []struct {
		name string
		in   string
		w    int
		tail string
		want string
	}{
		{"fits", "hello", 5, "…", "hello"},
		{"cut", "hello world", 8, "…", "hello w…"},
		{"no tail", "hello", 3, "", "hel"},
		{"wide not split", "世界世界", 5, "…", "世界…"},
		{"wide not split no tail", "世界", 3, "", "世"},
		{"zero", "hello", 0, "…", ""},
		{"tail too wide", "hello", 2, "...", ".."},
		{"style closed", "\x1b[1mbold text\x1b[0m", 5, "…", "\x1b[1mbold…\x1b[0m"},
		{"link closed", "\x1b]8;;http://a\x1b\\click here\x1b]8;;\x1b\\", 6, "…", "\x1b]8;;http://a\x1b\\click…\x1b]8;;\x1b\\"},
		{"emoji cluster", "👨\u200d👩\u200d👧abc", 3, "…", "👨\u200d👩\u200d👧…"},
		{"combining kept", "e\u0301e\u0301e\u0301", 2, "", "e\u0301e\u0301"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Truncate(tc.in, tc.w, tc.tail)
			if got != tc.want {
				t.Errorf("Truncate(%q, %d, %q) = %q, want %q", tc.in, tc.w, tc.tail, got, tc.want)
			}
			if w := StringWidth(got); w > tc.w && tc.w >= 0 {
				t.Errorf("Truncate(%q, %d, %q) is %d cells wide", tc.in, tc.w, tc.tail, w)
			}
		})
	}
}

func TestSanitize(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"plain", "hello\nworld", "hello\nworld"},
		{"crlf", "a\r\nb", "a\nb"},
		{"lone cr", "a\rb", "a^Mb"},
		{"tab", "a\tb\n\tc", "a   b\n    c"},
		{"tab after wide", "世\tx", "世  x"},
		{"tab after sgr", "\x1b[1mab\x1b[0m\tc", "\x1b[1mab\x1b[0m  c"},
		{"c0", "\x01\x07\x08", "^A^G^H"},
		{"del", "a\x7f", "a^?"},
		{"c1", "a\u0085b\u009bc", "aM-^EbM-^[c"},
		{"sgr kept", "\x1b[1;38;5;12mx\x1b[m", "\x1b[1;38;5;12mx\x1b[m"},
		{"sgr colon kept", "\x1b[4:3mx", "\x1b[4:3mx"},
		{"cursor move removed", "a\x1b[2Ab\x1b[10;10Hc", "abc"},
		{"private sgr removed", "\x1b[>4;2mx", "x"},
		{"clear removed", "\x1b[2J\x1b[?25lx", "x"},
		{"osc title removed", "\x1b]0;evil\x07x", "x"},
		{"osc 52 removed", "\x1b]52;c;ZXZpbA==\x1b\\x", "x"},
		{"osc8 kept", "\x1b]8;;https://go.dev\x1b\\go\x1b]8;;\x1b\\", "\x1b]8;;https://go.dev\x1b\\go\x1b]8;;\x1b\\"},
		{"osc8 with control removed", "\x1b]8;;http://a\x01b\x07go", "go"},
		{"dcs removed", "\x1bP1$r\x1b\\x", "x"},
		{"charset removed", "\x1b(0qqq\x1b(B", "qqq"},
		{"reset removed", "\x1bcx", "x"},
		{"lone esc", "a\x1b", "a^["},
		{"esc control", "a\x1b\x01", "a^[^A"},
		{"unterminated csi", "a\x1b[12", "a"},
		{"csi broken by newline", "a\x1b[1\nb", "a\nb"},
		{"invalid utf8", "a\xff\xfeb", "a\ufffd\ufffdb"},
		{"combining kept", "e\u0301", "e\u0301"},
		{"8-bit csi byte", "a\xc2\x9b2Jb", "aM-^[2Jb"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Sanitize(tc.in); got != tc.want {
				t.Errorf("Sanitize(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
	if got := SanitizeTabs("\tx", 8); got != "        x" {
		t.Errorf("SanitizeTabs(%q, 8) = %q, want 8 spaces and x", "\tx", got)
	}
}

// safeAfterSanitize reports what in s could still move the cursor or
// change a terminal mode.
func safeAfterSanitize(s string) string {
	for i := 0; i < len(s); {
		c := s[i]
		if c == 0x1b {
			n := max(EscapeLen(s[i:]), 1)
			if !keepEscape(s[i : i+n]) {
				return "escape " + strings.ReplaceAll(s[i:i+n], "\x1b", "ESC")
			}
			i += n
			continue
		}
		if c < 0x20 && c != '\n' || c == 0x7f {
			return "control byte"
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r >= 0x80 && r < 0xa0 || r == utf8.RuneError && size == 1 {
			return "C1 or invalid"
		}
		i += size
	}
	return ""
}

func FuzzSanitize(f *testing.F) {
	for _, s := range []string{"a\tb", "\x1b[1mx\x1b[0m", "\x1b]8;;u\x1b\\l", "\x1b[2J", "\xc2\x9b", "世\te\u0301", "\x1b(0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 4096 {
			return
		}
		got := Sanitize(s)
		if why := safeAfterSanitize(got); why != "" {
			t.Fatalf("Sanitize(%q) = %q: %s left", s, got, why)
		}
		if again := Sanitize(got); again != got {
			t.Fatalf("Sanitize not idempotent on %q: %q then %q", s, got, again)
		}
	})
}

func TestWrap(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		width int
		want  []string
	}{
		{"empty", "", 10, []string{""}},
		{"fits", "hello", 10, []string{"hello"}},
		{"word wrap", "the quick brown fox", 10, []string{"the quick", "brown fox"}},
		{"exact", "abcde fghij", 5, []string{"abcde", "fghij"}},
		{"long word", "abcdefghij", 4, []string{"abcd", "efgh", "ij"}},
		{"long word after text", "ab cdefghij", 4, []string{"ab", "cdef", "ghij"}},
		{"newlines", "a\n\nb", 5, []string{"a", "", "b"}},
		{"indent kept", "  ab cd", 5, []string{"  ab", "cd"}},
		{"spaces dropped at break", "ab     cd", 4, []string{"ab", "cd"}},
		{"trailing spaces", "ab   ", 2, []string{"ab"}},
		{"wide", "世界世界", 5, []string{"世界", "世界"}},
		{"wide odd", "a世界", 4, []string{"a世", "界"}},
		{"wide width 1", "a世b", 1, []string{"a", "…", "b"}},
		{"width 1", "abc", 1, []string{"a", "b", "c"}},
		{"width 0 is 1", "ab", 0, []string{"a", "b"}},
		{"emoji cluster", "👨\u200d👩\u200d👧👍🏽", 3, []string{"👨\u200d👩\u200d👧", "👍🏽"}},
		{"combining", "e\u0301e\u0301e\u0301", 2, []string{"e\u0301e\u0301", "e\u0301"}},
		{"tab", "a\tb", 3, []string{"a", "b"}},
		{"sgr carried", "\x1b[1mbold words here\x1b[0m", 5, []string{"\x1b[1mbold\x1b[0m", "\x1b[1mwords\x1b[0m", "\x1b[1mhere\x1b[0m"}},
		{"sgr colour carried", "\x1b[38;5;9mab cd\x1b[39m ef", 2, []string{"\x1b[38;5;9mab\x1b[0m", "\x1b[38;5;9mcd\x1b[39m", "ef"}},
		{"sgr across newline", "\x1b[3ma\nb\x1b[0m", 5, []string{"\x1b[3ma\x1b[0m", "\x1b[3mb\x1b[0m"}},
		{"link reopened", "\x1b]8;;http://x\x1b\\aa bb\x1b]8;;\x1b\\", 2, []string{"\x1b]8;;http://x\x1b\\aa\x1b]8;;\x1b\\", "\x1b]8;;http://x\x1b\\bb\x1b]8;;\x1b\\"}},
		{"reset at break", "\x1b[1mab\x1b[0m cd", 2, []string{"\x1b[1mab\x1b[0m", "cd"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Wrap(tc.in, tc.width)
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") || len(got) != len(tc.want) {
				t.Errorf("Wrap(%q, %d) = %q, want %q", tc.in, tc.width, got, tc.want)
			}
		})
	}
}

// stripForCompare removes escapes and spaces, the parts Wrap may move or
// drop.
func stripForCompare(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		if n := EscapeLen(s[i:]); n > 0 {
			i += n
			continue
		}
		if s[i] != ' ' && s[i] != '\n' {
			b.WriteByte(s[i])
		}
		i++
	}
	return b.String()
}

func FuzzWrap(f *testing.F) {
	f.Add("the quick brown fox", 7)
	f.Add("\x1b[1mbold\x1b[0m 世界 👍🏽 e\u0301", 3)
	f.Add("\x1b]8;;u\x1b\\link text\x1b]8;;\x1b\\", 2)
	f.Fuzz(func(t *testing.T, s string, width int) {
		if len(s) > 4096 {
			return
		}
		width = 2 + (width&0xff)%60
		s = Sanitize(s)
		lines := Wrap(s, width)
		for _, l := range lines {
			if w := StringWidth(l); w > width {
				t.Fatalf("Wrap(%q, %d): line %q is %d cells", s, width, l, w)
			}
		}
		if got, want := stripForCompare(strings.Join(lines, "\n")), stripForCompare(s); got != want {
			t.Fatalf("Wrap(%q, %d) lost text: %q, want %q", s, width, got, want)
		}
	})
}

func BenchmarkStringWidth(b *testing.B) {
	for _, bc := range []struct{ name, s string }{
		{"ascii", strings.Repeat("The quick brown fox jumps over the lazy dog. ", 4)},
		{"cjk", strings.Repeat("日本語のテキストと漢字。", 8)},
		{"mixed", strings.Repeat("héllo \x1b[1mwörld\x1b[0m 世界 👍🏽 ", 6)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(bc.s)))
			for b.Loop() {
				StringWidth(bc.s)
			}
		})
	}
}

func BenchmarkWrap(b *testing.B) {
	s := strings.Repeat("The quick brown \x1b[1mfox\x1b[0m jumps over the lazy dog; 日本語 text. ", 40)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		Wrap(s, 80)
	}
}
