// Package web holds zut's web tools, web_search, web_open, web_find and
// web_click, as tools.Tool values built on one Web. A Web owns the
// fetcher (safe by default: public addresses only, see Config) and the
// refs of a session: the ids that name search results and opened pages
// for later calls. HTML is read by the hand-written tokenizer and text
// extraction of package web/html.
package web

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"github.com/zut-go/zut/agent/tools"
)

// Config is what the web tools need from their host.
type Config struct {
	// Version is zut's version; requests say "User-Agent: zut/<Version>".
	Version string
	// AllowPrivate lets the fetcher open loopback, private, link-local
	// and other non-public addresses, on any port (the setting
	// web.allow_private, env ZUT_WEB_ALLOW_PRIVATE=1), for intranet docs.
	AllowPrivate bool
	// AllowHosts, when not nil, are the only hosts the tools open (an
	// agent's net.allow): names, "*.example.org" for its subdomains and
	// IP addresses, as sandbox.HostAllowed reads them. Every request is
	// checked: pages, each hop of a redirect, links followed and the
	// search backends. A host listed as "localhost" or as an IP address
	// may be a private address on any port, as if AllowPrivate were set
	// for it alone. nil opens any host (with the checks above).
	AllowHosts []string

	// Backend picks the search backend: "duckduckgo", "searxng", "brave"
	// or "tavily" (env ZUT_WEB_SEARCH). Empty means the first configured
	// of SearXNG, Brave and Tavily, else DuckDuckGo.
	Backend string
	// SearXNGURL is the base URL of a SearXNG instance (env
	// ZUT_SEARXNG_URL), for example http://localhost:8888. The user chose
	// it, so it may be a private address; its JSON API must be enabled.
	SearXNGURL string
	// BraveKey is a Brave Search API key (env BRAVE_API_KEY). It is only
	// sent to BraveURL.
	BraveKey string
	// TavilyKey is a Tavily API key (env TAVILY_API_KEY). It is only sent
	// to TavilyURL.
	TavilyKey string

	// The endpoints of the backends; empty means the public ones. Tests
	// point them at local servers.
	DuckDuckGoURL string // https://html.duckduckgo.com/html/
	BraveURL      string // https://api.search.brave.com/res/v1/web/search
	TavilyURL     string // https://api.tavily.com/search

	// LookupIP resolves a host name; nil uses the system resolver. Its
	// answers are checked like real ones (tests fake DNS with it).
	LookupIP func(ctx context.Context, host string) ([]netip.Addr, error)
	// Dial connects to an address that already passed the checks (an IP
	// and port); nil uses a net.Dialer. Tests route checked public
	// addresses to a local server with it.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
	// TLSConfig, when not nil, is the TLS configuration of requests
	// (tests trust their server's certificate with it).
	TLSConfig *tls.Config
	// Timeout bounds one request, body included; 0 means 15 s.
	Timeout time.Duration
	// MaxBody is the most bytes read of a body; 0 means 5 MiB.
	MaxBody int
}

// ConfigFromEnv reads the settings of the web tools from the environment
// through getenv (os.Getenv): ZUT_WEB_ALLOW_PRIVATE (1 or true),
// ZUT_WEB_SEARCH, ZUT_SEARXNG_URL, BRAVE_API_KEY and TAVILY_API_KEY.
// Version is left for the caller to fill.
func ConfigFromEnv(getenv func(string) string) Config {
	allow := strings.ToLower(strings.TrimSpace(getenv("ZUT_WEB_ALLOW_PRIVATE")))
	return Config{
		AllowPrivate: allow == "1" || allow == "true" || allow == "yes",
		Backend:      strings.TrimSpace(getenv("ZUT_WEB_SEARCH")),
		SearXNGURL:   strings.TrimSpace(getenv("ZUT_SEARXNG_URL")),
		BraveKey:     strings.TrimSpace(getenv("BRAVE_API_KEY")),
		TavilyKey:    strings.TrimSpace(getenv("TAVILY_API_KEY")),
	}
}

// Web is the state the web tools share in one session: the fetcher and
// the refs. It is safe for concurrent use. Close it when the session ends.
type Web struct {
	cfg  Config
	f    *fetcher
	refs *refStore
}

// New returns a Web for cfg.
func New(cfg Config) *Web {
	return &Web{cfg: cfg, f: newFetcher(cfg), refs: newRefStore()}
}

// Tools returns web_search, web_open, web_find and web_click.
func (w *Web) Tools() []tools.Tool {
	return []tools.Tool{&searchTool{w: w}, &openTool{w: w}, &findTool{w: w}, &clickTool{w: w}}
}

