package provider

import (
	"bytes"
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Config is what every client needs to reach its API. Optional fields pick
// a sensible default when zero. A client does not change its Config, so one
// client may serve concurrent streams.
type Config struct {
	// Provider names the provider in errors ("anthropic", "deepseek").
	Provider string
	// BaseURL is the API root: for Anthropic without /v1
	// (https://api.anthropic.com), for OpenAI-style APIs with it
	// (https://api.openai.com/v1).
	BaseURL string
	// APIKey is sent as x-api-key (Anthropic) or a bearer token; it never
	// appears in errors.
	APIKey string
	// KeyHint tells the user how to supply a key when the API answers 401,
	// for example "set ANTHROPIC_API_KEY or run zut with --api-key".
	KeyHint string
	// URLSource says where BaseURL came from ("--base-url", "$NAME",
	// models.json), for connection errors.
	URLSource string
	// HTTPClient sends the requests; nil uses a client without an overall
	// timeout (streams may run for minutes; IdleTimeout guards silence).
	HTTPClient *http.Client
	// Header holds extra headers sent on every request.
	Header http.Header
	// Retry bounds the attempts of each request.
	Retry RetryPolicy
	// IdleTimeout is Limits.Idle, for callers that set only it; Limits.Idle
	// wins when both are set.
	IdleTimeout time.Duration
	// Limits bound the time and size of each request (see Limits).
	Limits Limits
	// Model is the catalog entry of the model: default output limit,
	// reasoning style and prices (costs are filled in when it is set).
	Model *Model
	// Bearer, when set, is a subscription sign-in: each attempt sends its
	// token as Authorization: Bearer instead of APIKey, and a 401 renews
	// the token once and tries again.
	Bearer BearerSource
}

// limits are c.Limits with the defaults applied for c.Model.
func (c *Config) limits() Limits {
	l := c.Limits
	if l.Idle == 0 {
		l.Idle = c.IdleTimeout
	}
	maxOut := 0
	if c.Model != nil {
		maxOut = c.Model.MaxOutput
	}
	return l.resolved(maxOut)
}

// httpClient is the caller's client (or the default one) with the
// redirect rule of checkRedirect.
func (c *Config) httpClient() *http.Client { return safeClient(c.HTTPClient, c.Header) }

var defaultHTTPClient = &http.Client{Transport: transport{}}

// streamReadBuffer is the read buffer of each connection of the default
// client (net/http's default is 4 KiB): a response that has come faster
// than it was decoded (many small events) is then read many events to a
// read. A read still returns what has arrived, never waiting for more.
const streamReadBuffer = 32 << 10

// transport is the default client's: http.DefaultTransport's settings
// with streamReadBuffer and the connections Warm made (warmDial), made on
// first use (no initialiser).
type transport struct{}

var defaultTransport lazy[*http.Transport]

func (transport) RoundTrip(r *http.Request) (*http.Response, error) {
	return roundTripWarm(defaultTransportValue(), r)
}

func defaultTransportValue() *http.Transport { return defaultTransport.get(newTransport) }

// newTransport is a transport of the default client's kind.
func newTransport() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.ReadBufferSize = streamReadBuffer
	t.DialTLSContext = warmDial(t)
	// The transport sets up its TLS protocols (HTTP/2) on first use;
	// done now, before a Warm goroutine reads them.
	t.CloseIdleConnections()
	return t
}

// modelID picks the model of a request: the request's, else the catalog's.
func (c *Config) modelID(req *Request) (string, error) {
	if req.Model != "" {
		return req.Model, nil
	}
	if c.Model != nil && c.Model.ID != "" {
		return c.Model.ID, nil
	}
	return "", fmt.Errorf("%s: no model given — pass --model (zut --list-models shows the choices)", c.Provider)
}

// endpoint joins the base URL and a path.
func (c *Config) endpoint(path string) string {
	return strings.TrimRight(c.BaseURL, "/") + path
}

func (c *Config) prices() *Prices {
	if c.Model == nil || !c.Model.Prices.Known() {
		return nil
	}
	p := c.Model.Prices
	return &p
}

// decoder turns the frames of one response into assembler calls.
type decoder interface {
	// frame decodes one SSE event (name may be empty) or NDJSON line. A
	// stream error event is returned as an *APIError.
	frame(name, data []byte) error
	// done reports whether the final event arrived; the decoder has then
	// called finish on the assembler.
	done() bool
	// endOK is called when the body ends before done. It returns true (after
	// finishing the assembler) when the response is complete anyway.
	endOK() bool
	// reset forgets everything before a retry.
	reset()
}

