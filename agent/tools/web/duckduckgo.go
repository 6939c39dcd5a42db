package web

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/zut-go/zut/agent/tools/web/html"
)

// duckDuckGoEndpoint is DuckDuckGo's HTML results page, which needs no key.
const duckDuckGoEndpoint = "https://html.duckduckgo.com/html/"

// duckDuckGo searches by reading DuckDuckGo's HTML results page.
type duckDuckGo struct{}

func (duckDuckGo) name() string { return "DuckDuckGo" }

func (duckDuckGo) switchHint() string { return otherBackendsOf }

func (duckDuckGo) endpoint(w *Web) string {
	if w.cfg.DuckDuckGoURL != "" {
		return w.cfg.DuckDuckGoURL
	}
	return duckDuckGoEndpoint
}

func (ddg duckDuckGo) search(ctx context.Context, w *Web, query string, max int) ([]result, error) {
	u, err := url.Parse(ddg.endpoint(w))
	if err != nil {
		return nil, err
	}
	u.RawQuery = url.Values{"q": {query}}.Encode()
	resp, err := w.f.get(ctx, u)
	if err != nil {
		return nil, errors.New(describe(err, w.f.timeout()))
	}
	if resp.Status == http.StatusAccepted || bytes.Contains(resp.Body, []byte("anomaly-modal")) ||
		bytes.Contains(resp.Body, []byte("bots use DuckDuckGo")) {
		return nil, errors.New("DuckDuckGo asked for a bot check (it limits automated searches from one address); try again in a while")
	}
	if resp.Status != http.StatusOK {
		return nil, fmt.Errorf("HTTP %d %s", resp.Status, resp.StatusText)
	}
	d := html.Decode(resp.Body, resp.ContentType, true)
	hits, noResults := parseDuckDuckGo(d.Text)
	if len(hits) == 0 && !noResults {
		return nil, errors.New("the results page held no results zut could read (its layout may have changed)")
	}
	return hits, nil
}

// parseDuckDuckGo reads the results of a DuckDuckGo HTML results page:
// each result is a div of class "result" holding an a.result__a (title and
// link) and an element of class result__snippet. Ads (result--ad) are
// skipped. noResults reports a page that says it found nothing.
func parseDuckDuckGo(src []byte) (hits []result, noResults bool) {
	const (
		none = iota
		title
		snippet
	)
	z := html.NewTokenizer(src)
	var cur *result
	ad := false
	capture, depth := none, 0
	var captureTag string
	var titleB, snippetB strings.Builder
	flush := func() {
		if cur != nil && !ad {
			cur.title, cur.snippet = titleB.String(), snippetB.String()
			if cur.url != "" {
				hits = append(hits, *cur)
			}
		}
		cur, ad = nil, false
		titleB.Reset()
		snippetB.Reset()
	}
	for tt := z.Next(); tt != html.EOF; tt = z.Next() {
		tok := z.Token()
		switch tt {
		case html.StartTag:
			class, _ := tok.AttrValue("class")
			name := string(tok.Data)
			switch {
			case capture != none:
				if name == captureTag {
					depth++
				}
			case hasClass(class, "no-results"):
				noResults = true
			case name == "div" && hasClass(class, "result"):
				flush()
				cur = &result{}
				ad = hasClass(class, "result--ad")
			case cur != nil && hasClass(class, "result__a"):
				href, _ := tok.AttrValue("href")
				cur.url = duckDuckGoTarget(string(href))
				capture, captureTag, depth = title, name, 0
			case cur != nil && hasClass(class, "result__snippet"):
				capture, captureTag, depth = snippet, name, 0
			}
		case html.EndTag:
			if capture != none && string(tok.Data) == captureTag {
				if depth == 0 {
					capture = none
				} else {
					depth--
				}
			}
		case html.Text:
			switch capture {
			case title:
				titleB.Write(tok.Data)
			case snippet:
				snippetB.Write(tok.Data)
			}
		}
	}
	flush()
	return keep(hits), noResults
}

// duckDuckGoTarget returns the page a result link points to: DuckDuckGo
// links through //duckduckgo.com/l/?uddg=<target>. Its own ad links
// yield "".
func duckDuckGoTarget(href string) string {
	if strings.HasPrefix(href, "//") {
		href = "https:" + href
	}
	u, err := url.Parse(href)
	if err != nil {
		return ""
	}
	if u.Host == "" || strings.HasSuffix(u.Hostname(), "duckduckgo.com") {
		if u.Path == "/l/" || u.Path == "/l" {
			return u.Query().Get("uddg")
		}
		return ""
	}
	return href
}

// hasClass reports whether a class attribute holds the class c.
func hasClass(attr []byte, c string) bool {
	for _, f := range strings.Fields(string(attr)) {
		if f == c {
			return true
		}
	}
	return false
}
