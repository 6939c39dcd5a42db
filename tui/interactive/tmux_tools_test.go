package interactive

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTmuxTools runs the code and web tools in a real terminal: the
// model searches (a SearXNG instance on loopback), opens the page it
// found, runs Python and outlines a Go file; each call shows in its own
// compact view, and the answer comes after them.
func TestTmuxTools(t *testing.T) {
	needTmux(t)
	t.Parallel() // each its own tmux server, directory and model server
	dir := t.TempDir()
	bin := buildE2ETools(t, dir)
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/search":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"results": [{"title": "Widget docs", "url": "http://%s/doc", "content": "How widgets work."}]}`, r.Host)
		case "/doc":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, `<html><head><title>Widget docs</title></head><body><h1>Widgets</h1><p>A widget turns twice.</p><a href="/more">More</a></body></html>`)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(site.Close)
	script := fmt.Sprintf(`[
 {"tools": [{"id": "w1", "name": "web_search", "args": {"query": "widget"}}]},
 {"tools": [{"id": "w2", "name": "web_open", "args": {"url": "%s/doc"}}]},
 {"tools": [{"id": "p1", "name": "python", "args": {"code": "print(6 * 7)"}}]},
 {"tools": [{"id": "a1", "name": "ast", "args": {"action": "outline", "path": "main.go"}}]},
 {"text": "Done with the tools."}
]`, site.URL)
	url := startScriptedModel(t, bin["fakemodel"], filepath.Join(dir, "tools.json"), script)
	home := filepath.Join(dir, "home")
	proj := filepath.Join(home, "proj")
	os.MkdirAll(proj, 0o755)
	os.WriteFile(filepath.Join(proj, "main.go"), []byte("package main\n\nfunc main() {}\n\nfunc greet(name string) string { return name }\n"), 0o644)
	tm := &tmuxServer{t: t, sock: fmt.Sprintf("zut-tools-%d", os.Getpid())}
	t.Cleanup(tm.kill)
	cmd := fmt.Sprintf("cd %q && env HOME=%q ZUT_HOME=%q ANTHROPIC_API_KEY=test-key ZUT_WEB_ALLOW_PRIVATE=1 ZUT_WEB_SEARCH=searxng ZUT_SEARXNG_URL=%q %q --yolo --provider anthropic --model claude-sonnet-4-5 --base-url %q; echo ZUT-EXIT=$?; sleep 600",
		proj, home, filepath.Join(home, ".zut"), site.URL, bin["zut"], url)
	tm.run("-f", "/dev/null", "new-session", "-d", "-s", "zut", "-x", "100", "-y", "40", cmd)
	tm.wait("the prompt", "ask anything")
	tm.keys("use the tools", "Enter")
	tm.wait("the answer", "Done with the tools.")
	screen := tm.capture(true)
	for _, want := range []string{
		"web_search \"widget\"", "1 result from SearXNG", "1. Widget docs", // the result list
		"web_open " + site.URL + "/doc", "lines 1-5 of 5", "# Widgets", // the page: title, URL, first lines
		"python: print(6 * 7)", "42", // the output
		"ast outline in main.go", "func greet  main.go:5", // the outline
	} {
		if !strings.Contains(screen, want) {
			t.Errorf("the transcript lacks %q:\n%s", want, screen)
		}
	}
	tm.keys("C-d")
	tm.wait("zut to exit", "ZUT-EXIT=0")
}