// call is one logical request: how to send it and how to read the answer.
type call struct {
	cfg    *Config
	url    string
	header http.Header
	body   []byte
	model  string
	frames func(io.Reader) frameReader
	dec    decoder
	asm    *assembler
	// adjust may rewrite the body after a 400 (a server that wants
	// max_tokens instead of max_completion_tokens); it returns false when it
	// has nothing to change.
	adjust func(e *APIError) ([]byte, bool)
	// signed sets the headers of a subscription sign-in besides
	// Authorization (cfg.Bearer set).
	signed func(h http.Header, b Bearer)
}

type streamState int

const (
	stateBegin streamState = iota
	stateConnect
	stateRead
	stateDone
)

// httpStream runs a call with retries and hands out its events. It starts
// no goroutine; the only helper is the idle timer, stopped with each
// attempt.
type httpStream struct {
	ctx    context.Context
	c      *call
	frames frameReader
	qi     int
	// cur is the event of the last Next, in the assembler's queue: the
	// queue is only written again when Next is called again.
	cur     *Event
	err     error
	state   streamState
	attempt int
	wait    time.Duration
	output  bool

	mu     sync.Mutex
	busy   bool // Next is running
	closed bool
	// aborted mirrors closed for Next, which reads it without the lock.
	aborted atomic.Bool
	stop    chan struct{} // closed by Close
	cancel  context.CancelCauseFunc
	actx    context.Context
	resp    *http.Response
	timer   *time.Timer // first-byte deadline, then the progress window

	lim         Limits      // resolved for this stream
	start       time.Time   // the first attempt began
	deadline    *time.Timer // the response deadline of the attempt
	firstByte   time.Duration
	cutByBudget bool          // firstByte was cut to the rest of the retry budget
	body        int64         // body bytes of the attempt
	window      int           // body bytes since the progress window last restarted
	idle        time.Duration // the progress window of the attempt (see idleWindow)
	idleCut     bool          // idle was cut to the rest of the retry budget
	token       string        // the bearer token of the attempt (cfg.Bearer)
	renewed     bool          // a 401 has renewed the token once
}

func newStream(ctx context.Context, c *call) *httpStream {
	c.asm.prices = c.cfg.prices()
	c.asm.model = c.model
	lim := c.cfg.limits()
	c.asm.limit, c.asm.provider = lim.MaxMessage, c.cfg.Provider
	return &httpStream{ctx: ctx, c: c, stop: make(chan struct{}), lim: lim}
}

// Next advances to the next event. An event already decoded, or one whose
// frame is whole in what the body has given, is handed out without taking
// the lock: most frames of a response come many to a read. Only a Close
// since the last call, or the need to read the body (which may block),
// takes the slow path.
func (s *httpStream) Next() bool {
	a := s.c.asm
	for !s.aborted.Load() {
		if s.pop() {
			return true
		}
		if s.state != stateRead {
			break
		}
		name, data, ok := s.frames.buffered()
		if !ok {
			break
		}
		a.out, s.qi = a.out[:0], 0
		s.frame(name, data)
	}
	return s.next()
}

// pop hands out the next queued event, if there is one.
func (s *httpStream) pop() bool {
	a := s.c.asm
	if s.qi >= len(a.out) {
		return false
	}
	s.cur = &a.out[s.qi]
	s.qi++
	if s.cur.Type.output() {
		s.output = true
	}
	return true
}

// next is Next when the queue is empty or Close was called: it marks the
// stream busy (so that Close leaves the attempt's teardown to it) while it
// reads.
func (s *httpStream) next() bool {
	s.mu.Lock()
	if s.closed && s.state != stateDone {
		s.mu.Unlock()
		s.endAttempt()
		s.finish(fmt.Errorf("%s: %w", s.c.cfg.Provider, errClosed))
	} else {
		s.busy = true
		s.mu.Unlock()
	}
	defer func() {
		s.mu.Lock()
		s.busy = false
		s.mu.Unlock()
	}()
	a := s.c.asm
	for {
		if s.pop() {
			return true
		}
		a.out, s.qi = a.out[:0], 0
		switch s.state {
		case stateDone:
			return false
		case stateBegin:
			s.begin()
		case stateConnect:
			s.connect()
		case stateRead:
			s.read()
		}
	}
}

// Event returns the event Next advanced to; it is the zero Event before
// the first call.
func (s *httpStream) Event() Event {
	if s.cur == nil {
		return Event{}
	}
	return *s.cur
}

func (s *httpStream) Err() error       { return s.err }
func (s *httpStream) Message() Message { return s.c.asm.message() }

