package sandbox

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Limits of the proxy of NetworkProxy.
const (
	proxyMaxHeader   = 64 << 10         // bytes of a request's or a response's header
	proxyMaxConns    = 64               // connections served at once; more get 503
	proxyIdle        = 2 * time.Minute  // a connection with no byte either way is closed
	proxyDialTimeout = 30 * time.Second // DNS and TCP connect of one upstream
	proxyMaxRefused  = 16               // refused hosts remembered for Explain
)

// proxyGoroutines counts the goroutines of every proxy of the process
// (tests check that they end).
var proxyGoroutines atomic.Int64

// proxy is the HTTP proxy a NetworkProxy command reaches at 127.0.0.1 in
// its network namespace: CONNECT tunnels and plain HTTP requests with an
// absolute URL, to the hosts of its policy only. zut resolves the names
// (the command has no DNS) and dials from its own network. It is owned by
// a Confined, whose Close stops it.
type proxy struct {
	hosts []string
	// lookup resolves a name; dial connects to a checked address.
	lookup func(ctx context.Context, host string) ([]netip.Addr, error)
	dial   func(ctx context.Context, addr string) (net.Conn, error)
	// lingerFor bounds the reading of the rest of a request after an
	// answer that ends the connection.
	lingerFor time.Duration

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu      sync.Mutex
	closed  bool
	l       net.Listener
	conns   map[net.Conn]struct{} // the accepted and the upstream connections
	refused []string
}

func newProxy(hosts []string) *proxy {
	ctx, cancel := context.WithCancel(context.Background())
	d := &net.Dialer{Timeout: proxyDialTimeout, KeepAlive: 30 * time.Second}
	return &proxy{
		hosts: append([]string(nil), hosts...),
		lookup: func(ctx context.Context, host string) ([]netip.Addr, error) {
			return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		},
		dial:      func(ctx context.Context, addr string) (net.Conn, error) { return d.DialContext(ctx, "tcp", addr) },
		lingerFor: 5 * time.Second,
		ctx:       ctx,
		cancel:    cancel,
		conns:     map[net.Conn]struct{}{},
	}
}

// go runs f as one of the proxy's goroutines, which close joins.
func (p *proxy) goFunc(f func()) {
	p.wg.Add(1)
	proxyGoroutines.Add(1)
	go func() {
		defer proxyGoroutines.Add(-1)
		defer p.wg.Done()
		f()
	}()
}

// serve accepts on l until close; it takes l over (close closes it).
func (p *proxy) serve(l net.Listener) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		l.Close()
		return
	}
	p.l = l
	p.mu.Unlock()
	p.goFunc(func() { // the accept loop: ends when close closes l
		sem := make(chan struct{}, proxyMaxConns)
		// refusals of connections past the limit, each answered 503
		// while the rest of its request is read; past as many again a
		// connection is closed unanswered, so that a command opening
		// connections in a loop holds at most twice the limit of zut's
		// files
		busy := make(chan struct{}, proxyMaxConns)
		for {
			c, err := l.Accept()
			if errors.Is(err, net.ErrClosed) {
				return
			}
			if err != nil { // out of file descriptors, an aborted connection
				time.Sleep(100 * time.Millisecond)
				continue
			}
			if !p.track(c) {
				c.Close()
				return
			}
			select {
			case sem <- struct{}{}:
				p.goFunc(func() {
					defer func() { <-sem }()
					defer p.untrack(c)
					p.handle(c)
				})
				continue
			default:
			}
			select {
			case busy <- struct{}{}:
				p.goFunc(func() {
					defer func() { <-busy }()
					defer p.untrack(c)
					c.SetWriteDeadline(time.Now().Add(10 * time.Second))
					if writeStatus(c, http.StatusServiceUnavailable, fmt.Sprintf("zut's sandbox proxy serves %d connections at once; try again when some have ended\n", proxyMaxConns)) {
						p.linger(c)
					}
				})
			default:
				p.untrack(c)
			}
		}
	})
}

// track adds c to the connections close closes; false when the proxy is
// closed already.
func (p *proxy) track(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return false
	}
	p.conns[c] = struct{}{}
	return true
}

func (p *proxy) untrack(c net.Conn) {
	p.mu.Lock()
	delete(p.conns, c)
	p.mu.Unlock()
	c.Close()
}

