package web

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zut-go/zut/agent/sandbox"
)

func TestNonPublic(t *testing.T) {
	tests := []struct{ addr, want string }{
		{"8.8.8.8", ""},
		{"93.184.215.14", ""},
		{"2606:4700:4700::1111", ""},
		{"127.0.0.1", "a loopback address"},
		{"127.8.9.10", "a loopback address"},
		{"::1", "a loopback address"},
		{"0.0.0.0", "the unspecified address"},
		{"::", "the unspecified address"},
		{"10.0.0.1", "a private address"},
		{"172.16.5.4", "a private address"},
		{"192.168.1.1", "a private address"},
		{"fd00:ec2::254", "a private address"}, // AWS's IPv6 metadata, in fc00::/7
		{"169.254.169.254", "the cloud metadata address"},
		{"169.254.1.1", "a link-local address"},
		{"fe80::1", "a link-local address"},
		{"224.0.0.1", "a multicast address"},
		{"ff02::1", "a multicast address"},
		{"100.64.0.1", "a carrier-grade NAT address"},
		{"100.100.100.200", "a carrier-grade NAT address"}, // Alibaba's metadata
		{"0.1.2.3", "a reserved address"},
		{"198.18.0.1", "a reserved address"},
		{"240.0.0.1", "a reserved address"},
		{"255.255.255.255", "a reserved address"},
		{"192.0.2.1", "a documentation address"},
		{"2001:db8::1", "a documentation address"},
		{"::ffff:127.0.0.1", "a loopback address"},
		{"::ffff:10.0.0.1", "a private address"},
		{"::ffff:8.8.8.8", ""},
		{"::127.0.0.1", "a reserved address"},     // IPv4-compatible
		{"64:ff9b::7f00:1", "a reserved address"}, // NAT64 of 127.0.0.1
		{"2002:7f00:1::1", "a 6to4 address of a loopback address"},
		{"2002:0808:0808::1", ""},
		{"2001:0:4136:e378:8000:63bf:3fff:fdd2", "a Teredo tunnel address"},
		{"fec0::1", "a reserved address"}, // site-local
	}
	for _, tc := range tests {
		if got := sandbox.NonPublic(netip.MustParseAddr(tc.addr)); got != tc.want {
			t.Errorf("sandbox.NonPublic(%s) = %q, want %q", tc.addr, got, tc.want)
		}
	}
}

func TestCheckURL(t *testing.T) {
	tests := []struct {
		url          string
		allowPrivate bool
		want         string
	}{
		{"https://example.com/x", false, ""},
		{"http://example.com:80/x", false, ""},
		{"https://example.com:443/x", false, ""},
		{"https://example.com:8443/x", false, "example.com: port 8443 is not 80 or 443"},
		{"https://example.com:8443/x", true, ""},
		{"ftp://example.com/x", false, "only http and https URLs can be opened, not ftp:"},
		{"file:///etc/passwd", true, "only http and https URLs can be opened, not file:"},
		{"https://user@example.com/", false, "URLs with credentials (user@host) are not opened"},
		{"http:///path", false, "the URL has no host"},
	}
	for _, tc := range tests {
		f := newFetcher(Config{AllowPrivate: tc.allowPrivate})
		u, err := url.Parse(tc.url)
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		if err := f.checkURL(u); err != nil {
			got = err.Error()
		}
		if tc.want == "" && got != "" || !strings.HasPrefix(got, tc.want) {
			t.Errorf("checkURL(%s, allowPrivate=%v) = %q, want %q", tc.url, tc.allowPrivate, got, tc.want)
		}
	}
}

// TestRealDialerRefuses uses the real resolver and dialer: localhost and
// loopback addresses are refused before any connection.
func TestRealDialerRefuses(t *testing.T) {
	w := New(Config{})
	defer w.Close()
	for _, u := range []string{"http://localhost/", "http://127.0.0.1/", "http://[::1]/", "http://[::ffff:127.0.0.1]/"} {
		r := call(t, w, "web_open", map[string]any{"url": u})
		if !r.IsError || !strings.Contains(r.Text(), "a loopback address; the web tools open public addresses only") {
			t.Errorf("web_open(%s) = %q, want a refusal of a loopback address", u, r.Text())
		}
	}
	d := &dialer{}
	for _, a := range []string{"127.0.0.1:80", "[::1]:443", "[::ffff:192.168.0.1]:80", "169.254.169.254:80"} {
		var be *BlockedError
		if err := d.control("tcp", a, nil); !errors.As(err, &be) {
			t.Errorf("control(%s) = %v, want a BlockedError", a, err)
		}
	}
	if err := d.control("tcp", "8.8.8.8:443", nil); err != nil {
		t.Errorf("control(8.8.8.8:443) = %v, want nil", err)
	}
}

// TestAllowPrivate opens a plain httptest server on a loopback address and
// port, which AllowPrivate permits.
func TestAllowPrivate(t *testing.T) {
	srv := httptest.NewServer(siteHandler(t))
	defer srv.Close()
	w := New(Config{AllowPrivate: true})
	defer w.Close()
	r := call(t, w, "web_open", map[string]any{"url": srv.URL + "/readme.md"})
	if r.IsError || !strings.Contains(r.Text(), "# Acme CLI") {
		t.Errorf("web_open(%s) with AllowPrivate = %q", srv.URL, r.Text())
	}
	off := New(Config{})
	defer off.Close()
	r = call(t, off, "web_open", map[string]any{"url": srv.URL + "/readme.md"})
	if !r.IsError || !strings.Contains(r.Text(), "is not 80 or 443") {
		t.Errorf("web_open(%s) without AllowPrivate = %q, want a port refusal", srv.URL, r.Text())
	}
}

