package sandbox

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/zut-go/zut/agent/internal/golden"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// testProxy is a proxy on a loopback listener of the test: names resolve
// through a table (public addresses of the documentation's choosing
// aside) and every checked address is dialled at upstream.
func testProxy(t *testing.T, hosts []string, upstream string) (*proxy, string) {
	t.Helper()
	p := newProxy(hosts)
	dns := map[string][]netip.Addr{
		"docs.example.com":     {netip.MustParseAddr("93.184.216.34")},
		"a.example.org":        {netip.MustParseAddr("2606:2800:220:1:248:1893:25c8:1946")},
		"intranet.example.com": {netip.MustParseAddr("10.1.2.3")},
		"rebind.example.com":   {netip.MustParseAddr("127.0.0.1"), netip.MustParseAddr("169.254.169.254")},
	}
	p.lookup = func(ctx context.Context, host string) ([]netip.Addr, error) {
		if a, ok := dns[host]; ok {
			return a, nil
		}
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	p.dial = func(ctx context.Context, addr string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "tcp", upstream)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p.serve(l)
	t.Cleanup(func() { p.close(); waitProxies(t) })
	return p, l.Addr().String()
}

// echo answers with what it received: method, URI, host and the names
// of the headers, and the body.
func echo(w http.ResponseWriter, r *http.Request) {
	var names []string
	for k := range r.Header {
		names = append(names, k)
	}
	sort.Strings(names)
	body, _ := io.ReadAll(r.Body)
	fmt.Fprintf(w, "%s %s host=%s headers=%s body=%q\n", r.Method, r.RequestURI, r.Host, strings.Join(names, ","), body)
}

// exchange writes req on a connection to the proxy, closes its writing
// half and returns all the proxy answers, without Date headers.
func exchange(t *testing.T, addr, req string) string {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := io.WriteString(c, req); err != nil {
		t.Fatal(err)
	}
	c.(*net.TCPConn).CloseWrite()
	b, err := io.ReadAll(c)
	if err != nil {
		t.Fatalf("read the answer: %v", err)
	}
	var out []string
	for _, l := range strings.SplitAfter(string(b), "\n") {
		if !strings.HasPrefix(l, "Date: ") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "")
}

// TestProxyAnswers: the proxy's answer to each kind of request, plain
// HTTP forwarded (hop-by-hop headers dropped), CONNECT tunnelled, and
// each refusal with the text that says why, against
// testdata/proxy.golden.
func TestProxyAnswers(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(echo))
	defer up.Close()
	_, addr := testProxy(t, []string{"docs.example.com", "*.example.org", "intranet.example.com", "rebind.example.com", "10.9.9.9"}, up.Listener.Addr().String())
	tests := []struct{ name, req string }{
		{"get", "GET http://docs.example.com/page?q=1 HTTP/1.1\r\nHost: docs.example.com\r\nProxy-Connection: keep-alive\r\nProxy-Authorization: Basic eDp5\r\nConnection: close, X-Hop\r\nX-Hop: 1\r\nAccept: */*\r\n\r\n"},
		{"two on one connection", "GET http://docs.example.com/1 HTTP/1.1\r\nHost: docs.example.com\r\n\r\nHEAD http://a.example.org:8080/2 HTTP/1.1\r\nHost: a.example.org:8080\r\n\r\n"},
		{"post with expect", "POST http://a.example.org/form HTTP/1.1\r\nHost: a.example.org\r\nContent-Length: 5\r\nExpect: 100-continue\r\nConnection: close\r\n\r\nhello"},
		{"chunked body", "PUT http://docs.example.com/up HTTP/1.1\r\nHost: docs.example.com\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n3\r\nabc\r\n0\r\n\r\n"},
		{"connect", "CONNECT docs.example.com:443 HTTP/1.1\r\nHost: docs.example.com:443\r\n\r\nGET /inside HTTP/1.1\r\nHost: docs.example.com\r\nConnection: close\r\n\r\n"},
		{"not listed", "GET http://github.com/ HTTP/1.1\r\nHost: github.com\r\n\r\n"},
		{"not listed connect", "CONNECT api.github.com:443 HTTP/1.1\r\n\r\n"},
		{"apex of a wildcard", "GET http://example.org/ HTTP/1.1\r\n\r\n"},
		{"private address", "GET http://intranet.example.com/ HTTP/1.1\r\n\r\n"},
		{"rebinding to loopback", "CONNECT rebind.example.com:443 HTTP/1.1\r\n\r\n"},
		{"private address listed", "GET http://10.9.9.9/x HTTP/1.1\r\nConnection: close\r\n\r\n"},
		{"loopback not listed", "GET http://127.0.0.1:8080/ HTTP/1.1\r\n\r\n"},
		{"no such host", "GET http://nx.example.org/ HTTP/1.1\r\n\r\n"},
		{"origin form", "GET /page HTTP/1.1\r\nHost: docs.example.com\r\n\r\n"},
		{"https URL", "GET https://docs.example.com/ HTTP/1.1\r\n\r\n"},
		{"ftp URL", "GET ftp://docs.example.com/ HTTP/1.1\r\n\r\n"},
		{"connect without port", "CONNECT docs.example.com HTTP/1.1\r\n\r\n"},
		{"connect port 0", "CONNECT docs.example.com:0 HTTP/1.1\r\n\r\n"},
		{"header too large", "GET http://docs.example.com/ HTTP/1.1\r\nX-Big: " + strings.Repeat("a", proxyMaxHeader) + "\r\n\r\n"},
		{"garbage", "\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n"},
		{"empty", ""},
	}
	var b strings.Builder
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req := tc.req
			if len(req) > 200 {
				req = req[:200] + "..."
			}
			fmt.Fprintf(&b, "-- %s\n%q\n%s\n", tc.name, req, exchange(t, addr, tc.req))
		})
	}
	golden.Check(t, "proxy.golden", b.String(), *update)
}

