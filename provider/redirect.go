package provider

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// Redirects never carry a credential to another host: every request a
// client sends goes through checkRedirect, which drops the provider's
// auth headers when a redirect leaves the host (scheme, name or port) the
// request was first sent to, and refuses a redirect from https to http
// outright, since the body (the whole conversation) would then travel in
// the clear.

// authHeaders are the headers model APIs take credentials in. Config
// Header names are dropped too: a caller's extra headers may hold keys.
var authHeaders = []string{"Authorization", "Proxy-Authorization", "X-Api-Key", "Api-Key", "X-Goog-Api-Key", "Cookie"}

// maxRedirects is how many redirects one request may follow.
const maxRedirects = 10

// errInsecureRedirect is the cause of a refused https → http redirect.
var errInsecureRedirect = errors.New("refused a redirect from https to http: the request and its key would travel unencrypted; fix --base-url to name the final https address")

// checkRedirect is the CheckRedirect of every client; next is the one
// the caller's http.Client had (nil for the default rule).
func checkRedirect(req *http.Request, via []*http.Request, extra http.Header, next func(*http.Request, []*http.Request) error) error {
	first := via[0]
	if strings.EqualFold(first.URL.Scheme, "https") && !strings.EqualFold(req.URL.Scheme, "https") {
		return &permanent{fmt.Errorf("%w (%s → %s)", errInsecureRedirect, RedactURL(first.URL.String()), RedactURL(req.URL.String()))}
	}
	if !sameOrigin(first, req) {
		for _, h := range authHeaders {
			req.Header.Del(h)
		}
		for h := range extra {
			req.Header.Del(h)
		}
	}
	if next != nil {
		return next(req, via)
	}
	if len(via) >= maxRedirects {
		return &permanent{fmt.Errorf("stopped after %d redirects", maxRedirects)}
	}
	return nil
}

// sameOrigin reports whether b goes to the scheme, host and port a went to.
func sameOrigin(a, b *http.Request) bool {
	return strings.EqualFold(a.URL.Scheme, b.URL.Scheme) && strings.EqualFold(canonicalHost(a), canonicalHost(b))
}

// canonicalHost is host:port with the scheme's default port filled in.
func canonicalHost(r *http.Request) string {
	host, port := r.URL.Hostname(), r.URL.Port()
	if port == "" {
		port = "80"
		if strings.EqualFold(r.URL.Scheme, "https") {
			port = "443"
		}
	}
	return host + ":" + port
}

// safeClient is base (nil for the default client) with checkRedirect as
// its redirect rule; extra are the caller's headers to drop with the auth
// headers when a redirect leaves the origin.
func safeClient(base *http.Client, extra http.Header) *http.Client {
	if base == nil {
		base = defaultHTTPClient
	}
	cl := *base
	next := base.CheckRedirect
	cl.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		return checkRedirect(req, via, extra, next)
	}
	return &cl
}
