package provider

import (
	"context"
	"crypto/x509"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// warmServer is a TLS server that answers its protocol and reports each
// connection it accepts and each it sees closed.
type warmServer struct {
	*httptest.Server
	accepted chan net.Conn
	closed   chan net.Conn
}

func newWarmServer(t *testing.T, h2 bool) *warmServer {
	return newWarmServerFunc(t, h2, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, r.Proto) })
}

func newWarmServerFunc(t *testing.T, h2 bool, h http.HandlerFunc) *warmServer {
	s := &warmServer{accepted: make(chan net.Conn, 8), closed: make(chan net.Conn, 8)}
	s.Server = httptest.NewUnstartedServer(h)
	s.Config.ErrorLog = log.New(io.Discard, "", 0) // the closed connections' handshake errors
	s.EnableHTTP2 = h2
	s.Config.ConnState = func(c net.Conn, st http.ConnState) {
		switch st {
		case http.StateNew:
			s.accepted <- c
		case http.StateClosed:
			s.closed <- c
		}
	}
	s.StartTLS()
	t.Cleanup(s.Close)
	return s
}

// transport is a default-client transport that trusts the server.
func (s *warmServer) transport() *http.Transport {
	tr := newTransport()
	pool := x509.NewCertPool()
	pool.AddCert(s.Certificate())
	tr.TLSClientConfig.RootCAs = pool
	return tr
}

func (s *warmServer) addr(t *testing.T) string {
	u, err := url.Parse(s.URL)
	if err != nil {
		t.Fatal(err)
	}
	return u.Host
}

// handshaken waits until the warm dial to addr has ended.
func handshaken(t *testing.T, addr string) {
	warmed.Lock()
	w := warmed.conns[addr]
	warmed.Unlock()
	if w == nil {
		t.Fatalf("nothing is warming %s", addr)
	}
	select {
	case <-w.done:
	case <-time.After(30 * time.Second):
		t.Fatal("the warm dial did not end")
	}
}

// warmRT is the default client's round trip over tr.
type warmRT struct{ tr *http.Transport }

func (w warmRT) RoundTrip(r *http.Request) (*http.Response, error) { return roundTripWarm(w.tr, r) }

func get(t *testing.T, tr *http.Transport, u string) string {
	resp, err := (&http.Client{Transport: warmRT{tr}}).Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

func resetWarm(t *testing.T) {
	keep := warmKeep
	t.Cleanup(func() {
		warmKeep = keep
		warmed.Lock()
		for _, w := range warmed.conns {
			<-w.done
			if w.conn != nil {
				w.conn.Close()
			}
		}
		warmed.conns, warmed.handed = nil, nil
		warmed.Unlock()
	})
}

// TestWarmFirstRequest: Warm connects and shakes hands before any
// request, and the first request goes over that connection, with the
// protocol the server speaks.
func TestWarmFirstRequest(t *testing.T) {
	for _, tc := range []struct {
		name  string
		h2    bool
		proto string
	}{
		{"HTTP/1.1", false, "HTTP/1.1"},
		{"HTTP/2", true, "HTTP/2.0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resetWarm(t)
			s := newWarmServer(t, tc.h2)
			tr := s.transport()
			if !warm(tr, s.URL) {
				t.Fatal("warm did not start")
			}
			<-s.accepted // before any request
			handshaken(t, s.addr(t))
			if got := get(t, tr, s.URL); got != tc.proto {
				t.Errorf("the server saw %q, want %q", got, tc.proto)
			}
			select {
			case <-s.accepted:
				t.Error("the request dialed a second connection")
			default:
			}
			if !warm(tr, s.URL) {
				t.Error("the host cannot be warmed again once its connection was taken")
			}
		})
	}
}

