package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// HTTPError is an HTTP answer zut could not use.
type HTTPError struct {
	Status int
	Body   string // the start of the body, for the message
}

func (e *HTTPError) Error() string {
	s := fmt.Sprintf("HTTP %d %s", e.Status, http.StatusText(e.Status))
	if e.Body != "" {
		s += ": " + e.Body
	}
	return s
}

// parseURL accepts an http or https URL with a host and no fragment.
func parseURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("url %q: %v", raw, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return nil, fmt.Errorf("url %q: must be an http:// or https:// URL with a host", raw)
	}
	if u.Fragment != "" {
		return nil, fmt.Errorf("url %q: must not have a #fragment", raw)
	}
	return u, nil
}

// sameOrigin reports whether a and b have the same scheme, host and port.
func sameOrigin(a, b *url.URL) bool {
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(hostPort(a), hostPort(b))
}

func hostPort(u *url.URL) string {
	if u.Port() != "" {
		return u.Host
	}
	if u.Scheme == "https" {
		return u.Hostname() + ":443"
	}
	return u.Hostname() + ":80"
}

// newHTTPClient returns a client that follows redirects only within the
// origin of base, so that headers and tokens never reach another host.
func newHTTPClient(base *url.URL) *http.Client {
	return &http.Client{
		Transport: http.DefaultTransport.(*http.Transport).Clone(),
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= 5 {
				return errors.New("too many redirects")
			}
			if !sameOrigin(req.URL, base) {
				return fmt.Errorf("redirect to another origin (%s) refused", req.URL.Host)
			}
			return nil
		},
	}
}

// httpBase is what both HTTP transports share: the server's URL and
// headers, the client, OAuth, the log, and the lifetime of every stream.
type httpBase struct {
	name    string
	url     *url.URL
	headers map[string]string
	client  *http.Client
	auth    *authorizer // nil: no OAuth
	log     *logFile
	sink    sink

	ctx    context.Context // ends at close; every stream derives from it
	cancel context.CancelFunc
	wg     sync.WaitGroup // stream readers
}