// close stops the proxy: the listener and every connection are closed,
// and close returns when every goroutine of the proxy has ended. It may
// be called more than once.
func (p *proxy) close() {
	p.mu.Lock()
	if !p.closed {
		p.closed = true
		p.cancel()
		if p.l != nil {
			p.l.Close()
		}
		for c := range p.conns {
			c.Close()
		}
	}
	p.mu.Unlock()
	p.wg.Wait()
}

// refusals are the hosts the proxy refused, first first.
func (p *proxy) refusals() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.refused...)
}

func (p *proxy) refuse(host string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, h := range p.refused {
		if h == host {
			return
		}
	}
	if len(p.refused) < proxyMaxRefused {
		p.refused = append(p.refused, host)
	}
}

// target is where a request to the proxy goes.
type target struct {
	host    string // as the client wrote it, without port and brackets
	port    string
	connect bool // a CONNECT tunnel; otherwise a plain HTTP request
}

func (t target) addr() string { return net.JoinHostPort(t.host, t.port) }

// readRequest reads one request from br with the proxy's bounds (lr
// limits br's source; its budget is the header's) and returns it with
// its target. A request the proxy does not serve is an error whose text
// is the answer.
func readRequest(br *bufio.Reader, lr *io.LimitedReader) (*http.Request, target, error) {
	lr.N = proxyMaxHeader
	req, err := http.ReadRequest(br)
	exhausted := lr.N <= 0
	lr.N = math.MaxInt64
	if err != nil {
		if exhausted {
			return nil, target{}, errHeaderTooLarge
		}
		return nil, target{}, err
	}
	t, err := requestTarget(req)
	return req, t, err
}

// errHeaderTooLarge is a request whose header is over proxyMaxHeader.
const errHeaderTooLarge = proxyError("the request's header is over 64 KiB")

// proxyError is a constant error (a package-level fmt.Errorf would run at
// every start).
type proxyError string

func (e proxyError) Error() string { return string(e) }

// errBadRequest is a request the proxy does not serve; its text is the
// body of the 400 answer.
type errBadRequest string

func (e errBadRequest) Error() string { return string(e) }

// requestTarget is where req goes: the authority of a CONNECT, or the
// host of an absolute http:// URL.
func requestTarget(req *http.Request) (target, error) {
	if req.Method == http.MethodConnect {
		host, port, err := net.SplitHostPort(req.RequestURI)
		if err != nil || host == "" || !validPort(port) {
			return target{}, errBadRequest(fmt.Sprintf("CONNECT %q: the target must be host:port", req.RequestURI))
		}
		return target{host: host, port: port, connect: true}, nil
	}
	u := req.URL
	if u == nil || !u.IsAbs() || u.Host == "" {
		return target{}, errBadRequest(fmt.Sprintf("%s %s: this is zut's sandbox proxy; send it absolute http:// URLs or CONNECT host:port (it is $HTTP_PROXY and $HTTPS_PROXY)", req.Method, req.RequestURI))
	}
	switch {
	case strings.EqualFold(u.Scheme, "https"):
		return target{}, errBadRequest(fmt.Sprintf("%s %s: the proxy forwards http:// URLs; https:// goes through CONNECT ($HTTPS_PROXY)", req.Method, u.Redacted()))
	case !strings.EqualFold(u.Scheme, "http"):
		return target{}, errBadRequest(fmt.Sprintf("%s %s: the proxy serves http:// URLs and CONNECT tunnels only", req.Method, u.Redacted()))
	}
	port := u.Port()
	if port == "" {
		port = "80"
	}
	if u.Hostname() == "" || !validPort(port) {
		return target{}, errBadRequest(fmt.Sprintf("%s %s: bad host or port", req.Method, u.Redacted()))
	}
	return target{host: u.Hostname(), port: port}, nil
}

func validPort(s string) bool {
	n, err := strconv.ParseUint(s, 10, 16)
	return err == nil && n > 0
}