// TestProxyLimits: the connection past proxyMaxConns is answered 503 at
// once; past as many such answers still being given, a connection is
// closed unanswered; and close ends the proxy with every connection
// open, a tunnel included.
func TestProxyLimits(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(echo))
	defer up.Close()
	p, addr := testProxy(t, []string{"docs.example.com"}, up.Listener.Addr().String())
	p.lingerFor = time.Minute // the 503s wait for their clients, which do not end
	tunnel, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer tunnel.Close()
	io.WriteString(tunnel, "CONNECT docs.example.com:80 HTTP/1.1\r\n\r\n")
	if line, err := bufio.NewReader(tunnel).ReadString('\n'); err != nil || !strings.HasPrefix(line, "HTTP/1.1 200") {
		t.Fatalf("CONNECT: %q, %v", line, err)
	}
	var idle []net.Conn
	for range proxyMaxConns - 1 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		idle = append(idle, c)
	}
	if got := exchange(t, addr, "GET http://docs.example.com/ HTTP/1.1\r\n\r\n"); !strings.HasPrefix(got, "HTTP/1.1 503") {
		t.Errorf("connection %d: answer %q, want 503", proxyMaxConns+1, got)
	}
	for i := range proxyMaxConns {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		idle = append(idle, c)
		if line, err := bufio.NewReader(c).ReadString('\n'); !strings.HasPrefix(line, "HTTP/1.1 503") {
			t.Fatalf("busy connection %d: %q, %v; want 503", i, line, err)
		}
	}
	last, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer last.Close()
	if b, err := io.ReadAll(last); len(b) > 0 { // EOF or a reset
		t.Errorf("connection past the 503s: answer %q, %v; want it closed unanswered", b, err)
	}
	p.close()
	waitProxies(t)
	for _, c := range append(idle, tunnel) {
		if n, err := c.Read(make([]byte, 1)); err == nil {
			t.Fatalf("read %d bytes after close; want the connection closed", n)
		}
	}
}

// FuzzProxyRequest: the proxy reads any bytes a command sends without a
// panic or a hang; a request it accepts has a host and a port, and the
// handler (every host refused: nothing is dialled) answers and ends when
// the client has.
func FuzzProxyRequest(f *testing.F) {
	f.Add([]byte("GET http://docs.example.com/ HTTP/1.1\r\nHost: x\r\n\r\n"))
	f.Add([]byte("CONNECT [::1]:443 HTTP/1.1\r\n\r\n"))
	f.Add([]byte("CONNECT a:b:c HTTP/1.1\r\n\r\n"))
	f.Add([]byte("POST http://h/ HTTP/1.1\r\nContent-Length: 3\r\nExpect: 100-continue\r\n\r\nabc"))
	f.Add([]byte("GET /x HTTP/1.0\r\n\r\n"))
	f.Add([]byte("\x00\x01\r\n\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		lr := &io.LimitedReader{R: bytes.NewReader(data), N: proxyMaxHeader}
		req, tg, err := readRequest(bufio.NewReader(lr), lr)
		if err == nil {
			if tg.host == "" || !validPort(tg.port) || tg.connect != (req.Method == http.MethodConnect) {
				t.Fatalf("readRequest(%q) = target %+v", data, tg)
			}
		}
		p := newProxy(nil)
		client, server := net.Pipe()
		done := make(chan struct{})
		go func() { defer close(done); p.handle(server); server.Close() }()
		read := make(chan struct{})
		go func() { defer close(read); io.Copy(io.Discard, client) }() // the answer, read while writing
		client.Write(data)
		client.Close()
		<-done
		<-read
		p.close()
	})
}

// BenchmarkProxyGet is one plain HTTP request through the proxy (a new
// client connection each time, as curl makes) to a local server.
func BenchmarkProxyGet(b *testing.B) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") }))
	defer up.Close()
	p := newProxy([]string{"127.0.0.1"})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	p.serve(l)
	defer p.close()
	req := "GET " + up.URL + "/ HTTP/1.1\r\nConnection: close\r\n\r\n"
	for b.Loop() {
		c, err := net.Dial("tcp", l.Addr().String())
		if err != nil {
			b.Fatal(err)
		}
		io.WriteString(c, req)
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil || resp.StatusCode != 200 {
			b.Fatalf("%v %v", resp, err)
		}
		io.Copy(io.Discard, resp.Body)
		c.Close()
	}
}
