package web

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
)

func TestParseRef(t *testing.T) {
	tests := []struct {
		id, url string
		ok      bool
	}{
		{"r1:https://example.com/", "https://example.com/", true},
		{"r204:http://docs.test/a?b=c:d", "http://docs.test/a?b=c:d", true},
		{"r1", "", false},
		{"r:https://example.com/", "https://example.com/", false},
		{"rx:https://example.com/", "https://example.com/", false},
		{"r1:ftp://example.com/", "ftp://example.com/", false},
		{"https://example.com/", "", false},
		{"", "", false},
	}
	for _, tc := range tests {
		u, ok := parseRef(tc.id)
		if ok != tc.ok || ok && u != tc.url {
			t.Errorf("parseRef(%q) = %q, %v; want %q, %v", tc.id, u, ok, tc.url, tc.ok)
		}
	}
}

// TestExpiredRef opens a page in one Web, then uses its ref in another, as
// after a resume: the page is fetched again under the same ref, once.
func TestExpiredRef(t *testing.T) {
	before, _, _ := site(t, nil)
	first := call(t, before, "web_open", map[string]any{"url": "http://docs.test/docs/guide.html"})
	var d PageDetails
	details(t, first, &d)

	after, n, _ := site(t, nil)
	r := call(t, after, "web_find", map[string]any{"ref_id": d.RefID, "pattern": "burst"})
	want := "note: ref " + d.RefID + " had expired (refs last while zut runs, and the oldest pages are dropped to save memory); the page was fetched again\n1 match"
	if r.IsError || !strings.HasPrefix(r.Text(), want) {
		t.Errorf("web_find with an expired ref = %q, want it to start %q", r.Text(), want)
	}
	r = call(t, after, "web_click", map[string]any{"ref_id": d.RefID, "id": 2})
	if r.IsError || strings.Contains(r.Text(), "expired") || !strings.Contains(r.Text(), "title: Errors | Acme API Guide") {
		t.Errorf("web_click on the fetched-again ref = %q", r.Text())
	}
	if got := strings.Join(n.requests(), " "); got != "/docs/guide.html /docs/errors.html" {
		t.Errorf("requests %s, want the page once and the clicked link once", got)
	}
}

// TestDroppedPages fills the store past its limit: the oldest page is
// dropped and fetched again when used.
func TestDroppedPages(t *testing.T) {
	w, _, _ := site(t, nil)
	var first string
	for i := 0; i <= maxHeldPages; i++ {
		r := call(t, w, "web_open", map[string]any{"url": fmt.Sprintf("http://docs.test/readme.md?copy=%d", i)})
		if i == 0 {
			var d PageDetails
			details(t, r, &d)
			first = d.RefID
		}
	}
	if got := len(w.refs.held); got != maxHeldPages {
		t.Errorf("%d pages held, want %d", got, maxHeldPages)
	}
	r := call(t, w, "web_open", map[string]any{"ref_id": first})
	if r.IsError || !strings.Contains(r.Text(), "note: the stored copy of "+first+" was dropped to save memory; the page was fetched again") {
		t.Errorf("web_open of a dropped page = %q", r.Text())
	}
}

// TestConcurrentUse runs the tools from several goroutines on one Web.
func TestConcurrentUse(t *testing.T) {
	w, _, _ := site(t, nil)
	var wg sync.WaitGroup
	errs := make(chan string, 32)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := call(t, w, "web_open", map[string]any{"url": fmt.Sprintf("http://docs.test/docs/guide.html?g=%d", g)})
			var d PageDetails
			if err := json.Unmarshal(r.Details, &d); err != nil || r.IsError {
				errs <- r.Text()
				return
			}
			if f := call(t, w, "web_find", map[string]any{"ref_id": d.RefID, "pattern": "jitter"}); f.IsError {
				errs <- f.Text()
			}
			if c := call(t, w, "web_click", map[string]any{"ref_id": d.RefID, "id": 2}); c.IsError {
				errs <- c.Text()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

func TestDefinitions(t *testing.T) {
	w := New(Config{})
	want := []string{"web_search", "web_open", "web_find", "web_click"}
	ts := w.Tools()
	if len(ts) != len(want) {
		t.Fatalf("%d tools, want %d", len(ts), len(want))
	}
	for i, tool := range ts {
		def := tool.Definition()
		var schema struct {
			Type       string                    `json:"type"`
			Properties map[string]map[string]any `json:"properties"`
		}
		if def.Name != want[i] || json.Unmarshal(def.Schema, &schema) != nil || schema.Type != "object" || len(schema.Properties) == 0 || def.Description == "" {
			t.Errorf("tool %d: %s, schema %s", i, def.Name, def.Schema)
		}
		for name, p := range schema.Properties {
			if p["description"] == nil || p["type"] == nil {
				t.Errorf("%s.%s has no type or description", def.Name, name)
			}
		}
		if m, ok := tool.(interface{ Mutates(json.RawMessage) bool }); !ok || m.Mutates(nil) {
			t.Errorf("%s: Mutates must exist and be false", def.Name)
		}
	}
}

func TestPreview(t *testing.T) {
	w := New(Config{})
	byName := map[string]interface{ Preview(json.RawMessage) string }{}
	for _, tool := range w.Tools() {
		byName[tool.Definition().Name] = tool.(interface{ Preview(json.RawMessage) string })
	}
	tests := []struct{ tool, args, want string }{
		{"web_search", `{"query":"golang context"}`, `web_search "golang context"`},
		{"web_open", `{"url":"https://go.dev/doc/"}`, "web_open https://go.dev/doc/"},
		{"web_open", `{"ref_id":"r3:https://go.dev/doc/","line":201}`, "web_open https://go.dev/doc/ (from line 201)"},
		{"web_find", `{"ref_id":"r3:https://go.dev/doc/","pattern":"generics"}`, `web_find "generics" in https://go.dev/doc/`},
		{"web_click", `{"ref_id":"r3:https://go.dev/doc/","id":12}`, "web_click [12] on https://go.dev/doc/"},
		{"web_open", `[1]`, "web_open (bad arguments)"},
	}
	for _, tc := range tests {
		if got := byName[tc.tool].Preview(json.RawMessage(tc.args)); got != tc.want {
			t.Errorf("%s.Preview(%s) = %q, want %q", tc.tool, tc.args, got, tc.want)
		}
	}
}