// handle serves the requests of one connection.
func (p *proxy) handle(c net.Conn) {
	answered := false // an answer that ends the connection was written
	defer func() {
		if answered {
			p.linger(c)
		}
	}()
	ic := &idleConn{Conn: c}
	ic.touch()
	lr := &io.LimitedReader{R: ic, N: proxyMaxHeader}
	br := bufio.NewReaderSize(lr, 4<<10)
	for {
		req, t, err := readRequest(br, lr)
		if err != nil {
			var bad errBadRequest
			switch {
			case errors.As(err, &bad):
				answered = writeStatus(c, http.StatusBadRequest, bad.Error()+"\n")
			case err == errHeaderTooLarge:
				answered = writeStatus(c, http.StatusRequestHeaderFieldsTooLarge, err.Error()+"\n")
			case !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) && !isTimeout(err):
				answered = writeStatus(c, http.StatusBadRequest, "bad request: "+err.Error()+"\n")
			}
			return
		}
		if !HostAllowed(p.hosts, t.host) {
			p.refuse(refusedName(t.host))
			answered = writeStatus(c, http.StatusForbidden, fmt.Sprintf("zut's sandbox proxy refused host %s: it is not in the agent's net.allow (%s); the agent's net.allow must list it\n", t.host, allowedList(p.hosts)))
			return
		}
		up, err := p.connect(t)
		if err != nil {
			answered = writeStatus(c, http.StatusBadGateway, fmt.Sprintf("zut's sandbox proxy could not reach %s: %v\n", t.addr(), err))
			return
		}
		if t.connect {
			p.tunnel(c, br, ic, up)
			return
		}
		keep := p.forward(c, br, req, up)
		p.untrack(up)
		if !keep {
			answered = true // the client may still be sending
			return
		}
	}
}

// refusedName is host as Explain shows it: lower case, no trailing dot,
// quoted if it holds anything but printable ASCII, and cut short.
func refusedName(host string) string {
	h := strings.ToLower(strings.TrimSuffix(host, "."))
	for i := 0; i < len(h); i++ {
		if h[i] <= ' ' || h[i] >= 0x7f {
			h = strconv.QuoteToASCII(h)
			break
		}
	}
	if len(h) > 100 {
		h = h[:100] + "..."
	}
	return h
}

// allowedList names the hosts of net.allow in a refusal.
func allowedList(hosts []string) string {
	if len(hosts) == 0 {
		return "it lists none"
	}
	s := strings.Join(hosts, ", ")
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return "it lists " + s
}

// connect resolves t's host and dials the first address that may be
// reached: a public one, or any for "localhost" and an IP address that
// net.allow lists as such. The connection is tracked.
func (p *proxy) connect(t target) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(p.ctx, proxyDialTimeout)
	defer cancel()
	local := explicitLocal(p.hosts, t.host)
	var addrs []netip.Addr
	h, _ := normalHost(t.host)
	switch a, err := netip.ParseAddr(h); {
	case err == nil:
		addrs = []netip.Addr{a}
	case h == "localhost":
		addrs = []netip.Addr{netip.AddrFrom4([4]byte{127, 0, 0, 1}), netip.IPv6Loopback()}
	default:
		if addrs, err = p.lookup(ctx, h); err != nil {
			return nil, fmt.Errorf("resolve %s: %v", h, err)
		}
	}
	port, _ := strconv.ParseUint(t.port, 10, 16)
	var lastErr error
	for _, a := range addrs {
		if !local && NonPublic(a) != "" {
			if lastErr == nil {
				lastErr = fmt.Errorf("%s is at %s, not a public address; the proxy reaches private and loopback addresses only for \"localhost\" and IP addresses that net.allow lists", h, a.Unmap())
			}
			continue
		}
		up, err := p.dial(ctx, netip.AddrPortFrom(a.Unmap(), uint16(port)).String())
		if err != nil {
			lastErr = err
			continue
		}
		if !p.track(up) {
			up.Close()
			return nil, net.ErrClosed
		}
		return up, nil
	}
	if lastErr == nil {
		lastErr = fmt.Errorf("%s has no address", h)
	}
	return nil, lastErr
}

// tunnel answers a CONNECT and copies both ways until both ends are
// done, or nothing moved for proxyIdle.
func (p *proxy) tunnel(c net.Conn, br *bufio.Reader, ic *idleConn, up net.Conn) {
	defer p.untrack(up)
	if _, err := io.WriteString(c, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
		return
	}
	uic := &idleConn{Conn: up, last: &ic.lastNano}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // upstream to client: ends at the upstream's EOF or error
		defer wg.Done()
		io.Copy(writerOnly{c}, uic)
		closeWrite(c)
	}()
	io.Copy(writerOnly{up}, br) // client to upstream, through what br holds
	closeWrite(up)
	wg.Wait()
}

