package loopback

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// start serves /cb on a fresh loopback port; the handler echoes the
// query's "code" and records every query it sees.
func start(t *testing.T, timeout time.Duration) (*Server, string, func() []url.Values) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var seen []url.Values
	s := serve(ln, "/cb", func(q url.Values) Page {
		mu.Lock()
		seen = append(seen, q)
		mu.Unlock()
		if q.Get("code") == "" {
			return Page{Status: 400, Body: "<p>no code</p>"}
		}
		return Page{Body: "<p>code " + q.Get("code") + "</p>"}
	}, timeout)
	t.Cleanup(s.Close)
	return s, ln.Addr().String(), func() []url.Values {
		mu.Lock()
		defer mu.Unlock()
		return append([]url.Values(nil), seen...)
	}
}

// roundTrip writes raw to addr and returns everything the server sends
// before it closes the connection.
func roundTrip(t *testing.T, addr, raw string) string {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := io.WriteString(c, raw); err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(c)
	if err != nil {
		t.Fatalf("read the answer to %q: %v (got %q)", raw, err, b)
	}
	return string(b)
}

func TestRequests(t *testing.T) {
	_, addr, seen := start(t, readTimeout)
	huge := "GET /cb?code=x HTTP/1.1\r\nHost: a\r\nX-Big: " + strings.Repeat("b", MaxHeader) + "\r\n\r\n"
	tests := []struct {
		name   string
		raw    string
		status string // the status line
		body   string
		calls  int // handler calls it adds
	}{
		{"ok", "GET /cb?code=abc&state=s HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", "HTTP/1.1 200 OK", "<p>code abc</p>", 1},
		{"two requests on one connection", "GET /cb?code=one HTTP/1.1\r\n\r\nGET /cb?code=two HTTP/1.1\r\n\r\n", "HTTP/1.1 200 OK", "<p>code one</p>", 1},
		{"HTTP/1.0, bare LF", "GET /cb?code=abc HTTP/1.0\n\n", "HTTP/1.1 200 OK", "<p>code abc</p>", 1},
		{"no query", "GET /cb HTTP/1.1\r\n\r\n", "HTTP/1.1 400 Bad Request", "<p>no code</p>", 1},
		{"escaped query", "GET /cb?code=a%20b%3Cc HTTP/1.1\r\n\r\n", "HTTP/1.1 200 OK", "<p>code a b<c</p>", 1},
		{"wrong path", "GET /other?code=x HTTP/1.1\r\n\r\n", "HTTP/1.1 404 Not Found", "not found\n", 0},
		{"path prefix", "GET /cb/x?code=x HTTP/1.1\r\n\r\n", "HTTP/1.1 404 Not Found", "not found\n", 0},
		{"wrong method", "POST /cb?code=x HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc", "HTTP/1.1 405 Method Not Allowed", "method not allowed\n", 0},
		{"HEAD", "HEAD /cb?code=x HTTP/1.1\r\n\r\n", "HTTP/1.1 405 Method Not Allowed", "method not allowed\n", 0},
		{"lower-case method", "get /cb?code=x HTTP/1.1\r\n\r\n", "HTTP/1.1 400 Bad Request", "bad request\n", 0},
		{"HTTP/2 preface", "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", "HTTP/1.1 400 Bad Request", "bad request\n", 0},
		{"no version", "GET /cb?code=x\r\n\r\n", "HTTP/1.1 400 Bad Request", "bad request\n", 0},
		{"extra field", "GET /cb?code=x HTTP/1.1 x\r\n\r\n", "HTTP/1.1 400 Bad Request", "bad request\n", 0},
		{"absolute URL", "GET http://127.0.0.1/cb?code=x HTTP/1.1\r\n\r\n", "HTTP/1.1 400 Bad Request", "bad request\n", 0},
		{"asterisk", "OPTIONS * HTTP/1.1\r\n\r\n", "HTTP/1.1 400 Bad Request", "bad request\n", 0},
		{"bad escape in query", "GET /cb?code=%zz HTTP/1.1\r\n\r\n", "HTTP/1.1 400 Bad Request", "bad request\n", 0},
		{"control byte in target", "GET /cb?code=\x01 HTTP/1.1\r\n\r\n", "HTTP/1.1 400 Bad Request", "bad request\n", 0},
		{"header without colon", "GET /cb?code=x HTTP/1.1\r\nHost\r\n\r\n", "HTTP/1.1 400 Bad Request", "bad request\n", 0},
		{"continuation line", "GET /cb?code=x HTTP/1.1\r\nA: b\r\n c\r\n\r\n", "HTTP/1.1 400 Bad Request", "bad request\n", 0},
		{"huge request line", "GET /cb?code=" + strings.Repeat("x", MaxHeader) + " HTTP/1.1\r\n\r\n", "HTTP/1.1 431 Request Header Fields Too Large", "request header too large\n", 0},
		{"huge header", huge, "HTTP/1.1 431 Request Header Fields Too Large", "request header too large\n", 0},
		{"many headers", "GET /cb?code=x HTTP/1.1\r\n" + strings.Repeat("A: b\r\n", MaxHeader/6+1) + "\r\n", "HTTP/1.1 431 Request Header Fields Too Large", "request header too large\n", 0},
	}
	calls := 0
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := roundTrip(t, addr, tc.raw)
			head, body, ok := strings.Cut(got, "\r\n\r\n")
			if !ok {
				t.Fatalf("answer %q has no head", got)
			}
			status, _, _ := strings.Cut(head, "\r\n")
			if status != tc.status || body != tc.body {
				t.Errorf("%q: got %q, body %q; want %q, body %q", tc.raw, status, body, tc.status, tc.body)
			}
			if !strings.Contains(head, "\r\nConnection: close") {
				t.Errorf("%q: head %q lacks Connection: close", tc.raw, head)
			}
			calls += tc.calls
			if n := len(seen()); n != calls {
				t.Errorf("%q: the handler ran %d times in all, want %d", tc.raw, n, calls)
			}
		})
	}
}

