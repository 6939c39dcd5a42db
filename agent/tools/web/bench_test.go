package web

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// benchPage is a documentation page of about 100 KiB.
func benchPage() string {
	var b strings.Builder
	b.WriteString("<!DOCTYPE html><html><head><meta charset=utf-8><title>Bench</title><script>var x=1;</script></head><body><nav><a href=/>Home</a></nav><main>")
	for i := 0; b.Len() < 100<<10; i++ {
		fmt.Fprintf(&b, "<h2 id=s%d>Section %d</h2><p>Some <a href=\"/p/%d\">linked</a> text with <code>code</code> and more words to read, %d.</p>", i, i, i, i)
		fmt.Fprintf(&b, "<ul><li>one</li><li>two</li></ul><table><tr><th>a</th><th>b</th></tr><tr><td>%d</td><td>x</td></tr></table><pre>func f() {}\n</pre>", i)
	}
	b.WriteString("</main><footer>bye</footer></body></html>")
	return b.String()
}

func benchServer(b *testing.B) *httptest.Server {
	page := benchPage()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, page)
	}))
	b.Cleanup(srv.Close)
	return srv
}

// BenchmarkFetchRaw is the network part alone: a GET of the page over
// loopback with a plain client, body read.
func BenchmarkFetchRaw(b *testing.B) {
	srv := benchServer(b)
	client := srv.Client()
	for b.Loop() {
		resp, err := client.Get(srv.URL)
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}

// BenchmarkOpen is a whole web_open call of the same page; the difference
// from BenchmarkFetchRaw is web_open's overhead beyond the network.
func BenchmarkOpen(b *testing.B) {
	srv := benchServer(b)
	w := New(Config{AllowPrivate: true})
	defer w.Close()
	open := w.Tools()[1]
	args, _ := json.Marshal(map[string]any{"url": srv.URL + "/doc"})
	for b.Loop() {
		if r := open.Run(context.Background(), args, nil); r.IsError {
			b.Fatal(r.Text())
		}
	}
}

// BenchmarkOpenStored pages through a page already fetched.
func BenchmarkOpenStored(b *testing.B) {
	srv := benchServer(b)
	w := New(Config{AllowPrivate: true})
	defer w.Close()
	open := w.Tools()[1]
	args, _ := json.Marshal(map[string]any{"url": srv.URL + "/doc"})
	var d PageDetails
	json.Unmarshal(open.Run(context.Background(), args, nil).Details, &d)
	args, _ = json.Marshal(map[string]any{"ref_id": d.RefID, "line": 201})
	for b.Loop() {
		open.Run(context.Background(), args, nil)
	}
}
