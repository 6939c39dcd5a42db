package web

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"flag"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zut-go/zut/agent/tools"
)

var update = flag.Bool("update", false, "rewrite golden files")

// publicIP is the public address the fake DNS gives the test site's names.
var publicIP = netip.MustParseAddr("93.184.215.14")

// testNet is a fake network: names resolve through a table, and every
// connection the fetcher makes after its checks goes to one local server.
// It records the addresses dialled.
type testNet struct {
	hosts     map[string][]netip.Addr
	target    string // host:port of the local server
	targetTLS string // host:port of the local TLS server, for port 443

	mu    sync.Mutex
	dials []string
	paths []string // the requests the site received
}

// record wraps h to log the paths it serves.
func (n *testNet) record(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.mu.Lock()
		n.paths = append(n.paths, r.URL.Path)
		n.mu.Unlock()
		h.ServeHTTP(w, r)
	})
}

func (n *testNet) requests() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]string(nil), n.paths...)
}

func (n *testNet) lookup(ctx context.Context, host string) ([]netip.Addr, error) {
	if a, ok := n.hosts[host]; ok {
		return a, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

func (n *testNet) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	n.mu.Lock()
	n.dials = append(n.dials, addr)
	n.mu.Unlock()
	target := n.target
	if strings.HasSuffix(addr, ":443") && n.targetTLS != "" {
		target = n.targetTLS
	}
	var d net.Dialer
	return d.DialContext(ctx, network, target)
}

// tlsServer starts a TLS server for h with a certificate for hosts, and
// returns it with a pool that trusts the certificate.
func tlsServer(t testing.TB, h http.Handler, hosts ...string) (*httptest.Server, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: hosts[0]}, DNSNames: hosts,
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, IsCA: true, BasicConstraintsValid: true,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(h)
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key, Leaf: cert}}}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return srv, pool
}

func (n *testNet) dialed() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]string(nil), n.dials...)
}

// site starts the test site and returns a Web whose fake DNS puts
// docs.test (and the other test names) on a public address, with
// AllowPrivate off: the tests go through the real checks.
func site(t testing.TB, mod func(*Config)) (*Web, *testNet, *httptest.Server) {
	t.Helper()
	n := &testNet{}
	srv := httptest.NewServer(n.record(siteHandler(t)))
	t.Cleanup(srv.Close)
	n.target = srv.Listener.Addr().String()
	n.hosts = map[string][]netip.Addr{
		"docs.test":     {publicIP},
		"api.test":      {publicIP},
		"internal.test": {netip.MustParseAddr("127.0.0.1")},
		"mapped.test":   {netip.MustParseAddr("::ffff:10.1.2.3")},
		"mixed.test":    {netip.MustParseAddr("10.0.0.7"), publicIP},
		"metadata.test": {netip.MustParseAddr("169.254.169.254")},
	}
	cfg := Config{Version: "1.2.3", LookupIP: n.lookup, Dial: n.dial}
	if mod != nil {
		mod(&cfg)
	}
	w := New(cfg)
	t.Cleanup(w.Close)
	return w, n, srv
}

// siteHandler serves testdata/site and the special pages of the tests.
func siteHandler(t testing.TB) http.Handler {
	mux := http.NewServeMux()
	types := map[string]string{
		".html": "text/html; charset=utf-8", ".txt": "text/plain; charset=utf-8", ".json": "application/json",
		".md": "text/markdown", ".pdf": "application/pdf", ".png": "image/png",
	}
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		name := filepath.Join("testdata", "site", filepath.Base(r.URL.Path))
		body, err := os.ReadFile(name)
		if err != nil || r.URL.Path == "/" {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, "<html><head><title>Not found</title></head><body><h1>404</h1><p>There is no page at this address.</p></body></html>")
			return
		}
		ct := types[filepath.Ext(name)]
		if filepath.Base(name) == "latin1.html" {
			ct = "text/html" // the charset is in the page's <meta>
		}
		w.Header().Set("Content-Type", ct)
		w.Write(body)
	})
	redirect := func(path, to string, code int) {
		mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Location", to)
			w.WriteHeader(code)
		})
	}
	redirect("/redirect", "/guide.html", http.StatusMovedPermanently)
	redirect("/chain", "/redirect", http.StatusFound)
	redirect("/loop", "/loop", http.StatusFound)
	redirect("/to-private", "http://internal.test/secret", http.StatusFound)
	redirect("/to-metadata", "http://metadata.test/latest/meta-data/", http.StatusFound)
	redirect("/to-port", "http://docs.test:8080/guide.html", http.StatusFound)
	redirect("/to-ftp", "ftp://files.test/guide.txt", http.StatusFound)
	redirect("/to-api", "http://api.test/readme.md", http.StatusFound)
	mux.HandleFunc("/secret", func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("the private page was fetched (Host %s)", r.Host)
	})
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<html><head><title>Big page</title></head><body>")
		para := "<p>" + strings.Repeat("filler text ", 80) + "</p>\n"
		for written := 0; written < 6<<20; written += len(para) {
			fmt.Fprint(w, para)
		}
		fmt.Fprint(w, "<p>the end</p></body></html>")
	})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done() // until the client gives up
	})
	mux.HandleFunc("/slow-body", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<html><body><p>first part")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})
	mux.HandleFunc("/js-only", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<html><head><title>App</title></head><body><div id="root"></div><script src="/app.js"></script></body></html>`)
	})
	mux.HandleFunc("/octet", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/octet-stream")
		fmt.Fprint(w, "plain words served as octets\nsecond line\n")
	})
	mux.HandleFunc("/no-type", func(w http.ResponseWriter, r *http.Request) {
		w.Header()["Content-Type"] = nil // no sniffing by net/http either
		fmt.Fprint(w, "<!DOCTYPE html><title>Untyped</title><p>sniffed as HTML</p>")
	})
	mux.HandleFunc("/octet-pdf", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "%PDF-1.4\n% a PDF served as text\n")
	})
	mux.HandleFunc("/headers", func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: "session", Value: "s3cr3t"})
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprintf(w, "user-agent: %s\ncookie: %s\nauthorization: %s\n", r.UserAgent(), r.Header.Get("Cookie"), r.Header.Get("Authorization"))
	})
	return mux
}

// call runs a tool of w by name.
func call(t testing.TB, w *Web, name string, args any) tools.Result {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range w.Tools() {
		if tool.Definition().Name == name {
			return tool.Run(context.Background(), raw, nil)
		}
	}
	t.Fatalf("no tool %s", name)
	return tools.Result{}
}

// golden compares got with testdata/golden/<name>.golden.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name+".golden")
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from %s:\n--- got\n%s\n--- want\n%s", name, path, got, want)
	}
}

// details decodes the Details of r into v.
func details(t testing.TB, r tools.Result, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Details, v); err != nil {
		t.Fatalf("Details %s: %v", r.Details, err)
	}
}