// Close aborts the request and releases the response. It is safe to call
// at any time, from any goroutine, more than once.
func (s *httpStream) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.aborted.Store(true)
	close(s.stop)
	cancel, busy := s.cancel, s.busy
	s.mu.Unlock()
	if cancel != nil {
		cancel(errClosed)
	}
	if !busy {
		s.endAttempt()
	}
	return nil
}

func (s *httpStream) finish(err error) {
	s.err = err
	s.state = stateDone
}

// begin waits out a retry delay and starts the next attempt.
func (s *httpStream) begin() {
	if s.wait > 0 {
		t := time.NewTimer(s.wait)
		select {
		case <-t.C:
		case <-s.ctx.Done():
			t.Stop()
			s.finish(s.ctx.Err())
			return
		case <-s.stop:
			t.Stop()
			s.finish(fmt.Errorf("%s: %w", s.c.cfg.Provider, errClosed))
			return
		}
		s.wait = 0
	}
	if s.attempt == 0 {
		s.start = time.Now()
	}
	s.attempt++
	s.c.asm.emit(Event{Type: EventRequest, Attempt: s.attempt, MaxAttempts: s.c.cfg.Retry.attempts()})
	s.state = stateConnect
}

// connect sends the request and checks the status. Until the headers
// arrive the first-byte deadline runs (cut to what the retry budget has
// left); after them the progress window does; the response deadline runs
// throughout.
func (s *httpStream) connect() {
	cfg := s.c.cfg
	lim := s.lim
	var bearer Bearer
	if cfg.Bearer != nil {
		b, err := cfg.Bearer.Bearer(s.ctx)
		if err != nil {
			s.finish(err)
			return
		}
		bearer, s.token = b, b.Token
	}
	actx, cancel := context.WithCancelCause(s.ctx)
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		cancel(errClosed)
		s.finish(fmt.Errorf("%s: %w", cfg.Provider, errClosed))
		return
	}
	s.actx, s.cancel = actx, cancel
	s.firstByte, s.cutByBudget = lim.FirstByte, false
	if left := s.budgetLeft(); lim.RetryBudget > 0 && (s.firstByte <= 0 || left < s.firstByte) {
		s.firstByte, s.cutByBudget = max(left, time.Millisecond), true
	}
	if s.firstByte > 0 {
		s.timer = time.AfterFunc(s.firstByte, func() { cancel(errFirstByte) })
	}
	if lim.Response > 0 {
		s.deadline = time.AfterFunc(time.Until(s.start.Add(lim.Response)), func() { cancel(errResponseTimeout) })
	}
	s.mu.Unlock()

	req, err := http.NewRequestWithContext(actx, http.MethodPost, s.c.url, bytes.NewReader(s.c.body))
	if err != nil {
		s.endAttempt()
		s.finish(fmt.Errorf("%s: build request: %v — check --base-url", cfg.Provider, redactIn(redact(err.Error(), cfg.APIKey), s.c.url)))
		return
	}
	for k, v := range s.c.header {
		req.Header[k] = v
	}
	for k, v := range cfg.Header {
		req.Header[k] = v
	}
	if req.Header.Get("User-Agent") == "" {
		req.Header.Set("User-Agent", "zut")
	}
	if cfg.Bearer != nil {
		req.Header.Del("X-Api-Key")
		req.Header.Set("Authorization", "Bearer "+bearer.Token)
		if s.c.signed != nil {
			s.c.signed(req.Header, bearer)
		}
	}
	resp, err := cfg.httpClient().Do(req)
	if err != nil {
		s.endAttempt()
		s.failed(s.connError(actx, err, false))
		return
	}
	s.mu.Lock()
	s.resp = resp
	if s.timer != nil {
		s.timer.Stop()
		s.timer = nil
	}
	s.window, s.body = 0, 0
	s.idle, s.idleCut = s.idleWindow()
	if s.idle > 0 {
		s.timer = time.AfterFunc(s.idle, func() { cancel(errIdle) })
	}
	s.mu.Unlock()
	if resp.StatusCode/100 != 2 {
		body, _ := io.ReadAll(io.LimitReader(&progressReader{r: resp.Body, s: s}, 64<<10))
		s.endAttempt()
		e := &APIError{
			Provider:    cfg.Provider,
			Status:      resp.StatusCode,
			RequestID:   firstNonEmpty(resp.Header.Get("Request-Id"), resp.Header.Get("X-Request-Id")),
			RetryAfter:  retryAfter(resp.Header, time.Now()),
			shouldRetry: shouldRetryHeader(resp.Header),
		}
		parseErrorBody(e, body)
		s.failed(e)
		return
	}
	s.c.asm.start(s.c.model, firstNonEmpty(resp.Header.Get("Request-Id"), resp.Header.Get("X-Request-Id")))
	s.frames = s.c.frames(&progressReader{r: resp.Body, s: s})
	s.state = stateRead
}

