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
	// IdleTimeout aborts an attempt when no byte arrives for this long
	// (waiting for headers included). Zero means 120 s; negative disables.
	IdleTimeout time.Duration
	// Model is the catalog entry of the model: default output limit,
	// reasoning style and prices (costs are filled in when it is set).
	Model *Model
}

func (c *Config) idleTimeout() time.Duration {
	if c.IdleTimeout == 0 {
		return 120 * time.Second
	}
	return c.IdleTimeout
}

func (c *Config) httpClient() *http.Client {
	if c.HTTPClient != nil {
		return c.HTTPClient
	}
	return defaultHTTPClient
}

var defaultHTTPClient = &http.Client{}

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
	ctx     context.Context
	c       *call
	frames  frameReader
	qi      int
	ev      Event
	err     error
	state   streamState
	attempt int
	wait    time.Duration
	output  bool

	mu     sync.Mutex
	busy   bool // Next is running
	closed bool
	stop   chan struct{} // closed by Close
	cancel context.CancelCauseFunc
	actx   context.Context
	resp   *http.Response
	timer  *time.Timer
}

func newStream(ctx context.Context, c *call) *httpStream {
	c.asm.prices = c.cfg.prices()
	c.asm.model = c.model
	return &httpStream{ctx: ctx, c: c, stop: make(chan struct{})}
}

// Next advances to the next event.
func (s *httpStream) Next() bool {
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
		if s.qi < len(a.out) {
			s.ev = a.out[s.qi]
			s.qi++
			if s.ev.Output() {
				s.output = true
			}
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

func (s *httpStream) Event() Event     { return s.ev }
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
	s.attempt++
	s.c.asm.emit(Event{Type: EventRequest, Attempt: s.attempt, MaxAttempts: s.c.cfg.Retry.attempts()})
	s.state = stateConnect
}

// connect sends the request and checks the status.
func (s *httpStream) connect() {
	cfg := s.c.cfg
	actx, cancel := context.WithCancelCause(s.ctx)
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		cancel(errClosed)
		s.finish(fmt.Errorf("%s: %w", cfg.Provider, errClosed))
		return
	}
	s.actx, s.cancel = actx, cancel
	if idle := cfg.idleTimeout(); idle > 0 {
		s.timer = time.AfterFunc(idle, func() { cancel(errIdle) })
	}
	s.mu.Unlock()

	req, err := http.NewRequestWithContext(actx, http.MethodPost, s.c.url, bytes.NewReader(s.c.body))
	if err != nil {
		s.endAttempt()
		s.finish(fmt.Errorf("%s: build request: %v — check --base-url", cfg.Provider, redact(err.Error(), cfg.APIKey)))
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
	resp, err := cfg.httpClient().Do(req)
	if err != nil {
		s.endAttempt()
		s.failed(s.connError(actx, err, false))
		return
	}
	s.mu.Lock()
	s.resp = resp
	s.mu.Unlock()
	if resp.StatusCode/100 != 2 {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
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
	s.resetIdle()
	s.c.asm.start(s.c.model, firstNonEmpty(resp.Header.Get("Request-Id"), resp.Header.Get("X-Request-Id")))
	s.frames = s.c.frames(&idleReader{r: resp.Body, s: s})
	s.state = stateRead
}

// idleReader restarts the idle timer whenever bytes arrive.
type idleReader struct {
	r io.Reader
	s *httpStream
}

func (r *idleReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if n > 0 {
		r.s.resetIdle()
	}
	return n, err
}

func (s *httpStream) resetIdle() {
	if s.timer != nil {
		s.timer.Reset(s.c.cfg.idleTimeout())
	}
}

// read decodes the next frame.
func (s *httpStream) read() {
	name, data, err := s.frames.next()
	if err == nil {
		if ferr := s.c.dec.frame(name, data); ferr != nil {
			s.endAttempt()
			s.failed(ferr)
			return
		}
		if s.c.dec.done() {
			s.endAttempt()
			s.state = stateDone
		}
		return
	}
	actx := s.actx
	s.endAttempt()
	if err == io.EOF {
		if s.c.dec.endOK() {
			s.state = stateDone
			return
		}
		s.failed(&ConnError{Provider: s.c.cfg.Provider, URL: s.c.url, Truncated: true, Err: errTruncated})
		return
	}
	if errors.Is(err, errFrameTooLarge) {
		s.finish(fmt.Errorf("%s: read %s: %w", s.c.cfg.Provider, s.c.url, err))
		return
	}
	s.failed(s.connError(actx, err, true))
}

// endAttempt stops the idle timer, closes the response body and releases
// the attempt's context.
func (s *httpStream) endAttempt() {
	s.mu.Lock()
	t, resp, cancel := s.timer, s.resp, s.cancel
	s.timer, s.resp, s.cancel = nil, nil, nil
	s.mu.Unlock()
	if t != nil {
		t.Stop()
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
	ce := &ConnError{Provider: cfg.Provider, URL: s.c.url, Truncated: reading, URLSource: cfg.URLSource}
	switch cause := context.Cause(actx); {
	case errors.Is(cause, errIdle):
		ce.Idle = cfg.idleTimeout()
		ce.Truncated = false
		ce.Err = errIdle
		return ce
	case errors.Is(cause, errClosed):
		return fmt.Errorf("%s: %w", cfg.Provider, errClosed)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	ce.Err = errors.New(redact(err.Error(), cfg.APIKey))
	if !retryableConn(err) {
		ce.Err = &permanent{ce.Err}
	}
	return ce
}

// permanent marks a connection error that another attempt cannot fix.
type permanent struct{ err error }

func (p *permanent) Error() string { return p.err.Error() }
func (p *permanent) Unwrap() error { return p.err }

// retryableConn says whether a transport error may pass on another attempt:
// unknown hosts and bad certificates will not.
func retryableConn(err error) bool {
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
		ae.Message = redact(ae.Message, cfg.APIKey)
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
	if retry && !s.output && s.attempt < cfg.Retry.attempts() {
		s.retry(err, cfg.Retry.delay(s.attempt, serverDelay))
		return
	}
	switch {
	case ae != nil:
		ae.Attempts = s.attempt
		hintFor(ae, cfg.KeyHint, s.c.model, cfg.BaseURL)
	case ce != nil:
		ce.Attempts = s.attempt
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
