package html

import (
	"bytes"
	"mime"
	"strings"
	"unicode/utf8"
)

// Decoded is a document's bytes turned into UTF-8.
type Decoded struct {
	// Text is the document as valid UTF-8, without a byte order mark.
	// Bytes that do not decode became U+FFFD.
	Text []byte
	// Charset is the encoding the bytes were read as: "utf-8",
	// "windows-1252", "utf-16le" or "utf-16be".
	Charset string
	// Source says where Charset came from: "bom", "header", "meta" or
	// "default" (UTF-8 when the bytes are valid UTF-8, else windows-1252).
	Source string
	// Note is set when the document declares an encoding this package
	// cannot decode; it says what was done instead.
	Note string
}

// Decode turns body into UTF-8. The encoding comes, in this order, from a
// byte order mark, the charset parameter of contentType (an HTTP
// Content-Type header, may be empty), and, when sniffMeta is set (HTML),
// a <meta charset> or <meta http-equiv="Content-Type"> in the first 1024
// bytes; else UTF-8 when the bytes are valid UTF-8, else windows-1252.
//
// Decoded by hand: UTF-8, windows-1252 (also for the labels ISO-8859-1,
// Latin-1 and US-ASCII, which the WHATWG Encoding standard maps to it) and
// UTF-16 in both byte orders. Any other declared encoding is reported in
// Note and the bytes are read by the default rule.
func Decode(body []byte, contentType string, sniffMeta bool) Decoded {
	switch {
	case bytes.HasPrefix(body, []byte("\xEF\xBB\xBF")):
		return Decoded{Text: decodeUTF8(body[3:]), Charset: "utf-8", Source: "bom"}
	case bytes.HasPrefix(body, []byte("\xFF\xFE")):
		return Decoded{Text: decodeUTF16(body[2:], false), Charset: "utf-16le", Source: "bom"}
	case bytes.HasPrefix(body, []byte("\xFE\xFF")):
		return Decoded{Text: decodeUTF16(body[2:], true), Charset: "utf-16be", Source: "bom"}
	}
	var unknown string
	if label := headerCharset(contentType); label != "" {
		if enc := encodingOf(label); enc != "" {
			return decodeAs(body, enc, "header")
		}
		unknown = label
	}
	if sniffMeta && unknown == "" {
		if label := metaCharset(body); label != "" {
			enc := encodingOf(label)
			if enc == "utf-16le" || enc == "utf-16be" {
				enc = "utf-8" // a <meta> readable as ASCII is not UTF-16
			}
			if enc != "" {
				return decodeAs(body, enc, "meta")
			}
			unknown = label
		}
	}
	d := Decoded{Source: "default"}
	if utf8.Valid(body) {
		d.Text, d.Charset = body, "utf-8"
	} else {
		d.Text, d.Charset = decode1252(body), "windows-1252"
	}
	if unknown != "" {
		d.Note = "the page declares charset " + strings.ToLower(unknown) + ", which zut cannot decode; it was read as " +
			d.Charset + ", so letters outside ASCII may be wrong"
	}
	return d
}

func decodeAs(body []byte, enc, source string) Decoded {
	d := Decoded{Charset: enc, Source: source}
	switch enc {
	case "utf-8":
		d.Text = decodeUTF8(body)
	case "windows-1252":
		d.Text = decode1252(body)
	case "utf-16le":
		d.Text = decodeUTF16(body, false)
	case "utf-16be":
		d.Text = decodeUTF16(body, true)
	}
	return d
}

// encodingOf maps an encoding label to one of the encodings decoded here,
// "" when it is another one.
func encodingOf(label string) string {
	switch strings.ToLower(strings.Trim(label, " \t\n\f\r\"'")) {
	case "utf-8", "utf8", "unicode-1-1-utf-8", "unicode11utf8", "unicode20utf8", "x-unicode20utf8":
		return "utf-8"
	case "windows-1252", "cp1252", "x-cp1252", "iso-8859-1", "iso8859-1", "iso88591", "iso_8859-1",
		"iso_8859-1:1987", "latin1", "l1", "cp819", "ibm819", "csisolatin1", "iso-ir-100",
		"ascii", "us-ascii", "ansi_x3.4-1968", "x-user-defined":
		return "windows-1252"
	case "utf-16", "utf-16le", "unicode", "ucs-2", "csunicode", "iso-10646-ucs-2", "unicodefeff":
		return "utf-16le"
	case "utf-16be", "unicodefffe":
		return "utf-16be"
	}
	return ""
}

// headerCharset returns the charset parameter of a Content-Type value.
func headerCharset(contentType string) string {
	if contentType == "" {
		return ""
	}
	if _, params, err := mime.ParseMediaType(contentType); err == nil {
		return params["charset"]
	}
	return charsetParam([]byte(contentType))
}

