package web

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
)

// TestAllowHosts: with Config.AllowHosts (an agent's net.allow) the web
// tools open the hosts it lists only: a page, each hop of a redirect and
// each search backend is checked, a host listed as an IP address may be
// a loopback one on any port, a listed name that resolves to a private
// address is still refused, and nil keeps today's any host. Each result
// says which host was refused and why (testdata/golden/allow_hosts.golden).
func TestAllowHosts(t *testing.T) {
	local := httptest.NewServer(siteHandler(t))
	defer local.Close()
	tests := []struct {
		name  string
		allow []string
		tool  string
		args  map[string]any
		ok    bool
		never string // a path the site must not serve
	}{
		{"listed", []string{"docs.test"}, "web_open", map[string]any{"url": "http://docs.test/readme.md"}, true, ""},
		{"listed by a wildcard", []string{"*.test"}, "web_open", map[string]any{"url": "http://docs.test/readme.md"}, true, ""},
		{"nil is any host", nil, "web_open", map[string]any{"url": "http://api.test/readme.md"}, true, ""},
		{"not listed", []string{"docs.test"}, "web_open", map[string]any{"url": "http://api.test/guide.html"}, false, "/guide.html"},
		{"empty list", []string{}, "web_open", map[string]any{"url": "http://docs.test/guide.html"}, false, "/guide.html"},
		{"redirect to a host not listed", []string{"docs.test"}, "web_open", map[string]any{"url": "http://docs.test/to-api"}, false, "/readme.md"},
		{"redirect within", []string{"docs.test"}, "web_open", map[string]any{"url": "http://docs.test/redirect"}, true, ""},
		{"listed name on loopback", []string{"internal.test"}, "web_open", map[string]any{"url": "http://internal.test/secret"}, false, "/secret"},
		{"listed IP on loopback", []string{"127.0.0.1"}, "web_open", map[string]any{"url": local.URL + "/readme.md"}, true, ""},
		{"search backend not listed", []string{"pkg.go.dev"}, "web_search", map[string]any{"query": "go"}, false, "/html/"},
		{"public search backend not listed", []string{"docs.test"}, "web_search", map[string]any{"query": "go"}, false, ""},
	}
	var b strings.Builder
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w, n, _ := site(t, func(c *Config) {
				c.AllowHosts = tc.allow
				if !strings.HasPrefix(tc.name, "public") {
					c.DuckDuckGoURL = "http://api.test/html/"
				}
				if u, _ := tc.args["url"].(string); strings.HasPrefix(u, local.URL) {
					c.Dial = nil // the real dialer, to the test's loopback server
				}
			})
			r := call(t, w, tc.tool, tc.args)
			if r.IsError == tc.ok {
				t.Errorf("%s %v with AllowHosts %q: IsError %v, text %q", tc.tool, tc.args, tc.allow, r.IsError, r.Text())
			}
			if tc.never != "" && slices.Contains(n.requests(), tc.never) {
				t.Errorf("the site served %s; requests %q", tc.never, n.requests())
			}
			text := r.Text()
			if tc.ok {
				text, _, _ = strings.Cut(text, "\n")
			}
			allow := "any host"
			if tc.allow != nil {
				allow = fmt.Sprintf("allow %q", tc.allow)
			}
			fmt.Fprintf(&b, "-- %s (%s)\n%s\n", tc.name, allow, strings.ReplaceAll(text, local.Listener.Addr().String(), "LOCAL"))
		})
	}
	golden(t, "allow_hosts", b.String())
}

// TestAllowHostsDialer: the dialer refuses a host not listed by itself,
// whichever client dials (the search APIs' clients check no URL).
func TestAllowHostsDialer(t *testing.T) {
	d := &dialer{allowHosts: []string{"docs.test"}, lookup: (&testNet{}).lookup}
	_, err := d.dial(context.Background(), "tcp", "api.test:443")
	var he *HostError
	if !errors.As(err, &he) || he.Host != "api.test" {
		t.Errorf("dial api.test:443 = %v, want a *HostError for api.test", err)
	}
	if got := describe(err, 0); !strings.Contains(got, "host api.test is not in the agent's net.allow") {
		t.Errorf("describe = %q", got)
	}
}
