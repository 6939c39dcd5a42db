package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/zut-go/zut/agent/sandbox"
	"github.com/zut-go/zut/agent/tools"
	"github.com/zut-go/zut/provider"
)

// Limits of web_search.
const (
	searchDefault   = 8
	searchMax       = 20
	titleRunes      = 200
	snippetRunes    = 300
	otherBackendsOf = "set ZUT_SEARXNG_URL, BRAVE_API_KEY or TAVILY_API_KEY (and ZUT_WEB_SEARCH to choose among them) to search with another backend"
)

// backend is one search service.
type backend interface {
	// name is shown in results and errors: "DuckDuckGo".
	name() string
	// switchHint says which setting picks another backend.
	switchHint() string
	// endpoint is the URL the backend sends its requests to.
	endpoint(w *Web) string
	search(ctx context.Context, w *Web, query string, max int) ([]result, error)
}

// result is one search hit.
type result struct{ title, url, snippet string }

// backend returns the configured backend.
func (w *Web) backend() (backend, error) {
	c := w.cfg
	switch strings.ToLower(strings.TrimSpace(c.Backend)) {
	case "":
		switch {
		case c.SearXNGURL != "":
			return searxng{}, nil
		case c.BraveKey != "":
			return brave{}, nil
		case c.TavilyKey != "":
			return tavily{}, nil
		}
		return duckDuckGo{}, nil
	case "duckduckgo", "ddg":
		return duckDuckGo{}, nil
	case "searxng":
		if c.SearXNGURL == "" {
			return nil, errors.New("ZUT_WEB_SEARCH is searxng but ZUT_SEARXNG_URL is not set; set it to your instance's URL, e.g. http://localhost:8888")
		}
		return searxng{}, nil
	case "brave":
		if c.BraveKey == "" {
			return nil, errors.New("ZUT_WEB_SEARCH is brave but BRAVE_API_KEY is not set")
		}
		return brave{}, nil
	case "tavily":
		if c.TavilyKey == "" {
			return nil, errors.New("ZUT_WEB_SEARCH is tavily but TAVILY_API_KEY is not set")
		}
		return tavily{}, nil
	}
	return nil, fmt.Errorf("unknown search backend %q in ZUT_WEB_SEARCH; use duckduckgo, searxng, brave or tavily", c.Backend)
}

// searchTool is web_search.
type searchTool struct{ w *Web }

var searchArgs = []string{"query", "max_results"}

func (t *searchTool) Definition() provider.Tool {
	return provider.Tool{Name: SearchName, Description: SearchDescription, Schema: json.RawMessage(SearchSchema)}
}

// What the model is told of the web_search tool: constant data, so that
// offering the tool runs no code of this package (TestToolDefinitions).
const (
	SearchName        = "web_search"
	SearchDescription = "Search the web. Returns numbered results, each with its title, URL, a snippet and a ref_id; open one with web_open and its ref_id (or its URL). The search backend used is named in the result."
	SearchSchema      = `{"additionalProperties":false,"properties":{"max_results":{"description":"Most results to return (1-20, default 8).","maximum":20,"minimum":1,"type":"integer"},"query":{"description":"What to search for, e.g. \"golang context WithTimeout example\".","type":"string"}},"required":["query"],"type":"object"}`
)

func (t *searchTool) Preview(raw json.RawMessage) string {
	a, err := tools.ParseArgs("web_search", raw, searchArgs...)
	if err != nil {
		return "web_search (bad arguments)"
	}
	q, _ := a.String("query", false)
	return fmt.Sprintf("web_search %q", tools.Clip(q, 100))
}

func (t *searchTool) Mutates(json.RawMessage) bool { return false }

func (t *searchTool) Run(ctx context.Context, raw json.RawMessage, progress func(string)) tools.Result {
	a, err := tools.ParseArgs("web_search", raw, searchArgs...)
	if err != nil {
		return tools.ErrorResult("%v", err)
	}
	query, err := a.String("query", true)
	if err != nil {
		return tools.ErrorResult("%v", err)
	}
	query = strings.TrimSpace(query)
	if query == "" {
		return tools.ErrorResult("web_search: query is empty; say what to search for")
	}
	n, err := a.Int("max_results", searchDefault, 1, searchMax, "an integer from 1 to 20")
	if err != nil {
		return tools.ErrorResult("%v", err)
	}
	be, err := t.w.backend()
	if err != nil {
		return tools.ErrorResult("web_search: %v", err)
	}
	if u, err := url.Parse(be.endpoint(t.w)); err == nil && t.w.cfg.AllowHosts != nil && !sandbox.HostAllowed(t.w.cfg.AllowHosts, u.Hostname()) {
		return tools.ErrorResult("web_search: searching %s needs host %s, which the agent's net.allow does not list; the agent's net.allow must list %s for web_search, or web_search cannot be used (web_open still opens the hosts it lists)", be.name(), u.Hostname(), u.Hostname())
	}
	if progress != nil {
		progress("searching " + be.name())
	}
	hits, err := be.search(ctx, t.w, query, n)
	if err != nil {
		if ctx.Err() != nil {
			return tools.ErrorResult("web_search: aborted while searching %s", be.name())
		}
		return tools.ErrorResult("web_search: %s failed: %v; %s", be.name(), err, be.switchHint())
	}
	det := SearchDetails{Backend: be.name(), Query: query, Results: []SearchResult{}}
	var b strings.Builder
	if len(hits) == 0 {
		fmt.Fprintf(&b, "no results from %s for %q; try other or fewer words", be.name(), query)
		return tools.TextResult(b.String()).WithDetails(det)
	}
	hits = hits[:min(len(hits), n)]
	fmt.Fprintf(&b, "%s from %s for %q:\n", tools.Plural(len(hits), "result"), be.name(), query)
	for i, h := range hits {
		id := t.w.refs.add(h.url, nil)
		r := SearchResult{N: i + 1, Title: tools.Clip(oneLine(h.title), titleRunes), URL: h.url,
			Snippet: tools.Clip(oneLine(h.snippet), snippetRunes), RefID: id}
		if r.Title == "" {
			r.Title = h.url
		}
		det.Results = append(det.Results, r)
		fmt.Fprintf(&b, "\n%d. %s\n   url: %s\n   ref_id: %s\n", r.N, r.Title, r.URL, r.RefID)
		if r.Snippet != "" {
			fmt.Fprintf(&b, "   %s\n", r.Snippet)
		}
	}
	b.WriteString("\nOpen a result with web_open and its ref_id.")
	text, _ := tools.CapText(b.String(), outMaxLines, outMaxBytes, "ask for fewer results with max_results")
	return tools.TextResult(text).WithDetails(det)
}

// oneLine collapses white space, line breaks included.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// keep drops results without a usable URL and repeats of a URL.
func keep(hits []result) []result {
	seen := map[string]bool{}
	out := hits[:0]
	for _, h := range hits {
		h.url = strings.TrimSpace(h.url)
		if !isURL(h.url) || seen[h.url] {
			continue
		}
		seen[h.url] = true
		out = append(out, h)
	}
	return out
}