// metaCharset looks for the encoding declared by a <meta> element in the
// first 1024 bytes of an HTML document.
func metaCharset(body []byte) string {
	z := NewTokenizer(body[:min(len(body), 1024)])
	for {
		switch z.Next() {
		case EOF:
			return ""
		case StartTag:
			tok := z.Token()
			if string(tok.Data) != "meta" {
				continue
			}
			if v, ok := tok.AttrValue("charset"); ok && len(bytes.TrimSpace(v)) > 0 {
				return string(bytes.TrimSpace(v))
			}
			equiv, _ := tok.AttrValue("http-equiv")
			if content, ok := tok.AttrValue("content"); ok && strings.EqualFold(string(equiv), "content-type") {
				if cs := charsetParam(content); cs != "" {
					return cs
				}
			}
		}
	}
}

// charsetParam extracts the value after "charset=" in s, the way the HTML
// standard reads it from a meta element's content attribute.
func charsetParam(s []byte) string {
	for {
		i := bytes.Index(lowerASCII(s), []byte("charset"))
		if i < 0 {
			return ""
		}
		s = bytes.TrimLeft(s[i+len("charset"):], " \t\n\f\r")
		if len(s) == 0 || s[0] != '=' {
			continue
		}
		s = bytes.TrimLeft(s[1:], " \t\n\f\r")
		if len(s) == 0 {
			return ""
		}
		if q := s[0]; q == '"' || q == '\'' {
			if j := bytes.IndexByte(s[1:], q); j >= 0 {
				return string(s[1 : 1+j])
			}
			return ""
		}
		end := bytes.IndexAny(s, " \t\n\f\r;")
		if end < 0 {
			end = len(s)
		}
		return string(s[:end])
	}
}

// decodeUTF8 returns b with every byte that is not part of valid UTF-8
// replaced by U+FFFD; valid input is returned as is.
func decodeUTF8(b []byte) []byte {
	if utf8.Valid(b) {
		return b
	}
	out := make([]byte, 0, len(b)+16)
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		if r == utf8.RuneError && n == 1 {
			out = append(out, replacement...)
		} else {
			out = append(out, b[:n]...)
		}
		b = b[n:]
	}
	return out
}

// decode1252 decodes windows-1252.
func decode1252(b []byte) []byte {
	out := make([]byte, 0, len(b)+len(b)/8)
	for _, c := range b {
		switch {
		case c < 0x80:
			out = append(out, c)
		case c < 0xA0:
			out = utf8.AppendRune(out, windows1252[c-0x80])
		default:
			out = utf8.AppendRune(out, rune(c))
		}
	}
	return out
}

// decodeUTF16 decodes UTF-16 in either byte order. Unpaired surrogates and
// an odd last byte become U+FFFD.
func decodeUTF16(b []byte, bigEndian bool) []byte {
	out := make([]byte, 0, len(b))
	unit := func(i int) rune {
		if bigEndian {
			return rune(b[i])<<8 | rune(b[i+1])
		}
		return rune(b[i+1])<<8 | rune(b[i])
	}
	for i := 0; i+1 < len(b); i += 2 {
		r := unit(i)
		switch {
		case r >= 0xD800 && r <= 0xDBFF:
			if i+3 < len(b) {
				if lo := unit(i + 2); lo >= 0xDC00 && lo <= 0xDFFF {
					out = utf8.AppendRune(out, (r-0xD800)<<10+(lo-0xDC00)+0x10000)
					i += 2
					continue
				}
			}
			r = utf8.RuneError
		case r >= 0xDC00 && r <= 0xDFFF:
			r = utf8.RuneError
		}
		out = utf8.AppendRune(out, r)
	}
	if len(b)%2 == 1 {
		out = append(out, replacement...)
	}
	return out
}

// windows1252 maps the bytes 0x80 to 0x9F of windows-1252 to Unicode;
// the five bytes the code page leaves undefined map to the C1 control of
// the same number, as the WHATWG Encoding standard says. The same table
// turns numeric character references to C1 controls into the characters
// authors meant.
var windows1252 = [32]rune{
	0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021,
	0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x008D, 0x017D, 0x008F,
	0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
	0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x009D, 0x017E, 0x0178,
}

// lowerASCII lower-cases the ASCII letters of s and nothing else, so that
// an offset in the result is one in s (bytes.ToLower turns each invalid
// UTF-8 byte into a three-byte U+FFFD).
func lowerASCII(s []byte) []byte {
	out := make([]byte, len(s))
	for i, c := range s {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		out[i] = c
	}
	return out
}
