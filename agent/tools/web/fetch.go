package web

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/zut-go/zut/agent/sandbox"
)

// Limits of the fetcher.
const (
	defaultTimeout = 15 * time.Second
	defaultMaxBody = 5 << 20
	maxRedirects   = 5
	sniffLen       = 512
)

// fetcher makes the HTTP requests of the web tools. It is safe by default:
// http and https only, ports 80 and 443, and every connection goes to an
// address that was checked to be public, the one that is dialled (so a
// DNS answer that changes between the check and the connection cannot
// lead elsewhere). No cookies, no credentials, no proxy.
type fetcher struct {
	cfg     Config
	pages   *http.Client // pages: redirects followed, each re-checked
	apis    *http.Client // search APIs with keys: no redirects, so keys stay with their host
	trusted *http.Client // the SearXNG instance the user configured: any address, no redirects
	closers []*http.Transport
}

func newFetcher(cfg Config) *fetcher {
	f := &fetcher{cfg: cfg}
	public := f.transport(cfg.AllowPrivate)
	f.pages = &http.Client{Transport: public, CheckRedirect: f.checkRedirect}
	f.apis = &http.Client{Transport: public, CheckRedirect: noRedirects}
	f.trusted = &http.Client{Transport: f.transport(true), CheckRedirect: noRedirects}
	return f
}

// close closes the idle connections.
func (f *fetcher) close() {
	for _, t := range f.closers {
		t.CloseIdleConnections()
	}
}

func (f *fetcher) transport(allowPrivate bool) *http.Transport {
	d := &dialer{lookup: f.cfg.LookupIP, connect: f.cfg.Dial, allowPrivate: allowPrivate, allowHosts: f.cfg.AllowHosts}
	t := &http.Transport{
		Proxy:                  nil, // a proxy would be dialled unchecked
		DialContext:            d.dial,
		ForceAttemptHTTP2:      true,
		TLSHandshakeTimeout:    10 * time.Second,
		MaxIdleConns:           16,
		IdleConnTimeout:        60 * time.Second,
		MaxResponseHeaderBytes: 1 << 20,
	}
	if f.cfg.TLSConfig != nil {
		t.TLSClientConfig = f.cfg.TLSConfig.Clone()
	}
	f.closers = append(f.closers, t)
	return t
}

func noRedirects(req *http.Request, via []*http.Request) error { return http.ErrUseLastResponse }

// checkRedirect re-checks every hop of a redirect chain; the dialer checks
// its address.
func (f *fetcher) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) > maxRedirects {
		return fmt.Errorf("stopped after %d redirects (the site may redirect in a loop)", maxRedirects)
	}
	if err := f.checkURL(req.URL); err != nil {
		return err
	}
	req.Header.Del("Authorization")
	req.Header.Del("Cookie")
	return nil
}

// checkURL refuses what the fetcher never opens.
func (f *fetcher) checkURL(u *url.URL) error {
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
	default:
		return fmt.Errorf("only http and https URLs can be opened, not %s:", u.Scheme)
	}
	if u.User != nil {
		return errors.New("URLs with credentials (user@host) are not opened; zut sends no credentials")
	}
	if u.Hostname() == "" {
		return errors.New("the URL has no host")
	}
	if f.cfg.AllowHosts != nil && !sandbox.HostAllowed(f.cfg.AllowHosts, u.Hostname()) {
		return &HostError{Host: u.Hostname()}
	}
	if p := u.Port(); p != "" && p != "80" && p != "443" && !f.cfg.AllowPrivate && !listedLocal(f.cfg.AllowHosts, u.Hostname()) {
		return &BlockedError{Host: u.Hostname(), Port: p, Reason: "port " + p + " is not 80 or 443"}
	}
	return nil
}

// listedLocal reports whether hosts (Config.AllowHosts) list host as
// "localhost" or as an IP address: such a host may be private.
func listedLocal(hosts []string, host string) bool {
	if hosts == nil || !sandbox.HostAllowed(hosts, host) {
		return false
	}
	_, err := netip.ParseAddr(host)
	return err == nil || strings.EqualFold(strings.TrimSuffix(host, "."), "localhost")
}

// dialer connects to checked addresses only.
type dialer struct {
	lookup       func(ctx context.Context, host string) ([]netip.Addr, error)
	connect      func(ctx context.Context, network, addr string) (net.Conn, error)
	allowPrivate bool
	allowHosts   []string // Config.AllowHosts
}

func (d *dialer) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	host, portText, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	port, err := strconv.ParseUint(portText, 10, 16)
	if err != nil {
		return nil, fmt.Errorf("bad port %q", portText)
	}
	if d.allowHosts != nil && !sandbox.HostAllowed(d.allowHosts, host) {
		return nil, &HostError{Host: host}
	}
	private := d.allowPrivate || listedLocal(d.allowHosts, host)
	if !private && port != 80 && port != 443 {
		return nil, &BlockedError{Host: host, Port: portText, Reason: "port " + portText + " is not 80 or 443"}
	}
	var addrs []netip.Addr
	if a, err := netip.ParseAddr(host); err == nil {
		addrs = []netip.Addr{a}
	} else {
		lookup := d.lookup
		if lookup == nil {
			lookup = func(ctx context.Context, host string) ([]netip.Addr, error) {
				return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
			}
		}
		if addrs, err = lookup(ctx, host); err != nil {
			return nil, err
		}
	}
	var blocked error
	var lastErr error
	for _, a := range addrs {
		if why := sandbox.NonPublic(a); why != "" && !private {
			if blocked == nil {
				blocked = &BlockedError{Host: host, Addr: a.Unmap(), Port: portText, Reason: why}
			}
			continue
		}
		target := netip.AddrPortFrom(a.Unmap(), uint16(port)).String()
		var conn net.Conn
		if d.connect != nil {
			conn, err = d.connect(ctx, network, target)
		} else {
			nd := net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second, Control: d.control}
			if private {
				nd.Control = nil
			}
			conn, err = nd.DialContext(ctx, network, target)
		}
		if err == nil {
			return conn, nil
		}
		lastErr = err
	}
	switch {
	case lastErr != nil:
		return nil, lastErr
	case blocked != nil:
		return nil, blocked
	}
	return nil, &net.DNSError{Err: "no addresses", Name: host, IsNotFound: true}
}