// TestHTTPClient: net/http's client reads the answers (status, headers,
// body, a second request on a new connection).
func TestHTTPClient(t *testing.T) {
	_, addr, seen := start(t, readTimeout)
	for i, code := range []string{"one", "two"} {
		resp, err := http.Get("http://" + addr + "/cb?code=" + code)
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != 200 || string(b) != "<p>code "+code+"</p>" || resp.Header.Get("Content-Type") != "text/html; charset=utf-8" {
			t.Errorf("GET %d: %d %q %q", i, resp.StatusCode, resp.Header.Get("Content-Type"), b)
		}
	}
	resp, err := http.Post("http://"+addr+"/cb?code=x", "text/plain", strings.NewReader(strings.Repeat("body", 10000)))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 405 || resp.Header.Get("Allow") != "GET" {
		t.Errorf("POST: %d, Allow %q; want 405, GET", resp.StatusCode, resp.Header.Get("Allow"))
	}
	if n := len(seen()); n != 2 {
		t.Errorf("the handler ran %d times, want 2", n)
	}
}

// TestSlowClient: a connection that sends part of a request and stalls
// (slowloris), and one that sends nothing, do not hold up a request on
// another connection; the stalled ones are closed at the read deadline.
func TestSlowClient(t *testing.T) {
	_, addr, _ := start(t, time.Second) // the fast request must be read within it, even on a loaded machine
	slow, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Close()
	if _, err := io.WriteString(slow, "GET /cb?code=x HTTP/1.1\r\nHost: 127.0.0.1\r\nX-A"); err != nil {
		t.Fatal(err)
	}
	idle, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close()

	if got := roundTrip(t, addr, "GET /cb?code=fast HTTP/1.1\r\n\r\n"); !strings.HasSuffix(got, "<p>code fast</p>") {
		t.Errorf("the request beside the stalled ones got %q", got)
	}
	for _, c := range []net.Conn{slow, idle} {
		// The server closes them without an answer: EOF, no bytes.
		b, err := io.ReadAll(c)
		if err != nil || len(b) != 0 {
			t.Errorf("a stalled connection read %q, %v; want a close without an answer", b, err)
		}
	}
}

// TestClose: Close ends the server's goroutines, closing idle
// connections, and refuses new ones.
func TestClose(t *testing.T) {
	s, addr, _ := start(t, readTimeout)
	idle, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close()
	// Wait until the server holds the connection.
	for {
		s.mu.Lock()
		n := len(s.conns)
		s.mu.Unlock()
		if n == 1 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	s.Close()
	if b, err := io.ReadAll(idle); err != nil || len(b) != 0 {
		t.Errorf("the idle connection read %q, %v after Close", b, err)
	}
	if c, err := net.Dial("tcp", addr); err == nil {
		c.Close()
		t.Errorf("Dial after Close succeeded")
	}
	s.Close() // twice is fine
}

func TestReadLine(t *testing.T) {
	tests := []struct {
		in    string
		limit int
		line  string
		err   error
	}{
		{"abc\r\n", 10, "abc", nil},
		{"abc\n", 4, "abc", nil},
		{"abc\r\n", 4, "", tooLong{}},
		{"\r\n", 2, "", nil},
		{"abc", 10, "", io.EOF},
		{strings.Repeat("x", 3000) + "\n", 3001, strings.Repeat("x", 3000), nil},
		{strings.Repeat("x", 3000) + "\n", 3000, "", tooLong{}},
	}
	for _, tc := range tests {
		r := bufio.NewReaderSize(strings.NewReader(tc.in), 16)
		line, _, err := readLine(r, tc.limit)
		if string(line) != tc.line || err != tc.err {
			t.Errorf("readLine(%.20q, %d) = %.20q, %v; want %.20q, %v", tc.in, tc.limit, line, err, tc.line, tc.err)
		}
	}
}
