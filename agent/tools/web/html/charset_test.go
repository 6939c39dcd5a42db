package html

import (
	"testing"
	"unicode/utf8"
)

func TestDecode(t *testing.T) {
	utf16le := func(s string) string {
		var b []byte
		for _, r := range s {
			if r > 0xFFFF {
				r -= 0x10000
				hi, lo := 0xD800+(r>>10), 0xDC00+(r&0x3FF)
				b = append(b, byte(hi), byte(hi>>8), byte(lo), byte(lo>>8))
				continue
			}
			b = append(b, byte(r), byte(r>>8))
		}
		return string(b)
	}
	swap := func(s string) string {
		b := []byte(s)
		for i := 0; i+1 < len(b); i += 2 {
			b[i], b[i+1] = b[i+1], b[i]
		}
		return string(b)
	}
	tests := []struct {
		name, body, contentType string
		sniff                   bool
		want, charset, source   string
		note                    bool
	}{
		{"plain utf-8", "héllo", "", true, "héllo", "utf-8", "default", false},
		{"utf-8 bom", "\xEF\xBB\xBFhé", "text/html; charset=iso-8859-1", true, "hé", "utf-8", "bom", false},
		{"utf-16le bom", "\xFF\xFE" + utf16le("a€😀"), "text/html; charset=utf-8", true, "a€😀", "utf-16le", "bom", false},
		{"utf-16be bom", "\xFE\xFF" + swap(utf16le("b😀")), "", true, "b😀", "utf-16be", "bom", false},
		{"utf-16le header", utf16le("hi"), "text/plain; charset=UTF-16LE", false, "hi", "utf-16le", "header", false},
		{"lone surrogate", "\xFF\xFE" + "\x00\xD8a\x00", "", false, "\uFFFDa", "utf-16le", "bom", false},
		{"odd byte", "\xFF\xFEa\x00b", "", false, "a\uFFFD", "utf-16le", "bom", false},
		{"latin-1 header", "caf\xe9 \x80", `text/html; charset="ISO-8859-1"`, true, "café €", "windows-1252", "header", false},
		{"ascii label", "x\x93y\x94", "text/html; charset=us-ascii", true, "x“y”", "windows-1252", "header", false},
		{"header beats meta", "<meta charset=\"utf-8\">caf\xe9", "text/html; charset=windows-1252", true, `<meta charset="utf-8">café`, "windows-1252", "header", false},
		{"meta charset", "<html><head><meta charset='latin1'></head>\xe9", "text/html", true, "<html><head><meta charset='latin1'></head>é", "windows-1252", "meta", false},
		{"meta http-equiv", `<meta http-equiv="Content-Type" content="text/html; charset=windows-1252">` + "\x96", "", true, `<meta http-equiv="Content-Type" content="text/html; charset=windows-1252">–`, "windows-1252", "meta", false},
		{"meta utf-16 means utf-8", `<meta charset="utf-16">é`, "", true, `<meta charset="utf-16">é`, "utf-8", "meta", false},
		{"meta not sniffed for text", `<meta charset="latin1">é`, "text/plain", false, `<meta charset="latin1">é`, "utf-8", "default", false},
		{"meta after 1024 bytes", string(make([]byte, 1100)) + `<meta charset="latin1">`, "", true, string(make([]byte, 1100)) + `<meta charset="latin1">`, "utf-8", "default", false},
		{"invalid utf-8 defaults to 1252", "caf\xe9", "", true, "café", "windows-1252", "default", false},
		{"invalid utf-8 declared", "a\xffb", "text/html; charset=utf-8", true, "a\uFFFDb", "utf-8", "header", false},
		{"unsupported charset", "\x82\xa0", "text/html; charset=Shift_JIS", true, "‚\u00a0", "windows-1252", "default", true},
		{"unsupported meta", `<meta charset="koi8-r">ok`, "", true, `<meta charset="koi8-r">ok`, "utf-8", "default", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := Decode([]byte(tc.body), tc.contentType, tc.sniff)
			if string(d.Text) != tc.want || d.Charset != tc.charset || d.Source != tc.source || (d.Note != "") != tc.note {
				t.Errorf("Decode(%q, %q) = %q, %s, %s, note %q; want %q, %s, %s, note %v",
					tc.body, tc.contentType, d.Text, d.Charset, d.Source, d.Note, tc.want, tc.charset, tc.source, tc.note)
			}
			if !utf8.Valid(d.Text) {
				t.Errorf("Decode(%q) is not valid UTF-8: %q", tc.body, d.Text)
			}
		})
	}
}
