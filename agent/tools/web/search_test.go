package web

import (
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// searchSite serves h on the names of the search tests: api.test (the
// backends), evil.test (where a redirect would take a key) and pkg.go.dev
// (a result), all on a public address, and search.internal on a private
// one (a SearXNG instance on the intranet).
func searchSite(t *testing.T, h http.HandlerFunc, mod func(*Config)) (*Web, *testNet) {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/", h)
	mux.HandleFunc("evil.test/", func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("a request reached evil.test: %s %s, token %q, auth %q", r.Method, r.URL, r.Header.Get("X-Subscription-Token"), r.Header.Get("Authorization"))
	})
	mux.HandleFunc("pkg.go.dev/context", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<title>context package</title><main><h1>context</h1><p>Package context defines the Context type.</p></main>")
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	tlsSrv, pool := tlsServer(t, mux, "pkg.go.dev", "api.test")
	n := &testNet{target: srv.Listener.Addr().String(), targetTLS: tlsSrv.Listener.Addr().String(), hosts: map[string][]netip.Addr{
		"api.test": {publicIP}, "evil.test": {publicIP}, "pkg.go.dev": {publicIP},
		"search.internal": {netip.MustParseAddr("10.0.0.5")},
	}}
	cfg := Config{Version: "1.2.3", LookupIP: n.lookup, Dial: n.dial, DuckDuckGoURL: "https://api.test/html/",
		TLSConfig: &tls.Config{RootCAs: pool}}
	if mod != nil {
		mod(&cfg)
	}
	w := New(cfg)
	t.Cleanup(w.Close)
	return w, n
}

// serveFile answers with a file of testdata/search.
func serveFile(t *testing.T, w http.ResponseWriter, status int, contentType, name string) {
	body, err := os.ReadFile(filepath.Join("testdata", "search", name))
	if err != nil {
		t.Error(err)
	}
	w.Header().Set("Content-Type", contentType)
	w.WriteHeader(status)
	w.Write(body)
}

func TestSearchDuckDuckGo(t *testing.T) {
	w, _ := searchSite(t, func(rw http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/html/" || r.URL.Query().Get("q") != "golang context timeout" || r.UserAgent() != "zut/1.2.3" {
			t.Errorf("DuckDuckGo request %s (User-Agent %q)", r.URL, r.UserAgent())
		}
		serveFile(t, rw, http.StatusOK, "text/html; charset=UTF-8", "ddg.html")
	}, nil)
	r := call(t, w, "web_search", map[string]any{"query": "golang context timeout"})
	if r.IsError {
		t.Fatal(r.Text())
	}
	golden(t, "search_ddg", r.Text())
	var d SearchDetails
	details(t, r, &d)
	want := []SearchResult{
		{N: 1, Title: "context package - context - Go Packages", URL: "https://pkg.go.dev/context", RefID: "r1:https://pkg.go.dev/context",
			Snippet: "Package context defines the Context type, which carries deadlines, cancellation signals, and other request-scoped values across API boundaries and between processes."},
		{N: 2, Title: "Go Concurrency Patterns: Context - The Go Programming Language", URL: "https://go.dev/blog/context", RefID: "r2:https://go.dev/blog/context",
			Snippet: "In Go servers, each incoming request is handled in its own goroutine. Request handlers often start additional goroutines…"},
		{N: 3, Title: "How to set a timeout with context & http.Client? - Stack Overflow", URL: "https://stackoverflow.com/questions/42770143/how-to-set-a-timeout", RefID: "r3:https://stackoverflow.com/questions/42770143/how-to-set-a-timeout",
			Snippet: "Use context.WithTimeout and pass the ctx to http.NewRequestWithContext — the request is cancelled when the deadline passes."},
	}
	if d.Backend != "DuckDuckGo" || d.Query != "golang context timeout" || fmt.Sprint(d.Results) != fmt.Sprint(want) {
		t.Errorf("web_search Details =\n%+v\nwant\n%+v", d, want)
	}

	// A result's ref opens the result, and is then the page's ref.
	open := call(t, w, "web_open", map[string]any{"ref_id": "r1:https://pkg.go.dev/context"})
	if open.IsError || !strings.HasPrefix(open.Text(), "ref_id: r1:https://pkg.go.dev/context\ntitle: context package\n") {
		t.Errorf("web_open of a search result = %q", open.Text())
	}
	find := call(t, w, "web_find", map[string]any{"ref_id": "r1:https://pkg.go.dev/context", "pattern": "context type"})
	if find.IsError || !strings.HasPrefix(find.Text(), "1 match for \"context type\" in r1:https://pkg.go.dev/context") {
		t.Errorf("web_find in a search result = %q", find.Text())
	}
}

