// Package loopback serves the one page an OAuth redirect brings back to
// zut: a strict, small HTTP/1.x listener on a loopback address that
// answers GET requests for one path and nothing else. It replaces
// net/http's server, whose code (HTTP/2 included) every zut binary would
// otherwise carry for two sign-in callbacks.
//
// Each connection carries one request: a request line and headers of at
// most MaxHeader bytes, read before a deadline; the body is never read.
// The answer always closes the connection. Connections are served
// concurrently, so a slow or idle one (browsers open spare connections)
// never holds up the callback. The package imports nothing of zut.
package loopback

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"net/url"
	"strconv"
	"sync"
	"time"
)

const (
	// MaxHeader bounds the request line and headers of one request: a
	// browser sends every cookie of localhost, whatever the port, so a
	// developer's may be large.
	MaxHeader = 64 << 10
	// readTimeout bounds the time a client has to send its request.
	readTimeout = 10 * time.Second
	// writeTimeout bounds the time the answer may take to be written.
	writeTimeout = 10 * time.Second
	// lingerTimeout and maxLinger bound what is read and dropped after
	// the answer.
	lingerTimeout = time.Second
	maxLinger     = 256 << 10
	// maxConns bounds the connections served at once; more are closed
	// at once.
	maxConns = 32
)

// Page is the answer to a request for the served path.
type Page struct {
	Status      int    // 200 when zero
	ContentType string // "text/html; charset=utf-8" when empty
	Body        string
	allow       bool // 405: say which method is allowed
}

// Handler answers a GET request for the served path, given its query.
// The server calls it for one request at a time.
type Handler func(query url.Values) Page

// Server is a running listener. Close stops it.
type Server struct {
	ln      net.Listener
	path    string
	handler Handler
	timeout time.Duration // the read deadline; readTimeout but in tests

	mu sync.Mutex // guards conns and closed
	// conns are the open connections, true while one is being answered:
	// Close closes the others at once and lets those finish.
	conns  map[net.Conn]bool
	closed bool
	call   sync.Mutex // serialises handler calls
	wg     sync.WaitGroup
}

// Serve answers requests for path on ln with h until Close. It takes
// ownership of ln.
func Serve(ln net.Listener, path string, h Handler) *Server {
	return serve(ln, path, h, readTimeout)
}

func serve(ln net.Listener, path string, h Handler, timeout time.Duration) *Server {
	s := &Server{ln: ln, path: path, handler: h, timeout: timeout, conns: make(map[net.Conn]bool)}
	s.wg.Add(1)
	go s.accept()
	return s
}

// Close closes the listener and every open connection, and returns when
// the server's goroutines have ended. It is safe to call more than once.
func (s *Server) Close() {
	s.mu.Lock()
	if !s.closed {
		s.closed = true
		s.ln.Close()
		for c, busy := range s.conns {
			if !busy {
				c.Close()
			}
		}
	}
	s.mu.Unlock()
	s.wg.Wait()
}

// accept runs until the listener fails (Close closes it).
func (s *Server) accept() {
	defer s.wg.Done()
	for {
		c, err := s.ln.Accept()
		if err != nil {
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				continue
			}
			return
		}
		s.mu.Lock()
		if s.closed || len(s.conns) >= maxConns {
			s.mu.Unlock()
			c.Close()
			continue
		}
		s.conns[c] = false
		s.wg.Add(1)
		s.mu.Unlock()
		go s.serveConn(c)
	}
}

// serveConn answers one request on c and closes it.
func (s *Server) serveConn(c net.Conn) {
	defer s.wg.Done()
	defer func() {
		s.mu.Lock()
		delete(s.conns, c)
		s.mu.Unlock()
		c.Close()
	}()
	c.SetReadDeadline(time.Now().Add(s.timeout))
	q, p, ok := s.read(bufio.NewReaderSize(c, 1024))
	if !ok {
		return // the client went away or was too slow: nobody to answer
	}
	if !s.busy(c, true) {
		return // closed meanwhile
	}
	if q != nil {
		s.call.Lock()
		p = s.handler(q)
		s.call.Unlock()
	}
	c.SetWriteDeadline(time.Now().Add(writeTimeout))
	c.Write(response(p))
	if !s.busy(c, false) {
		return
	}
	// The answer is complete: half-close, then read what the client still
	// sends (a body, the rest of a too long head) for a moment, so that
	// closing with unread data does not reset the connection before the
	// client has read the answer.
	if tc, ok := c.(*net.TCPConn); ok {
		tc.CloseWrite()
	}
	c.SetReadDeadline(time.Now().Add(lingerTimeout))
	io.CopyN(io.Discard, c, maxLinger)
}