// TestConnectionPinned checks that the address dialled is the one checked:
// a resolver that turns private after its first answer (a rebinding
// attack) cannot send the connection elsewhere, because the dial uses the
// checked address and no second lookup.
func TestConnectionPinned(t *testing.T) {
	srv := httptest.NewServer(siteHandler(t))
	defer srv.Close()
	var lookups atomic.Int32
	n := &testNet{target: srv.Listener.Addr().String()}
	w := New(Config{
		LookupIP: func(ctx context.Context, host string) ([]netip.Addr, error) {
			if lookups.Add(1) == 1 {
				return []netip.Addr{publicIP}, nil
			}
			return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
		},
		Dial: n.dial,
	})
	defer w.Close()
	r := call(t, w, "web_open", map[string]any{"url": "http://rebind.test/readme.md"})
	if r.IsError {
		t.Fatalf("web_open = %s", r.Text())
	}
	if got := n.dialed(); len(got) != 1 || got[0] != "93.184.215.14:80" || lookups.Load() != 1 {
		t.Errorf("dialled %v after %d lookups, want only the checked 93.184.215.14:80 after 1", got, lookups.Load())
	}
}

func TestTLSErrors(t *testing.T) {
	srv := httptest.NewTLSServer(siteHandler(t))
	defer srv.Close()
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())
	lookup := func(ctx context.Context, host string) ([]netip.Addr, error) {
		return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
	}
	tests := []struct {
		name string
		cfg  Config
		url  string
		want string
	}{
		{"unknown authority", Config{AllowPrivate: true}, srv.URL + "/readme.md",
			"the TLS certificate is signed by an unknown authority; zut does not open sites with bad certificates"},
		{"wrong host", Config{AllowPrivate: true, LookupIP: lookup, TLSConfig: &tls.Config{RootCAs: pool}},
			fmt.Sprintf("https://wrong.test:%d/readme.md", port), "the TLS certificate is not valid for this host"},
		{"trusted", Config{AllowPrivate: true, TLSConfig: &tls.Config{RootCAs: pool}}, srv.URL + "/readme.md", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := New(tc.cfg)
			defer w.Close()
			r := call(t, w, "web_open", map[string]any{"url": tc.url})
			if tc.want == "" {
				if r.IsError || !strings.Contains(r.Text(), "# Acme CLI") {
					t.Errorf("web_open(%s) = %q", tc.url, r.Text())
				}
				return
			}
			if !r.IsError || !strings.Contains(r.Text(), tc.want) {
				t.Errorf("web_open(%s) = %q, want an error saying %q", tc.url, r.Text(), tc.want)
			}
		})
	}
}

func TestDNSErrors(t *testing.T) {
	w := New(Config{LookupIP: func(ctx context.Context, host string) ([]netip.Addr, error) {
		if host == "timeout.test" {
			return nil, &net.DNSError{Err: "i/o timeout", Name: host, IsTimeout: true}
		}
		return nil, &net.DNSError{Err: "server misbehaving", Name: host, IsTemporary: true}
	}})
	defer w.Close()
	for _, tc := range []struct{ url, want string }{
		{"https://timeout.test/", "web_open: https://timeout.test/: the DNS lookup of timeout.test timed out"},
		{"https://broken.test/", "web_open: https://broken.test/: DNS lookup of broken.test failed: server misbehaving"},
	} {
		r := call(t, w, "web_open", map[string]any{"url": tc.url})
		if !r.IsError || !strings.HasPrefix(r.Text(), tc.want) {
			t.Errorf("web_open(%s) = %q, want %q", tc.url, r.Text(), tc.want)
		}
	}
}

// TestOpenAborted cancels a call while the server holds the request.
func TestOpenAborted(t *testing.T) {
	started := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(started)
		<-r.Context().Done()
	}))
	defer srv.Close()
	w := New(Config{AllowPrivate: true})
	defer w.Close()
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-started
		cancel()
	}()
	var open *openTool
	for _, tool := range w.Tools() {
		if o, ok := tool.(*openTool); ok {
			open = o
		}
	}
	r := open.Run(ctx, []byte(`{"url":"`+srv.URL+`/"}`), nil)
	if !r.IsError || !strings.Contains(r.Text(), "web_open: aborted while fetching "+srv.URL) {
		t.Errorf("aborted web_open = %q", r.Text())
	}
}

// TestCloseLeavesNoGoroutines checks that Close ends the connections'
// goroutines.
func TestCloseLeavesNoGoroutines(t *testing.T) {
	srv := httptest.NewServer(siteHandler(t))
	defer srv.Close()
	before := runtime.NumGoroutine()
	w := New(Config{AllowPrivate: true})
	for _, p := range []string{"/readme.md", "/docs/guide.html", "/long.txt"} {
		if r := call(t, w, "web_open", map[string]any{"url": srv.URL + p}); r.IsError {
			t.Fatal(r.Text())
		}
	}
	w.Close()
	for deadline := time.Now().Add(30 * time.Second); runtime.NumGoroutine() > before && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		buf := make([]byte, 1<<16)
		t.Errorf("%d goroutines after Close, %d before:\n%s", n, before, buf[:runtime.Stack(buf, true)])
	}
}
