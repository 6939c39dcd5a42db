package web

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/zut-go/zut/agent/tools/web/html"
)

// The public endpoints of the search APIs.
const (
	braveEndpoint  = "https://api.search.brave.com/res/v1/web/search"
	tavilyEndpoint = "https://api.tavily.com/search"
)

// apiError is an error answer of a search API.
type apiError struct {
	status int
	detail string
}

func (e *apiError) Error() string {
	s := "HTTP " + strconv.Itoa(e.status)
	switch e.status {
	case http.StatusUnauthorized, http.StatusForbidden:
		s += " (access refused)"
	case http.StatusTooManyRequests:
		s += " (rate limited; try again later)"
	}
	if e.detail != "" {
		s += ": " + e.detail
	}
	return s
}

// call sends a request to a search API with client and returns the body
// of a 200 answer. Redirects are not followed, so that a key sent with
// the request never reaches another host.
func (w *Web) call(ctx context.Context, client *http.Client, req *http.Request) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, w.f.timeout())
	defer cancel()
	req = req.WithContext(ctx)
	req.Header.Set("User-Agent", w.f.userAgent())
	resp, err := client.Do(req)
	if err != nil {
		return nil, errors.New(describe(err, w.f.timeout()))
	}
	defer resp.Body.Close()
	body, _, err := readBody(resp.Body, w.f.maxBody())
	if err != nil {
		return nil, errors.New(describe(err, w.f.timeout()))
	}
	if resp.StatusCode >= 300 && resp.StatusCode < 400 {
		return nil, fmt.Errorf("HTTP %d redirect to %s, not followed: requests to a search API stay with its host",
			resp.StatusCode, resp.Header.Get("Location"))
	}
	if resp.StatusCode != http.StatusOK {
		return nil, &apiError{status: resp.StatusCode, detail: errorDetail(body)}
	}
	return body, nil
}

// errorDetail finds the message of an error body: a "detail", "message"
// or "error" string anywhere in JSON, else the start of the text.
func errorDetail(body []byte) string {
	var v any
	s := ""
	if json.Unmarshal(body, &v) == nil {
		s = findMessage(v, 0)
	}
	if s == "" {
		s = stripTags(string(body))
	}
	return strings.TrimRight(clipOneLine(s, 200), ".")
}

func findMessage(v any, depth int) string {
	if depth > 4 {
		return ""
	}
	switch v := v.(type) {
	case map[string]any:
		for _, k := range []string{"detail", "message", "error", "msg"} {
			if s, ok := v[k].(string); ok && s != "" {
				return s
			}
		}
		for _, k := range []string{"detail", "error", "errors"} {
			if s := findMessage(v[k], depth+1); s != "" {
				return s
			}
		}
	case []any:
		if len(v) > 0 {
			return findMessage(v[0], depth+1)
		}
	}
	return ""
}