// TestWarmNotTaken: a warmed connection that fails, waits too long or
// was closed by the server is not handed to the request, which dials and
// succeeds.
func TestWarmNotTaken(t *testing.T) {
	for _, tc := range []struct {
		name    string
		keep    time.Duration
		prepare func(t *testing.T, s *warmServer, server net.Conn)
	}{
		{"expired", time.Nanosecond, func(t *testing.T, s *warmServer, server net.Conn) {
			if c := <-s.closed; c != server { // the timer closed it
				t.Fatal("another connection closed")
			}
		}},
		// The peek may find the end or only the session tickets in front
		// of it; either way the request ends on a new connection.
		{"closed by the server", warmKeep, func(t *testing.T, s *warmServer, server net.Conn) {
			server.(interface{ NetConn() net.Conn }).NetConn().Close()
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resetWarm(t)
			warmKeep = tc.keep
			s := newWarmServer(t, false)
			tr := s.transport()
			if !warm(tr, s.URL) {
				t.Fatal("warm did not start")
			}
			server := <-s.accepted
			handshaken(t, s.addr(t))
			tc.prepare(t, s, server)
			if got := get(t, tr, s.URL); got != "HTTP/1.1" {
				t.Errorf("the server saw %q", got)
			}
			select {
			case <-s.accepted: // the request's own connection
			default:
				t.Error("the request used the warmed connection")
			}
		})
	}
}

// TestWarmFailed: a warm dial that fails leaves nothing behind; the
// request dials and reports its own error.
func TestWarmFailed(t *testing.T) {
	resetWarm(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now
	tr := newTransport()
	if !warm(tr, "https://"+addr) {
		t.Fatal("warm did not start")
	}
	handshaken(t, addr)
	_, err = (&http.Client{Transport: warmRT{tr}}).Get("https://" + addr)
	if err == nil || !strings.Contains(err.Error(), "refused") {
		t.Errorf("err = %v, want connection refused", err)
	}
	if c := takeWarm(context.Background(), addr); c != nil {
		t.Error("a failed warm dial left a connection")
	}
}

// TestWarmSkips: nothing is dialed for a plain http URL, a bad URL, a
// host a proxy serves, or a host already warm.
func TestWarmSkips(t *testing.T) {
	resetWarm(t)
	s := newWarmServer(t, false)
	proxied := s.transport()
	proxied.Proxy = func(*http.Request) (*url.URL, error) { return url.Parse("http://127.0.0.1:9") }
	tr := s.transport()
	for _, tc := range []struct {
		name string
		tr   *http.Transport
		url  string
		want bool
	}{
		{"http", tr, "http://" + s.addr(t), false},
		{"not a URL", tr, "://x", false},
		{"no host", tr, "https:///v1", false},
		{"through a proxy", proxied, s.URL, false},
		{"https", tr, s.URL, true},
		{"already warm", tr, s.URL, false},
	} {
		if got := warm(tc.tr, tc.url); got != tc.want {
			t.Errorf("%s: warm(%q) = %v, want %v", tc.name, tc.url, got, tc.want)
		}
	}
	<-s.accepted
	handshaken(t, s.addr(t))
	select {
	case <-s.accepted:
		t.Error("more than one connection was dialed")
	default:
	}
}

// TestWarmRetry: a request that fails on its warmed connection before an
// answer is sent again on a new one; on any other connection the failure
// is the caller's (the provider's own retries decide).
func TestWarmRetry(t *testing.T) {
	for _, tc := range []struct {
		name   string
		warm   bool
		wantOK bool
	}{
		{"on the warmed connection", true, true},
		{"on a dialed connection", false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resetWarm(t)
			var answered atomic.Bool
			s := newWarmServerFunc(t, false, func(w http.ResponseWriter, r *http.Request) {
				if !answered.Swap(true) { // the server drops the connection with the request unanswered
					c, _, _ := w.(http.Hijacker).Hijack()
					c.Close()
					return
				}
				io.WriteString(w, "second")
			})
			tr := s.transport()
			if tc.warm {
				warm(tr, s.URL)
				<-s.accepted
				handshaken(t, s.addr(t))
			}
			req, _ := http.NewRequest(http.MethodPost, s.URL, strings.NewReader("the body"))
			resp, err := (&http.Client{Transport: warmRT{tr}}).Do(req)
			if !tc.wantOK {
				if err == nil {
					resp.Body.Close()
					t.Fatal("the request was sent again on a connection that was not warmed")
				}
				return
			}
			if err != nil {
				t.Fatalf("not sent again: %v", err)
			}
			defer resp.Body.Close()
			if b, _ := io.ReadAll(resp.Body); string(b) != "second" {
				t.Errorf("answer %q", b)
			}
		})
	}
}