func TestSearchDuckDuckGoFailures(t *testing.T) {
	tests := []struct {
		name    string
		status  int
		file    string
		wantErr bool
	}{
		{"search_ddg_botcheck", http.StatusAccepted, "ddg_botcheck.html", true},
		{"search_ddg_empty", http.StatusOK, "ddg_empty.html", false},
		{"search_ddg_unreadable", http.StatusOK, "../site/guide.html", true},
		{"search_ddg_500", http.StatusInternalServerError, "ddg_empty.html", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w, _ := searchSite(t, func(rw http.ResponseWriter, r *http.Request) {
				serveFile(t, rw, tc.status, "text/html", tc.file)
			}, nil)
			r := call(t, w, "web_search", map[string]any{"query": "qqqxyzzyqq"})
			if r.IsError != tc.wantErr {
				t.Errorf("web_search IsError = %v, want %v: %s", r.IsError, tc.wantErr, r.Text())
			}
			golden(t, tc.name, r.Text())
		})
	}
}

func TestSearchSearXNG(t *testing.T) {
	w, n := searchSite(t, func(rw http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if r.Host != "search.internal:8888" || r.URL.Path != "/search" || q.Get("format") != "json" || q.Get("q") != "golang context timeout" {
			t.Errorf("SearXNG request %s %s", r.Host, r.URL)
		}
		serveFile(t, rw, http.StatusOK, "application/json", "searxng.json")
	}, func(c *Config) { c.SearXNGURL = "http://search.internal:8888/" })
	r := call(t, w, "web_search", map[string]any{"query": "golang context timeout", "max_results": 5})
	if r.IsError {
		t.Fatal(r.Text())
	}
	golden(t, "search_searxng", r.Text())
	if d := n.dialed(); len(d) != 1 || d[0] != "10.0.0.5:8888" {
		t.Errorf("dialled %v, want the configured private instance 10.0.0.5:8888", d)
	}

	w, _ = searchSite(t, func(rw http.ResponseWriter, r *http.Request) {
		rw.WriteHeader(http.StatusForbidden)
		fmt.Fprint(rw, "<html><body>403 Forbidden</body></html>")
	}, func(c *Config) { c.SearXNGURL = "http://search.internal:8888" })
	r = call(t, w, "web_search", map[string]any{"query": "x"})
	golden(t, "search_searxng_403", r.Text())
}

func TestSearchBrave(t *testing.T) {
	w, _ := searchSite(t, func(rw http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if r.Header.Get("X-Subscription-Token") != "brave-key-123" || r.Header.Get("Accept") != "application/json" ||
			r.URL.Path != "/res/v1/web/search" || q.Get("q") != "golang context timeout" || q.Get("count") != "5" {
			t.Errorf("Brave request %s, headers %v", r.URL, r.Header)
		}
		serveFile(t, rw, http.StatusOK, "application/json", "brave.json")
	}, func(c *Config) { c.BraveKey, c.BraveURL = "brave-key-123", "http://api.test/res/v1/web/search" })
	r := call(t, w, "web_search", map[string]any{"query": "golang context timeout", "max_results": 5})
	if r.IsError {
		t.Fatal(r.Text())
	}
	golden(t, "search_brave", r.Text())

	w, _ = searchSite(t, func(rw http.ResponseWriter, r *http.Request) {
		serveFile(t, rw, http.StatusUnauthorized, "application/json", "brave_401.json")
	}, func(c *Config) { c.BraveKey, c.BraveURL = "bad", "http://api.test/res/v1/web/search" })
	golden(t, "search_brave_401", call(t, w, "web_search", map[string]any{"query": "x"}).Text())
}

func TestSearchTavily(t *testing.T) {
	w, _ := searchSite(t, func(rw http.ResponseWriter, r *http.Request) {
		var body struct {
			Query      string `json:"query"`
			MaxResults int    `json:"max_results"`
		}
		raw, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(raw, &body); err != nil || r.Method != http.MethodPost || r.URL.Path != "/search" ||
			r.Header.Get("Authorization") != "Bearer tvly-key" || r.Header.Get("Content-Type") != "application/json" ||
			body.Query != "golang context timeout" || body.MaxResults != 8 {
			t.Errorf("Tavily request %s %s %s, headers %v", r.Method, r.URL, raw, r.Header)
		}
		serveFile(t, rw, http.StatusOK, "application/json", "tavily.json")
	}, func(c *Config) { c.TavilyKey, c.TavilyURL = "tvly-key", "http://api.test/search" })
	r := call(t, w, "web_search", map[string]any{"query": "golang context timeout"})
	if r.IsError {
		t.Fatal(r.Text())
	}
	golden(t, "search_tavily", r.Text())

	w, _ = searchSite(t, func(rw http.ResponseWriter, r *http.Request) {
		serveFile(t, rw, http.StatusUnauthorized, "application/json", "tavily_401.json")
	}, func(c *Config) { c.TavilyKey, c.TavilyURL = "bad", "http://api.test/search" })
	golden(t, "search_tavily_401", call(t, w, "web_search", map[string]any{"query": "x"}).Text())
}