func newHTTPBase(cfg ServerConfig, log *logFile, s sink, auth *authorizer) (*httpBase, error) {
	u, err := parseURL(cfg.URL)
	if err != nil {
		return nil, fmt.Errorf("mcp server %q: %v", cfg.Name, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	b := &httpBase{name: cfg.Name, url: u, headers: cfg.Headers, client: newHTTPClient(u), log: log, sink: s,
		ctx: ctx, cancel: cancel, auth: auth}
	if auth != nil {
		auth.client = b.client
	}
	return b, nil
}

// do sends req with the configured headers and the OAuth token (to the
// server's origin only). A 401 starts authorization once and retries;
// body may be nil.
func (b *httpBase) do(ctx context.Context, method string, target *url.URL, body []byte, hdr http.Header) (*http.Response, error) {
	for attempt := 0; ; attempt++ {
		var rd io.Reader
		if body != nil {
			rd = bytes.NewReader(body)
		}
		req, err := http.NewRequestWithContext(ctx, method, target.String(), rd)
		if err != nil {
			return nil, err
		}
		for k, v := range b.headers {
			req.Header.Set(k, v)
		}
		for k, v := range hdr {
			req.Header[k] = v
		}
		req.Header.Set("User-Agent", "zut")
		if b.auth != nil && sameOrigin(target, b.url) {
			tok, err := b.auth.token(ctx)
			if err != nil {
				return nil, err
			}
			if tok != "" {
				req.Header.Set("Authorization", "Bearer "+tok)
			}
		}
		resp, err := b.client.Do(req)
		if err != nil {
			return nil, err
		}
		if (resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden && isInsufficientScope(resp)) &&
			attempt < 2 && sameOrigin(target, b.url) {
			challenge := parseChallenge(resp.Header.Values("WWW-Authenticate"))
			drain(resp)
			if b.auth == nil {
				return nil, fmt.Errorf("the server requires authorization (HTTP %d); zut has no OAuth for it", resp.StatusCode)
			}
			if err := b.auth.authorize(ctx, challenge, resp.StatusCode); err != nil {
				return nil, err
			}
			continue
		}
		return resp, nil
	}
}

func drain(resp *http.Response) {
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
}

// httpFailure turns an unusable response into an *HTTPError, closing it.
func httpFailure(resp *http.Response) error {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	resp.Body.Close()
	return &HTTPError{Status: resp.StatusCode, Body: strings.TrimSpace(strings.ToValidUTF8(string(b), "?"))}
}

func mediaType(resp *http.Response) string {
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	return strings.ToLower(mt)
}

// streamableTransport is the Streamable HTTP transport: one POST per
// message, answered with JSON or an SSE stream, plus an optional GET
// stream for messages the server starts, resumed with Last-Event-ID.
type streamableTransport struct {
	*httpBase
	mu      sync.Mutex
	session string
	version string
	closed  bool
	// opened is closed once the GET stream that ready started has its
	// answer (a stream or a refusal); see awaitListen.
	opened chan struct{}
}

func newStreamable(b *httpBase) *streamableTransport { return &streamableTransport{httpBase: b} }

func (t *streamableTransport) kind() string { return "http" }

func (t *streamableTransport) reset() {
	t.mu.Lock()
	t.session, t.version = "", ""
	t.mu.Unlock()
}

func (t *streamableTransport) ready(version string) {
	opened := make(chan struct{})
	t.mu.Lock()
	t.version = version
	closed := t.closed
	if !closed {
		t.wg.Add(1)
		t.opened = opened
	}
	t.mu.Unlock()
	if !closed {
		go t.listen(opened)
	}
}

// listenWait bounds how long awaitListen waits for the server to answer
// the GET: a server that holds the headers back until it has something
// to say costs a connection this much, never more.
const listenWait = 3 * time.Second

// awaitListen waits until the server has answered the GET stream ready
// opened, so that a request the server starts on it at once (as an
// elicitation in the middle of the first tool call) has a stream to go
// to: a server with no stream open may drop such a request, and the call
// that waits on it would hang.
func (t *streamableTransport) awaitListen(ctx context.Context) {
	t.mu.Lock()
	opened := t.opened
	t.mu.Unlock()
	if opened == nil {
		return
	}
	timer := time.NewTimer(listenWait)
	defer timer.Stop()
	select {
	case <-opened:
	case <-timer.C:
		t.log.printf("the server has not answered the GET stream within %v; going on without waiting", listenWait)
	case <-ctx.Done():
	case <-t.ctx.Done():
	}
}

func (t *streamableTransport) headersFor(accept string) (http.Header, string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	h := http.Header{"Accept": {accept}}
	if t.session != "" {
		h.Set("Mcp-Session-Id", t.session)
	}
	if t.version != "" {
		h.Set("Mcp-Protocol-Version", t.version)
	}
	return h, t.session
}

func (t *streamableTransport) send(ctx context.Context, m outgoing) error {
	hdr, session := t.headersFor("application/json, text/event-stream")
	hdr.Set("Content-Type", "application/json")
	// The POST lives as long as the transport once its answer started to
	// stream; until then, ctx can abort it.
	reqCtx, reqCancel := context.WithCancel(t.ctx)
	stop := context.AfterFunc(ctx, reqCancel)
	resp, err := t.do(reqCtx, http.MethodPost, t.url, m.data, hdr)
	if err != nil {
		stop()
		reqCancel()
		return err
	}
	if m.method == "initialize" {
		if id := resp.Header.Get("Mcp-Session-Id"); id != "" {
			if !visibleASCII(id) {
				drain(resp)
				stop()
				reqCancel()
				return errors.New("the server sent an Mcp-Session-Id with characters other than visible ASCII")
			}
			t.mu.Lock()
			t.session = id
			t.mu.Unlock()
			t.log.printf("session started")
		}
	}
	switch {
	case resp.StatusCode == http.StatusNotFound && session != "":
		drain(resp)
		stop()
		reqCancel()
		return sessionExpiredError{}
	case resp.StatusCode == http.StatusAccepted:
		drain(resp)
		stop()
		reqCancel()
		return nil
	case resp.StatusCode < 200 || resp.StatusCode > 299:
		stop()
		err := httpFailure(resp)
		reqCancel()
		return err
	}
	switch mediaType(resp) {
	case "text/event-stream":
		stop()
		t.wg.Add(1)
		go func() {
			defer t.wg.Done()
			defer reqCancel()
			t.readStream(resp.Body, m.id)
		}()
		return nil
	case "application/json":
		defer reqCancel()
		defer stop()
		body, err := io.ReadAll(io.LimitReader(resp.Body, MaxMessage+1))
		resp.Body.Close()
		if err != nil {
			return fmt.Errorf("read the answer: %w", err)
		}
		if len(body) > MaxMessage {
			t.sink.gone(fmt.Errorf("it sent a message longer than %d MiB, so zut disconnected it", MaxMessage>>20))
			return &TooLongError{Limit: MaxMessage}
		}
		if len(bytes.TrimSpace(body)) > 0 {
			t.sink.deliver(body)
		}
		return nil
	default:
		stop()
		reqCancel()
		if m.id == 0 { // a notification or response: any 2xx will do
			drain(resp)
			return nil
		}
		ct := resp.Header.Get("Content-Type")
		drain(resp)
		return fmt.Errorf("the server answered with Content-Type %q; MCP needs application/json or text/event-stream", ct)
	}
}

// readStream delivers the messages of the SSE stream that answers request
// id (0 for the GET stream), resuming it with GET and Last-Event-ID when
// it breaks before the answer came. It returns when the answer came and
// the stream ended, when the stream cannot be resumed, or at close.
func (t *streamableTransport) readStream(body io.ReadCloser, id int64) {
	answered := false
	lastID := ""
	retry := time.Second
	for resumes := 0; ; {
		dec := newSSEDecoder(body, MaxMessage)
		got := false
		var err error
		for {
			var ev sseEvent
			ev, err = dec.next()
			if err != nil {
				break
			}
			if ev.ID != "" {
				lastID = ev.ID
			}
			if ev.Retry >= 0 {
				retry = time.Duration(ev.Retry) * time.Millisecond
			}
			if (ev.Event == "" || ev.Event == "message") && len(bytes.TrimSpace(ev.Data)) > 0 {
				got = true
				if id != 0 && answers(ev.Data, id) {
					answered = true
				}
				t.sink.deliver(ev.Data)
			}
		}
		body.Close()
		var tooLong *TooLongError
		if errors.As(err, &tooLong) {
			t.sink.gone(fmt.Errorf("it sent a message longer than %d MiB, so zut disconnected it", tooLong.Limit>>20))
			return
		}
		if t.ctx.Err() != nil || answered {
			return
		}
		if lastID == "" {
			if id != 0 {
				t.sink.lost(id, errors.New("the server closed the event stream before answering, and the stream cannot be resumed (no event id)"))
			}
			return
		}
		if got {
			resumes = 0
		}
		resumes++
		if resumes > 5 {
			if id != 0 {
				t.sink.lost(id, errors.New("the event stream broke 5 times in a row before the answer came"))
			}
			return
		}
		if !sleepCtx(t.ctx, retry) {
			return
		}
		t.log.printf("resuming the event stream after event %q", lastID)
		body = t.resume(lastID)
		if body == nil {
			if id != 0 {
				t.sink.lost(id, errors.New("the server closed the event stream before answering, and resuming it failed"))
			}
			return
		}
	}
}

// resume opens a GET stream that continues after event lastID, or
// returns nil.
func (t *streamableTransport) resume(lastID string) io.ReadCloser {
	hdr, _ := t.headersFor("text/event-stream")
	if lastID != "" {
		hdr.Set("Last-Event-ID", lastID)
	}
	resp, err := t.do(t.ctx, http.MethodGet, t.url, nil, hdr)
	if err != nil {
		t.log.printf("GET stream: %v", err)
		return nil
	}
	if resp.StatusCode != http.StatusOK || mediaType(resp) != "text/event-stream" {
		if resp.StatusCode == http.StatusMethodNotAllowed {
			t.log.printf("the server offers no GET stream (HTTP 405)")
		} else {
			t.log.printf("GET stream: HTTP %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
		}
		drain(resp)
		return nil
	}
	return resp.Body
}

// listen keeps the GET stream open for messages the server starts: it
// reconnects (with Last-Event-ID) after breaks, backing off, and gives up
// when the server refuses the GET. It closes opened once the first GET
// has its answer.
func (t *streamableTransport) listen(opened chan struct{}) {
	defer t.wg.Done()
	backoff := time.Second
	lastID := ""
	for t.ctx.Err() == nil {
		body := t.resume(lastID)
		if opened != nil {
			close(opened)
			opened = nil
		}
		if body == nil {
			return
		}
		dec := newSSEDecoder(body, MaxMessage)
		got := false
		for {
			ev, err := dec.next()
			if err != nil {
				var tooLong *TooLongError
				if errors.As(err, &tooLong) {
					body.Close()
					t.sink.gone(fmt.Errorf("it sent a message longer than %d MiB, so zut disconnected it", tooLong.Limit>>20))
					return
				}
				break
			}
			if ev.ID != "" {
				lastID = ev.ID
			}
			if ev.Retry >= 0 {
				backoff = time.Duration(ev.Retry) * time.Millisecond
			}
			if (ev.Event == "" || ev.Event == "message") && len(bytes.TrimSpace(ev.Data)) > 0 {
				got = true
				t.sink.deliver(ev.Data)
			}
		}
		body.Close()
		if got {
			backoff = time.Second
		} else if backoff < 30*time.Second {
			backoff *= 2
		}
		if !sleepCtx(t.ctx, backoff) {
			return
		}
	}
}

// answers reports whether data is the response to request id.
func answers(data []byte, id int64) bool {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.Unmarshal(data, &m) != nil || m.Method != "" {
		return false
	}
	n, ok := intID(m.ID)
	return ok && n == id
}

func (t *streamableTransport) close() error {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return nil
	}
	t.closed = true
	session := t.session
	t.mu.Unlock()
	if session != "" {
		hdr, _ := t.headersFor("application/json")
		ctx, cancel := context.WithTimeout(t.ctx, 2*time.Second)
		resp, err := t.do(ctx, http.MethodDelete, t.url, nil, hdr)
		if err == nil {
			t.log.printf("session deleted (HTTP %d)", resp.StatusCode)
			drain(resp)
		}
		cancel()
	}
	t.cancel()
	t.wg.Wait()
	t.client.CloseIdleConnections()
	return nil
}

func visibleASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x21 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