// Close closes the idle connections. The tools must not be used after.
func (w *Web) Close() { w.f.close() }

// loaded is a page ready to show, with the ref that names it.
type loaded struct {
	id   string
	page *page
	note string // how the page was obtained, when the model should know
}

// errResult is a failed call as the error the tool returns.
type errResult struct{ r tools.Result }

func (e *errResult) Error() string { return e.r.Text() }

func fail(format string, v ...any) error { return &errResult{tools.ErrorResult(format, v...)} }

// load returns the page a call names: the stored page of a ref, or a page
// fetched for a ref not fetched yet, an expired ref or a URL.
func (w *Web) load(ctx context.Context, tool, refID, rawURL string, progress func(string)) (*loaded, error) {
	refID = strings.TrimSpace(refID)
	if refID != "" && isURL(refID) {
		refID, rawURL = "", refID // a URL where a ref was asked for
	}
	if refID == "" {
		if u, ok := parseRef(strings.TrimSpace(rawURL)); ok {
			refID = strings.TrimSpace(rawURL) // a ref where a URL was asked for
			rawURL = u
		}
	}
	if refID != "" {
		return w.loadRef(ctx, tool, refID, progress)
	}
	u, err := normalizeURL(rawURL)
	if err != nil {
		return nil, fail("%s: %v", tool, err)
	}
	p, err := w.fetch(ctx, tool, u, progress)
	if err != nil {
		return nil, err
	}
	return &loaded{id: w.refs.add(p.url, p), page: p}, nil
}

func (w *Web) loadRef(ctx context.Context, tool, id string, progress func(string)) (*loaded, error) {
	u, p, known, dropped := w.refs.lookup(id)
	if known && p != nil {
		return &loaded{id: id, page: p}, nil
	}
	note := ""
	if dropped {
		note = "the stored copy of " + id + " was dropped to save memory; the page was fetched again"
	}
	if !known {
		var ok bool
		if u, ok = parseRef(id); !ok {
			if whole := w.refs.full(id); whole != "" {
				return nil, fail("%s: ref_id %q is cut short; pass the whole ref_id as printed: %q", tool, id, whole)
			}
			return nil, fail("%s: unknown ref_id %q; a ref_id looks like r3:https://example.com/page, exactly as web_search or web_open printed it", tool, id)
		}
		note = "ref " + id + " had expired (refs last while zut runs, and the oldest pages are dropped to save memory); the page was fetched again"
	}
	pu, err := url.Parse(u)
	if err != nil {
		return nil, fail("%s: ref_id %q holds a bad URL: %v", tool, id, err)
	}
	p, err = w.fetch(ctx, tool, pu, progress)
	if err != nil {
		return nil, err
	}
	w.refs.put(id, u, p)
	return &loaded{id: id, page: p, note: note}, nil
}

// fetch gets u and makes its page.
func (w *Web) fetch(ctx context.Context, tool string, u *url.URL, progress func(string)) (*page, error) {
	if progress != nil {
		progress("fetching " + u.String())
	}
	resp, err := w.f.get(ctx, u)
	if err != nil {
		if ctx.Err() != nil && errors.Is(err, context.Canceled) {
			return nil, fail("%s: aborted while fetching %s", tool, u)
		}
		return nil, fail("%s", fetchError(tool, u.String(), err, w.f.timeout()))
	}
	p, err := makePage(resp, w.f.maxBody())
	if err != nil {
		return nil, fail("%s: %v", tool, err)
	}
	return p, nil
}

func isURL(s string) bool {
	l := strings.ToLower(s)
	return strings.HasPrefix(l, "http://") || strings.HasPrefix(l, "https://")
}

// normalizeURL parses the URL the model sent; one without a scheme gets
// https://.
func normalizeURL(raw string) (*url.URL, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return nil, errors.New("url or ref_id is required")
	}
	if !strings.Contains(raw, "://") {
		scheme, rest, found := strings.Cut(raw, ":")
		if found && !strings.Contains(scheme, ".") && !strings.Contains(scheme, "/") && (rest == "" || rest[0] < '0' || rest[0] > '9') {
			return nil, errors.New("only http and https URLs can be opened, not " + scheme + ":")
		}
		raw = "https://" + raw // example.com/page, localhost:8080
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, errors.New("bad URL " + raw + ": " + err.Error())
	}
	u.Fragment, u.RawFragment = "", ""
	return u, nil
}