// forward sends a plain HTTP request upstream and its answer back; it
// reports whether the client connection may take another request.
func (p *proxy) forward(c net.Conn, br *bufio.Reader, req *http.Request, up net.Conn) bool {
	if strings.EqualFold(req.Header.Get("Expect"), "100-continue") {
		if _, err := io.WriteString(c, "HTTP/1.1 100 Continue\r\n\r\n"); err != nil {
			return false
		}
	}
	keep := !req.Close
	out := req.Clone(p.ctx)
	out.RequestURI = ""
	out.Body = req.Body
	out.Close = true
	for _, h := range strings.Split(req.Header.Get("Connection"), ",") {
		if h = strings.TrimSpace(h); h != "" {
			out.Header.Del(h)
		}
	}
	for _, h := range []string{"Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authorization", "Proxy-Authenticate", "Te", "Trailer", "Upgrade", "Expect"} {
		out.Header.Del(h)
	}
	if out.URL.Host != "" && out.Host == "" {
		out.Host = out.URL.Host
	}
	if _, ok := out.Header["User-Agent"]; !ok {
		out.Header["User-Agent"] = []string{""} // none, not Go's
	}
	uic := &idleConn{Conn: up}
	uic.touch()
	if err := out.Write(uic); err != nil {
		writeStatus(c, http.StatusBadGateway, fmt.Sprintf("zut's sandbox proxy could not send the request to %s: %v\n", req.URL.Host, err))
		return false
	}
	// the body was read through; the client's framing is intact
	lr := &io.LimitedReader{R: uic, N: proxyMaxHeader}
	resp, err := http.ReadResponse(bufio.NewReaderSize(lr, 4<<10), out)
	if err != nil {
		writeStatus(c, http.StatusBadGateway, fmt.Sprintf("zut's sandbox proxy read no answer from %s: %v\n", req.URL.Host, err))
		return false
	}
	lr.N = math.MaxInt64
	defer resp.Body.Close()
	for _, h := range []string{"Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authenticate", "Upgrade"} {
		resp.Header.Del(h)
	}
	if resp.ContentLength < 0 && len(resp.TransferEncoding) == 0 && req.Method != http.MethodHead {
		keep = false // the body ends with the connection
	}
	resp.Close = !keep
	if err := resp.Write(c); err != nil {
		return false
	}
	return keep
}

// writeStatus answers with a status and a text body, and no more; it
// reports whether the answer was written.
func writeStatus(w io.Writer, code int, body string) bool {
	_, err := fmt.Fprintf(w, "HTTP/1.1 %d %s\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s",
		code, http.StatusText(code), len(body), body)
	return err == nil
}

// linger ends a connection after an answer the client may not have read
// all of its request for: the rest of the request is read and dropped
// (up to 1 MiB, for lingerFor), so that closing does not reset the
// connection and lose the answer.
func (p *proxy) linger(c net.Conn) {
	closeWrite(c)
	c.SetReadDeadline(time.Now().Add(p.lingerFor))
	io.Copy(io.Discard, io.LimitReader(c, 1<<20))
}

// idleConn is a connection whose reads fail when no byte went either way
// (last, shared by the two ends of a tunnel) for proxyIdle.
type idleConn struct {
	net.Conn
	lastNano atomic.Int64
	last     *atomic.Int64 // nil: lastNano
}

func (c *idleConn) stamp() *atomic.Int64 {
	if c.last != nil {
		return c.last
	}
	return &c.lastNano
}

func (c *idleConn) touch() { c.stamp().Store(time.Now().UnixNano()) }

func (c *idleConn) Read(b []byte) (int, error) {
	for {
		c.Conn.SetReadDeadline(time.Unix(0, c.stamp().Load()).Add(proxyIdle))
		n, err := c.Conn.Read(b)
		if n > 0 {
			c.touch()
		}
		if err != nil && n == 0 && isTimeout(err) && time.Since(time.Unix(0, c.stamp().Load())) < proxyIdle {
			continue // the other way moved meanwhile
		}
		return n, err
	}
}

func (c *idleConn) Write(b []byte) (int, error) {
	n, err := c.Conn.Write(b)
	if n > 0 {
		c.touch()
	}
	return n, err
}

// writerOnly hides a connection's ReadFrom, so that io.Copy reads
// through the idle check.
type writerOnly struct{ io.Writer }

func closeWrite(c net.Conn) {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		cw.CloseWrite()
		return
	}
	c.Close()
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// proxyURL is the proxy's URL for a command's environment.
func proxyURL(port int) string {
	return (&url.URL{Scheme: "http", Host: "127.0.0.1:" + strconv.Itoa(port)}).String()
}
