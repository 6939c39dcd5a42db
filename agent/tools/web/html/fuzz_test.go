package html

import (
	"os"
	"path/filepath"
	"testing"
	"unicode/utf8"
)

func addSeeds(f *testing.F) {
	pages, _ := filepath.Glob("testdata/*.html")
	for _, p := range pages {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	for _, s := range []string{"", "<", "</", "<!", "<!--", "&", "&#", "&#x", "<a b='", "<script><!--<script>",
		"<![CDATA[", "<!DOCTYPE a PUBLIC", "<table><tr><td><table>", "<pre>\n", "<svg><p>"} {
		f.Add([]byte(s))
	}
}

func FuzzTokenizer(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, src []byte) {
		for _, st := range []State{DataState, RCDATAState, RAWTEXTState, ScriptDataState, PLAINTEXTState, CDATAState} {
			z := NewTokenizer(src)
			z.RecordErrors()
			z.SetState(st)
			for steps := 0; z.Next() != EOF; steps++ {
				if steps > len(src)+1 {
					t.Fatalf("no EOF after %d tokens", steps)
				}
			}
			n := len(normalizeNewlines(src))
			for _, e := range z.Errors() {
				if e.Offset < 0 || e.Offset > n {
					t.Fatalf("error %v outside the input of %d bytes", e, n)
				}
				z.Position(e.Offset)
			}
		}
	})
}

func FuzzExtract(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, src []byte) {
		d := Decode(src, "", true)
		if !utf8.Valid(d.Text) {
			t.Fatalf("Decode gave invalid UTF-8 %q", d.Text)
		}
		p := Extract(d.Text, pageURL)
		if !utf8.ValidString(p.Text) || !utf8.ValidString(p.Title) {
			t.Fatalf("Extract gave invalid UTF-8: %q %q", p.Title, p.Text)
		}
	})
}