func clipOneLine(s string, n int) string {
	s = oneLine(s)
	if len(s) > n {
		cut := n
		for cut > 0 && s[cut]&0xC0 == 0x80 {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

// stripTags returns the text of an HTML fragment (snippets mark the
// query's words with <strong>).
func stripTags(s string) string {
	if !strings.ContainsAny(s, "<&") {
		return s
	}
	z := html.NewTokenizer([]byte(s))
	var b strings.Builder
	for z.Next() != html.EOF {
		if tok := z.Token(); tok.Type == html.Text {
			b.Write(tok.Data)
		}
	}
	return b.String()
}

// searxng searches a SearXNG instance through its JSON API.
type searxng struct{}

func (searxng) name() string { return "SearXNG" }

func (searxng) switchHint() string {
	return "check ZUT_SEARXNG_URL (the instance's settings.yml must list json under search.formats), or unset it to search with DuckDuckGo, or set ZUT_WEB_SEARCH to another backend"
}

func (searxng) endpoint(w *Web) string { return strings.TrimRight(w.cfg.SearXNGURL, "/") + "/search" }

func (sx searxng) search(ctx context.Context, w *Web, query string, max int) ([]result, error) {
	base, err := url.Parse(sx.endpoint(w))
	if err != nil || base.Scheme != "http" && base.Scheme != "https" || base.Host == "" {
		return nil, fmt.Errorf("ZUT_SEARXNG_URL %q is not an http or https URL", w.cfg.SearXNGURL)
	}
	base.RawQuery = url.Values{"q": {query}, "format": {"json"}, "pageno": {"1"}}.Encode()
	req, err := http.NewRequest(http.MethodGet, base.String(), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	body, err := w.call(ctx, w.f.trusted, req)
	var ae *apiError
	if errors.As(err, &ae) && ae.status == http.StatusForbidden {
		return nil, fmt.Errorf("%w; the instance may not allow its JSON API", err)
	}
	if err != nil {
		return nil, err
	}
	var resp struct {
		Results []struct {
			URL     string `json:"url"`
			Title   string `json:"title"`
			Content string `json:"content"`
		} `json:"results"`
	}
	if err := json.Unmarshal(body, &resp); err != nil {
		return nil, fmt.Errorf("the answer is not SearXNG JSON (%v): is ZUT_SEARXNG_URL the instance's base URL?", err)
	}
	var hits []result
	for _, r := range resp.Results {
		hits = append(hits, result{title: r.Title, url: r.URL, snippet: r.Content})
	}
	return keep(hits), nil
}

// brave searches with the Brave Search API.
type brave struct{}

func (brave) name() string { return "Brave Search" }

func (brave) switchHint() string {
	return "check BRAVE_API_KEY, or set ZUT_WEB_SEARCH=duckduckgo (or searxng, tavily) to search with another backend"
}

func (brave) endpoint(w *Web) string {
	if w.cfg.BraveURL != "" {
		return w.cfg.BraveURL
	}
	return braveEndpoint
}

func (b brave) search(ctx context.Context, w *Web, query string, max int) ([]result, error) {
	u, err := url.Parse(b.endpoint(w))
	if err != nil {
		return nil, err
	}
	u.RawQuery = url.Values{"q": {query}, "count": {strconv.Itoa(max)}}.Encode()
	req, err := http.NewRequest(http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("X-Subscription-Token", w.cfg.BraveKey)
	body, err := w.call(ctx, w.f.apis, req)
	if err != nil {
		return nil, err
	}
	var resp struct {
		Web struct {
			Results []struct {
				Title       string `json:"title"`
				URL         string `json:"url"`
				Description string `json:"description"`
			} `json:"results"`
		} `json:"web"`
	}
	if err := json.Unmarshal(body, &resp); err != nil {
		return nil, fmt.Errorf("the answer is not Brave Search JSON: %v", err)
	}
	var hits []result
	for _, r := range resp.Web.Results {
		hits = append(hits, result{title: stripTags(r.Title), url: r.URL, snippet: stripTags(r.Description)})
	}
	return keep(hits), nil
}

// tavily searches with the Tavily API.
type tavily struct{}

func (tavily) name() string { return "Tavily" }

func (tavily) switchHint() string {
	return "check TAVILY_API_KEY, or set ZUT_WEB_SEARCH=duckduckgo (or searxng, brave) to search with another backend"
}

func (tavily) endpoint(w *Web) string {
	if w.cfg.TavilyURL != "" {
		return w.cfg.TavilyURL
	}
	return tavilyEndpoint
}

func (tv tavily) search(ctx context.Context, w *Web, query string, max int) ([]result, error) {
	endpoint := tv.endpoint(w)
	payload, err := json.Marshal(map[string]any{"query": query, "max_results": max, "search_depth": "basic"})
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequest(http.MethodPost, endpoint, bytes.NewReader(payload))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Authorization", "Bearer "+w.cfg.TavilyKey)
	body, err := w.call(ctx, w.f.apis, req)
	if err != nil {
		return nil, err
	}
	var resp struct {
		Results []struct {
			Title   string `json:"title"`
			URL     string `json:"url"`
			Content string `json:"content"`
		} `json:"results"`
	}
	if err := json.Unmarshal(body, &resp); err != nil {
		return nil, fmt.Errorf("the answer is not Tavily JSON: %v", err)
	}
	var hits []result
	for _, r := range resp.Results {
		hits = append(hits, result{title: r.Title, url: r.URL, snippet: r.Content})
	}
	return keep(hits), nil
}
