package provider

import (
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strings"
	"sync"
	"time"
)

// The first request of a run would wait for a TCP connection and a TLS
// handshake, two round trips or more to a distant API. Warm makes them
// while zut starts (extensions, MCP servers, the session) and the user
// types, and the default client's first request to that host takes the
// connection (warmDial). Nothing is sent over it before that request: no
// header, no key.

// warmKeep is how long a warmed connection waits for its first request;
// then it is closed and the first request dials as it would have. It is
// short of the time servers give a connection to send its request (HTTP
// servers commonly wait 10 s to a minute before they drop it).
var warmKeep = 10 * time.Second

// warmed are the connections Warm made, by "host:port", until a request
// takes them or warmKeep passes. Whoever removes an entry owns its
// connection.
var warmed struct {
	sync.Mutex
	conns map[string]*warmConn
	// handed are the connections given to a request and not yet through
	// one round trip, by "host:port" (roundTripWarm).
	handed map[string]net.Conn
}

type warmConn struct {
	done chan struct{} // closed when the dial has ended
	conn *tls.Conn     // nil when it failed
	at   time.Time     // when the handshake ended
	keep time.Duration // warmKeep when it started
}

// Warm dials the host of baseURL and completes the TLS handshake in the
// background, for the default client's first request there. It does
// nothing, and returns false, for a URL that is not https, one a proxy
// serves ($HTTPS_PROXY) or a host already warm.
func Warm(baseURL string) bool {
	if !strings.HasPrefix(baseURL, "https://") {
		return false // before the transport is made: most runs of the tests, local servers
	}
	return warm(defaultTransportValue(), baseURL)
}

func warm(t *http.Transport, baseURL string) bool {
	u, err := url.Parse(baseURL)
	if err != nil || u.Scheme != "https" || u.Hostname() == "" {
		return false
	}
	if t.Proxy != nil {
		if p, err := t.Proxy(&http.Request{URL: u}); err != nil || p != nil {
			return false
		}
	}
	addr := httpsAddr(u)
	w := &warmConn{done: make(chan struct{}), keep: warmKeep}
	warmed.Lock()
	if _, ok := warmed.conns[addr]; ok {
		warmed.Unlock()
		return false
	}
	if warmed.conns == nil {
		warmed.conns = make(map[string]*warmConn)
	}
	warmed.conns[addr] = w
	warmed.Unlock()
	go func() {
		c, err := dialTLS(context.Background(), t, "tcp", addr)
		if err == nil {
			w.conn, w.at = c, time.Now()
		}
		close(w.done)
		if err != nil {
			removeWarm(addr, w) // the request dials, and reports the error
			return
		}
		time.AfterFunc(w.keep, func() {
			if removeWarm(addr, w) {
				w.conn.Close()
			}
		})
	}()
	return true
}

// httpsAddr is the "host:port" the transport dials for the https URL u.
func httpsAddr(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = "443"
	}
	return net.JoinHostPort(u.Hostname(), port)
}

// removeWarm removes addr's entry if it is still w.
func removeWarm(addr string, w *warmConn) bool {
	warmed.Lock()
	defer warmed.Unlock()
	if warmed.conns[addr] != w {
		return false
	}
	delete(warmed.conns, addr)
	return true
}

// takeWarm returns the warmed connection to addr, waiting for a handshake
// under way; nil when there is none, it failed, or it is no longer open.
func takeWarm(ctx context.Context, addr string) *tls.Conn {
	warmed.Lock()
	w := warmed.conns[addr]
	delete(warmed.conns, addr)
	warmed.Unlock()
	if w == nil {
		return nil
	}
	select {
	case <-w.done:
	case <-ctx.Done():
		go func() { // it is ours now: close it once made
			<-w.done
			if w.conn != nil {
				w.conn.Close()
			}
		}()
		return nil
	}
	if w.conn == nil {
		return nil
	}
	if time.Since(w.at) > w.keep || !stillOpen(w.conn.NetConn()) {
		w.conn.Close()
		return nil
	}
	return w.conn
}

// warmDial is the default transport's DialTLSContext: a warmed connection
// when there is one, else what the transport itself would do.
func warmDial(t *http.Transport) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		if c := takeWarm(ctx, addr); c != nil {
			warmed.Lock()
			if warmed.handed == nil {
				warmed.handed = make(map[string]net.Conn)
			}
			warmed.handed[addr] = c
			warmed.Unlock()
			return c, nil
		}
		return dialTLS(ctx, t, network, addr)
	}
}

// roundTripWarm is t.RoundTrip(r), and once more on a new connection when
// r failed on a warmed one before an answer (the server may have dropped
// it while it waited, which a peek cannot always tell: TLS 1.3 leaves
// session tickets unread). The transport itself retries only on
// connections it had used before.
func roundTripWarm(t *http.Transport, r *http.Request) (*http.Response, error) {
	addr := ""
	if r.URL.Scheme == "https" {
		addr = httpsAddr(r.URL)
	}
	warmed.Lock()
	pending := addr != "" && (warmed.conns[addr] != nil || warmed.handed[addr] != nil)
	warmed.Unlock()
	if !pending {
		return t.RoundTrip(r)
	}
	var got net.Conn
	trace := &httptrace.ClientTrace{GotConn: func(i httptrace.GotConnInfo) { got = i.Conn }}
	resp, err := t.RoundTrip(r.WithContext(httptrace.WithClientTrace(r.Context(), trace)))
	warmed.Lock()
	onWarm := got != nil && warmed.handed[addr] == got
	if onWarm {
		delete(warmed.handed, addr)
	}
	warmed.Unlock()
	if err == nil || !onWarm || r.Context().Err() != nil || (r.Body != nil && r.Body != http.NoBody && r.GetBody == nil) {
		return resp, err
	}
	again := r.Clone(r.Context())
	if r.GetBody != nil {
		body, berr := r.GetBody()
		if berr != nil {
			return resp, err
		}
		again.Body = body
	}
	return t.RoundTrip(again)
}

// dialTLS connects and shakes hands as the transport does without a
// DialTLSContext: its dialer, its TLS configuration (with the protocols
// it offers, HTTP/2 among them) for the host, its handshake timeout.
func dialTLS(ctx context.Context, t *http.Transport, network, addr string) (*tls.Conn, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	dial := t.DialContext
	if dial == nil {
		dial = (&net.Dialer{}).DialContext
	}
	raw, err := dial(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	cfg := t.TLSClientConfig.Clone()
	if cfg == nil {
		cfg = &tls.Config{}
	}
	if cfg.ServerName == "" {
		cfg.ServerName = host
	}
	tc := tls.Client(raw, cfg)
	hctx := ctx
	if t.TLSHandshakeTimeout > 0 {
		var cancel context.CancelFunc
		hctx, cancel = context.WithTimeout(ctx, t.TLSHandshakeTimeout)
		defer cancel()
	}
	if err := tc.HandshakeContext(hctx); err != nil {
		raw.Close()
		return nil, err
	}
	return tc, nil
}