// TestSearchKeysStayHome makes the APIs redirect to another host: the
// redirect is not followed, so the key never reaches it.
func TestSearchKeysStayHome(t *testing.T) {
	for _, tc := range []struct {
		name string
		mod  func(*Config)
	}{
		{"brave", func(c *Config) { c.BraveKey, c.BraveURL = "brave-key", "http://api.test/search" }},
		{"tavily", func(c *Config) { c.TavilyKey, c.TavilyURL = "tvly-key", "http://api.test/search" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, _ := searchSite(t, func(rw http.ResponseWriter, r *http.Request) {
				rw.Header().Set("Location", "http://evil.test/steal")
				rw.WriteHeader(http.StatusTemporaryRedirect)
			}, tc.mod)
			r := call(t, w, "web_search", map[string]any{"query": "x"})
			if !r.IsError || !strings.Contains(r.Text(), "HTTP 307 redirect to http://evil.test/steal, not followed: requests to a search API stay with its host") {
				t.Errorf("web_search = %q", r.Text())
			}
		})
	}
}

func TestBackendChoice(t *testing.T) {
	tests := []struct {
		cfg  Config
		want string
	}{
		{Config{}, "DuckDuckGo"},
		{Config{BraveKey: "k"}, "Brave Search"},
		{Config{TavilyKey: "k"}, "Tavily"},
		{Config{TavilyKey: "k", BraveKey: "k", SearXNGURL: "http://s"}, "SearXNG"},
		{Config{BraveKey: "k", Backend: "DuckDuckGo"}, "DuckDuckGo"},
		{Config{BraveKey: "k", TavilyKey: "k", Backend: "tavily"}, "Tavily"},
		{Config{Backend: "brave"}, "ZUT_WEB_SEARCH is brave but BRAVE_API_KEY is not set"},
		{Config{Backend: "searxng"}, "ZUT_WEB_SEARCH is searxng but ZUT_SEARXNG_URL is not set; set it to your instance's URL, e.g. http://localhost:8888"},
		{Config{Backend: "google"}, `unknown search backend "google" in ZUT_WEB_SEARCH; use duckduckgo, searxng, brave or tavily`},
	}
	for _, tc := range tests {
		be, err := New(tc.cfg).backend()
		got := ""
		if err != nil {
			got = err.Error()
		} else {
			got = be.name()
		}
		if got != tc.want {
			t.Errorf("backend(%+v) = %q, want %q", tc.cfg, got, tc.want)
		}
	}
}

func TestConfigFromEnv(t *testing.T) {
	env := map[string]string{"ZUT_WEB_ALLOW_PRIVATE": "1", "ZUT_WEB_SEARCH": "brave", "ZUT_SEARXNG_URL": " http://s:8888 ",
		"BRAVE_API_KEY": "bk", "TAVILY_API_KEY": "tk"}
	got := ConfigFromEnv(func(k string) string { return env[k] })
	if !got.AllowPrivate || got.Backend != "brave" || got.SearXNGURL != "http://s:8888" || got.BraveKey != "bk" || got.TavilyKey != "tk" {
		t.Errorf("ConfigFromEnv = %+v", got)
	}
	for _, v := range []string{"", "0", "no", "false"} {
		if ConfigFromEnv(func(k string) string { return map[string]string{"ZUT_WEB_ALLOW_PRIVATE": v}[k] }).AllowPrivate {
			t.Errorf("ZUT_WEB_ALLOW_PRIVATE=%q allows private addresses", v)
		}
	}
}

func TestSearchArguments(t *testing.T) {
	w := New(Config{})
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{}, "web_search: query is required"},
		{map[string]any{"query": "  "}, "web_search: query is empty; say what to search for"},
		{map[string]any{"query": "x", "max_results": 50}, "web_search: max_results must be an integer from 1 to 20, got 50"},
		{map[string]any{"q": "x"}, `web_search: unknown argument "q" (allowed: query, max_results)`},
	} {
		r := call(t, w, "web_search", tc.args)
		if !r.IsError || r.Text() != tc.want {
			t.Errorf("web_search(%v) = %q, want the error %q", tc.args, r.Text(), tc.want)
		}
	}
}
