package html

import (
	"bytes"
	"fmt"
	"os"
	"testing"
)

// benchPage builds a page of about size bytes from the bodies of the test
// pages: articles, docs, tables, code, navigation and scripts.
func benchPage(tb testing.TB, size int) []byte {
	var bodies [][]byte
	for _, name := range []string{"article", "docs", "hn"} {
		src, err := os.ReadFile("testdata/" + name + ".html")
		if err != nil {
			tb.Fatal(err)
		}
		if i := bytes.Index(src, []byte("<body")); i >= 0 {
			src = src[i:]
		}
		src = bytes.ReplaceAll(src, []byte("</body>"), nil)
		src = bytes.ReplaceAll(src, []byte("</html>"), nil)
		bodies = append(bodies, src)
	}
	var b bytes.Buffer
	b.WriteString("<!DOCTYPE html><html><head><meta charset=utf-8><title>Big page</title></head>\n")
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "<section id=s%d>", i)
		b.Write(bodies[i%len(bodies)])
		b.WriteString("</section>\n")
	}
	b.WriteString("</body></html>")
	return b.Bytes()
}

func BenchmarkTokenizer(b *testing.B) {
	src := benchPage(b, 2<<20)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		z := NewTokenizer(src)
		for z.Next() != EOF {
		}
	}
}

func BenchmarkExtract(b *testing.B) {
	src := benchPage(b, 2<<20)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		Extract(src, pageURL)
	}
}

func BenchmarkDecode1252(b *testing.B) {
	src := bytes.Repeat([]byte("caf\xe9 cr\xe8me \x93quoted\x94 "), 100000)
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		Decode(src, "text/html; charset=iso-8859-1", true)
	}
}
