package web

import (
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"unicode/utf8"
)

func FuzzDuckDuckGo(f *testing.F) {
	for _, name := range []string{"ddg.html", "ddg_empty.html", "ddg_botcheck.html"} {
		if b, err := os.ReadFile(filepath.Join("testdata", "search", name)); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		hits, _ := parseDuckDuckGo(src)
		for _, h := range hits {
			if !isURL(h.url) {
				t.Fatalf("result with URL %q", h.url)
			}
		}
	})
}

// FuzzPage makes a page of any body under any content type: it is shown
// as valid UTF-8 text, or refused as binary, never a panic.
func FuzzPage(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "site", "*"))
	for _, name := range files {
		if b, err := os.ReadFile(name); err == nil {
			f.Add(b, "text/html")
		}
	}
	f.Add([]byte("\xff\xfeh\x00i\x00"), "")
	f.Add([]byte(`{"a":[1,2,3]}`), "application/json")
	f.Add([]byte("%PDF-1.4"), "text/plain; charset=utf-16")
	u, _ := url.Parse("https://docs.test/page")
	f.Fuzz(func(t *testing.T, body []byte, contentType string) {
		p, err := makePage(&response{URL: u, Status: 200, ContentType: contentType, Body: body, Read: len(body), Length: -1}, 1<<20)
		if err != nil {
			if _, ok := err.(*cannotShow); !ok {
				t.Fatalf("makePage error %T %v", err, err)
			}
			return
		}
		for _, l := range p.lines {
			if !utf8.ValidString(l) || utf8.RuneCountInString(l) > maxLineRunes {
				t.Fatalf("bad line %q", l)
			}
		}
	})
}

func FuzzErrorDetail(f *testing.F) {
	for _, name := range []string{"brave_401.json", "tavily_401.json"} {
		if b, err := os.ReadFile(filepath.Join("testdata", "search", name)); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if d := errorDetail(body); len(d) > 210 {
			t.Fatalf("detail of %d bytes", len(d))
		}
	})
}