// idleWindow is the progress window of an attempt: Limits.Idle, cut to
// what the retry budget has left for a retry that has brought no output,
// so that a server trickling bytes costs no more than the retry budget,
// as a silent one does (a first attempt keeps the whole window: a model
// may think quietly for a while). cut reports the cut.
func (s *httpStream) idleWindow() (window time.Duration, cut bool) {
	if s.lim.Idle <= 0 || s.attempt < 2 || s.output || s.lim.RetryBudget <= 0 {
		return s.lim.Idle, false
	}
	if left := s.budgetLeft(); left < s.lim.Idle {
		return max(left, time.Millisecond), true
	}
	return s.lim.Idle, false
}

// budgetLeft is what the retry budget has left (0 when spent).
func (s *httpStream) budgetLeft() time.Duration {
	if s.lim.RetryBudget <= 0 {
		return 0
	}
	return max(0, s.lim.RetryBudget-time.Since(s.start))
}

// errBodyLimit ends a body read past Limits.MaxBody.
var errBodyLimit = errors.New("response body limit")

// progressReader counts the bytes of the body: each MinProgress of them
// restarts the progress window, and MaxBody ends the read.
type progressReader struct {
	r io.Reader
	s *httpStream
}

func (r *progressReader) Read(p []byte) (int, error) {
	s := r.s
	if s.body >= s.lim.MaxBody {
		return 0, errBodyLimit
	}
	if rest := s.lim.MaxBody - s.body; int64(len(p)) > rest {
		p = p[:rest]
	}
	n, err := r.r.Read(p)
	if n > 0 {
		s.body += int64(n)
		s.window += n
		if s.window >= s.lim.MinProgress {
			s.window = 0
			if s.timer != nil {
				s.idle, s.idleCut = s.idleWindow()
				s.timer.Reset(s.idle)
			}
		}
	}
	return n, err
}

// read reads and decodes the next frame.
func (s *httpStream) read() {
	name, data, err := s.frames.next()
	if err == nil {
		s.frame(name, data)
		return
	}
	actx := s.actx
	s.endAttempt()
	if err == io.EOF {
		if s.c.dec.endOK() {
			s.state = stateDone
			return
		}
		s.failed(&ConnError{Provider: s.c.cfg.Provider, URL: RedactURL(s.c.url), Truncated: true, Err: errTruncated})
		return
	}
	if errors.Is(err, errBodyLimit) {
		s.finish(&LimitError{Provider: s.c.cfg.Provider, What: "body", Limit: s.lim.MaxBody, Field: "MaxBody"})
		return
	}
	if errors.Is(err, errFrameTooLarge) {
		s.finish(fmt.Errorf("%s: read %s: %w", s.c.cfg.Provider, RedactURL(s.c.url), err))
		return
	}
	s.failed(s.connError(actx, err, true))
}

// frame decodes one frame of the body. It reads nothing, so Next may call
// it without marking the stream busy: what it may end (the attempt) it
// ends under the lock, as Close does.
func (s *httpStream) frame(name, data []byte) {
	if ferr := s.c.dec.frame(name, data); ferr != nil {
		s.endAttempt()
		s.failed(ferr)
		return
	}
	if lerr := s.c.asm.err; lerr != nil {
		s.endAttempt()
		s.finish(lerr)
		return
	}
	if s.c.dec.done() {
		s.endAttempt()
		s.state = stateDone
	}
}

// endAttempt stops the idle timer, closes the response body and releases
// the attempt's context.
func (s *httpStream) endAttempt() {
	s.mu.Lock()
	t, dl, resp, cancel := s.timer, s.deadline, s.resp, s.cancel
	s.timer, s.deadline, s.resp, s.cancel = nil, nil, nil, nil
	s.mu.Unlock()
	if t != nil {
		t.Stop()
	}
	if dl != nil {
		dl.Stop()
	}
	if resp != nil {
		resp.Body.Close()
	}
	if cancel != nil {
		cancel(nil)
	}
}