// control checks the address of the socket about to connect, once more.
func (d *dialer) control(network, address string, _ syscall.RawConn) error {
	if d.allowPrivate {
		return nil
	}
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return err
	}
	if why := sandbox.NonPublic(ap.Addr()); why != "" {
		return &BlockedError{Host: ap.Addr().String(), Addr: ap.Addr(), Reason: why}
	}
	return nil
}

// response is a fetched document.
type response struct {
	URL         *url.URL // after redirects
	Status      int
	StatusText  string
	ContentType string // the Content-Type header
	Body        []byte
	Read        int   // bytes of body read; more than len(Body) for binary documents
	Truncated   bool  // the body was longer than the limit and was cut
	Length      int64 // the Content-Length, -1 when unknown
	Redirects   []string
}

// get fetches u with the page client.
func (f *fetcher) get(ctx context.Context, u *url.URL) (*response, error) {
	if err := f.checkURL(u); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, f.timeout())
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", f.userAgent())
	req.Header.Set("Accept", "text/html,application/xhtml+xml,text/plain;q=0.9,text/markdown;q=0.9,application/json;q=0.8,*/*;q=0.5")
	resp, err := f.pages.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	r := &response{
		URL:         resp.Request.URL,
		Status:      resp.StatusCode,
		StatusText:  http.StatusText(resp.StatusCode),
		ContentType: resp.Header.Get("Content-Type"),
		Length:      resp.ContentLength,
	}
	for q := resp.Request; q.Response != nil; q = q.Response.Request {
		r.Redirects = append([]string{q.Response.Request.URL.String()}, r.Redirects...)
	}
	if mt, _, _ := mime.ParseMediaType(r.ContentType); binaryType(mt) {
		// Keep enough to name it, and count the rest (up to the limit)
		// to say how large it is.
		r.Body, r.Truncated, err = readBody(resp.Body, sniffLen)
		r.Read = len(r.Body)
		if err == nil && r.Truncated {
			var n int64
			n, err = io.Copy(io.Discard, io.LimitReader(resp.Body, int64(f.maxBody()-sniffLen)+1))
			r.Read += int(n)
			r.Truncated = r.Read > f.maxBody()
		}
	} else {
		if resp.ContentLength > 0 && resp.ContentLength <= int64(f.maxBody()) {
			r.Body, r.Truncated, err = readSized(resp.Body, int(resp.ContentLength), f.maxBody())
		} else {
			r.Body, r.Truncated, err = readBody(resp.Body, f.maxBody())
		}
		r.Read = len(r.Body)
	}
	if err != nil {
		return nil, err
	}
	return r, nil
}

// readBody reads at most limit bytes and reports whether more followed.
func readBody(body io.Reader, limit int) ([]byte, bool, error) {
	b, err := io.ReadAll(io.LimitReader(body, int64(limit)+1))
	if err != nil {
		return nil, false, err
	}
	if len(b) > limit {
		return b[:limit], true, nil
	}
	return b, false, nil
}

// readSized reads a body whose length the server announced in one
// buffer of that size, then like readBody should the announcement be
// wrong.
func readSized(body io.Reader, size, limit int) ([]byte, bool, error) {
	buf := make([]byte, size, size+1)
	n, err := io.ReadFull(body, buf)
	switch {
	case err == io.ErrUnexpectedEOF || err == io.EOF:
		return buf[:n], false, nil
	case err != nil:
		return nil, false, err
	}
	rest, truncated, err := readBody(body, limit-size)
	return append(buf, rest...), truncated, err
}

func (f *fetcher) timeout() time.Duration {
	if f.cfg.Timeout > 0 {
		return f.cfg.Timeout
	}
	return defaultTimeout
}

func (f *fetcher) maxBody() int {
	if f.cfg.MaxBody > 0 {
		return f.cfg.MaxBody
	}
	return defaultMaxBody
}

func (f *fetcher) userAgent() string {
	v := f.cfg.Version
	if v == "" {
		v = "dev"
	}
	return "zut/" + v
}

// binaryType reports media types that are never text.
func binaryType(mt string) bool {
	switch {
	case strings.HasPrefix(mt, "image/"), strings.HasPrefix(mt, "audio/"), strings.HasPrefix(mt, "video/"),
		strings.HasPrefix(mt, "font/"):
		return true
	}
	switch mt {
	case "application/pdf", "application/zip", "application/gzip", "application/x-gzip", "application/x-tar",
		"application/octet-stream", "application/x-7z-compressed", "application/x-rar-compressed",
		"application/vnd.ms-excel", "application/msword", "application/wasm", "application/x-executable":
		return true
	}
	return strings.HasPrefix(mt, "application/vnd.openxmlformats") || strings.HasPrefix(mt, "application/vnd.oasis")
}