// busy marks c as being answered or not. It reports false when the
// server is closed and c is no longer in its set.
func (s *Server) busy(c net.Conn, b bool) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed && !b {
		return false
	}
	if _, ok := s.conns[c]; !ok || s.closed && b {
		return false
	}
	s.conns[c] = b
	return true
}

// read reads one request head from r. It returns the query of a GET for
// the served path, or else the error page to answer. ok is false when the
// connection failed before a whole request head came.
func (s *Server) read(r *bufio.Reader) (query url.Values, p Page, ok bool) {
	line, n, err := readLine(r, MaxHeader)
	if err == (tooLong{}) {
		return nil, plain(431, "request header too large"), true
	}
	if err != nil {
		return nil, Page{}, false
	}
	method, target, okLine := parseRequestLine(line)
	// The headers: read to the empty line, within the bound; none is used.
	for {
		h, m, err := readLine(r, MaxHeader-n)
		n += m
		if err == (tooLong{}) {
			return nil, plain(431, "request header too large"), true
		}
		if err != nil {
			return nil, Page{}, false
		}
		if len(h) == 0 {
			break
		}
		if h[0] == ' ' || h[0] == '\t' || bytes.IndexByte(h, ':') <= 0 {
			okLine = false // a continuation line or no field name
		}
	}
	if !okLine {
		return nil, plain(400, "bad request"), true
	}
	u, err := url.ParseRequestURI(target)
	if err != nil || target[0] != '/' {
		return nil, plain(400, "bad request"), true
	}
	if u.Path != s.path {
		return nil, plain(404, "not found"), true
	}
	if method != "GET" {
		p := plain(405, "method not allowed")
		p.allow = true
		return nil, p, true
	}
	q, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		return nil, plain(400, "bad request"), true
	}
	if q == nil {
		q = url.Values{}
	}
	return q, Page{}, true
}

// parseRequestLine splits "GET /path?q HTTP/1.1".
func parseRequestLine(line []byte) (method, target string, ok bool) {
	m, rest, ok1 := bytes.Cut(line, []byte(" "))
	t, proto, ok2 := bytes.Cut(rest, []byte(" "))
	if !ok1 || !ok2 || len(m) == 0 || len(t) == 0 || !(string(proto) == "HTTP/1.1" || string(proto) == "HTTP/1.0") {
		return "", "", false
	}
	for _, c := range m {
		if c < 'A' || c > 'Z' {
			return "", "", false
		}
	}
	for _, c := range t {
		if c <= ' ' || c == 0x7f {
			return "", "", false
		}
	}
	return string(m), string(t), true
}

// tooLong is the error of readLine when the line passes the bound.
type tooLong struct{}

func (tooLong) Error() string { return "line too long" }

// readLine reads one line ending in "\n" (an "\r" before it is dropped)
// of at most limit bytes, counting the line end. n is the bytes it read.
func readLine(r *bufio.Reader, limit int) (line []byte, n int, err error) {
	var buf []byte
	for {
		chunk, err := r.ReadSlice('\n')
		n += len(chunk)
		if n > limit {
			return nil, n, tooLong{}
		}
		buf = append(buf, chunk...)
		if err == nil {
			break
		}
		if err != bufio.ErrBufferFull {
			return nil, n, err
		}
	}
	buf = buf[:len(buf)-1]
	if len(buf) > 0 && buf[len(buf)-1] == '\r' {
		buf = buf[:len(buf)-1]
	}
	return buf, n, nil
}

func plain(status int, text string) Page {
	return Page{Status: status, ContentType: "text/plain; charset=utf-8", Body: text + "\n"}
}

// response is the whole answer for p.
func response(p Page) []byte {
	status, ctype := p.Status, p.ContentType
	if status == 0 {
		status = 200
	}
	if ctype == "" {
		ctype = "text/html; charset=utf-8"
	}
	var b bytes.Buffer
	b.WriteString("HTTP/1.1 ")
	b.WriteString(strconv.Itoa(status))
	b.WriteByte(' ')
	b.WriteString(statusText(status))
	b.WriteString("\r\nContent-Type: ")
	b.WriteString(ctype)
	b.WriteString("\r\nContent-Length: ")
	b.WriteString(strconv.Itoa(len(p.Body)))
	if p.allow {
		b.WriteString("\r\nAllow: GET")
	}
	b.WriteString("\r\nCache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n")
	b.WriteString(p.Body)
	return b.Bytes()
}

func statusText(status int) string {
	switch status {
	case 200:
		return "OK"
	case 400:
		return "Bad Request"
	case 404:
		return "Not Found"
	case 405:
		return "Method Not Allowed"
	case 431:
		return "Request Header Fields Too Large"
	}
	return "Status"
}