// connError describes a failed connection or read.
func (s *httpStream) connError(actx context.Context, err error, reading bool) error {
	cfg := s.c.cfg
	ce := &ConnError{Provider: cfg.Provider, URL: RedactURL(s.c.url), Truncated: reading, URLSource: cfg.URLSource}
	switch cause := context.Cause(actx); {
	case errors.Is(cause, errIdle):
		ce.Idle, ce.Received, ce.MinProgress = s.idle, s.window, s.lim.MinProgress
		if s.idleCut {
			ce.Budget = s.lim.RetryBudget
		}
		ce.Truncated = false
		ce.Err = errIdle
		return ce
	case errors.Is(cause, errFirstByte):
		ce.FirstByte, ce.Truncated = s.firstByte, false
		if s.cutByBudget {
			ce.Budget = s.lim.RetryBudget
		}
		ce.Err = errFirstByte
		return ce
	case errors.Is(cause, errResponseTimeout):
		ce.Response = s.lim.Response
		ce.Err = &permanent{errResponseTimeout}
		return ce
	case errors.Is(cause, errClosed):
		return fmt.Errorf("%s: %w", cfg.Provider, errClosed)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	ce.Err = errors.New(redactIn(s.hide(err.Error()), s.c.url))
	if !retryableConn(err) {
		ce.Err = &permanent{ce.Err}
	}
	return ce
}

// hide redacts the key and the bearer token of the attempt from text.
func (s *httpStream) hide(text string) string {
	return redact(redact(text, s.c.cfg.APIKey), s.token)
}

// permanent marks a connection error that another attempt cannot fix.
type permanent struct{ err error }

func (p *permanent) Error() string { return p.err.Error() }
func (p *permanent) Unwrap() error { return p.err }

// retryableConn says whether a transport error may pass on another attempt:
// unknown hosts and bad certificates will not.
func retryableConn(err error) bool {
	var p *permanent
	if errors.As(err, &p) {
		return false
	}
	var dns *net.DNSError
	if errors.As(err, &dns) && dns.IsNotFound {
		return false
	}
	var unknownCA x509.UnknownAuthorityError
	var hostname x509.HostnameError
	var invalid x509.CertificateInvalidError
	if errors.As(err, &unknownCA) || errors.As(err, &hostname) || errors.As(err, &invalid) {
		return false
	}
	return true
}

// failed decides between another attempt and giving up.
func (s *httpStream) failed(err error) {
	cfg := s.c.cfg
	if s.ctx.Err() != nil {
		s.finish(s.ctx.Err())
		return
	}
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if closed {
		s.finish(fmt.Errorf("%s: %w", cfg.Provider, errClosed))
		return
	}
	var ae *APIError
	var ce *ConnError
	retry, serverDelay := false, time.Duration(0)
	switch {
	case errors.As(err, &ae):
		ae.Message = s.hide(ae.Message)
		if ae.Status == http.StatusUnauthorized && cfg.Bearer != nil && !s.renewed && !s.output {
			// The token may have been revoked or expired early: renew it
			// once (another zut may already have) and try again.
			s.renewed = true
			if _, rerr := cfg.Bearer.Renew(s.ctx, s.token); rerr != nil {
				s.finish(rerr)
				return
			}
			s.retry(err, 0)
			return
		}
		if (ae.Status == http.StatusBadRequest || ae.Status == http.StatusUnprocessableEntity) && s.c.adjust != nil && !s.output {
			if body, ok := s.c.adjust(ae); ok {
				s.c.body = body
				s.retry(err, 0)
				return
			}
		}
		retry, serverDelay = ae.retryable(), ae.RetryAfter
	case errors.As(err, &ce):
		var p *permanent
		retry = !errors.As(ce.Err, &p)
	}
	spent := false
	if retry && !s.output && s.attempt < cfg.Retry.attempts() {
		d := cfg.Retry.delay(s.attempt, serverDelay)
		if s.lim.RetryBudget <= 0 || time.Since(s.start)+d < s.lim.RetryBudget {
			s.retry(err, d)
			return
		}
		spent = true
	}
	switch {
	case ae != nil:
		ae.Attempts = s.attempt
		hintFor(ae, cfg.KeyHint, s.c.model, RedactURL(cfg.BaseURL))
		if spent {
			ae.Hint = strings.TrimPrefix(ae.Hint+"; ", "; ") + fmt.Sprintf("zut stopped retrying when its retry budget of %s was spent (%s)", s.lim.RetryBudget, settingHint("RetryBudget"))
		}
	case ce != nil:
		ce.Attempts = s.attempt
		if spent {
			ce.Budget = s.lim.RetryBudget
		}
	}
	s.finish(err)
}

// retry queues EventRetry and schedules the next attempt after d.
func (s *httpStream) retry(err error, d time.Duration) {
	s.c.asm.reset()
	s.c.dec.reset()
	s.c.asm.emit(Event{Type: EventRetry, Attempt: s.attempt, MaxAttempts: s.c.cfg.Retry.attempts(), Delay: d, Err: err})
	s.wait = d
	s.state = stateBegin
}
