package provider

import (
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// RetryPolicy bounds the attempts of one request. The zero value uses the
// defaults: 5 attempts, backoff from 0.5 s doubling to at most 8 s with up
// to 25% jitter, and server-requested delays up to 60 s.
type RetryPolicy struct {
	MaxAttempts int           // total attempts including the first; 1 disables retries
	BaseDelay   time.Duration // first backoff delay
	MaxDelay    time.Duration // backoff cap
	// MaxServerDelay is the longest retry-after zut obeys; longer requests
	// fall back to backoff.
	MaxServerDelay time.Duration
}

func (p RetryPolicy) attempts() int {
	if p.MaxAttempts <= 0 {
		return 5
	}
	return p.MaxAttempts
}

// backoff is the delay before attempt n+1 after attempt n failed.
func (p RetryPolicy) backoff(n int) time.Duration {
	base, maxd := p.BaseDelay, p.MaxDelay
	if base <= 0 {
		base = 500 * time.Millisecond
	}
	if maxd <= 0 {
		maxd = 8 * time.Second
	}
	d := base
	for i := 1; i < n && d < maxd; i++ {
		d *= 2
	}
	d = min(d, maxd)
	jitter := 1 - 0.25*rand.Float64()
	return time.Duration(float64(d) * jitter)
}

// delay is the wait before the next attempt: the server's request when it
// is sensible, else backoff.
func (p RetryPolicy) delay(n int, serverDelay time.Duration) time.Duration {
	limit := p.MaxServerDelay
	if limit <= 0 {
		limit = 60 * time.Second
	}
	if serverDelay > 0 && serverDelay <= limit {
		return serverDelay
	}
	return p.backoff(n)
}

// retryAfter reads retry-after-ms, then retry-after (seconds or an HTTP
// date) from h. It returns 0 when neither is usable.
func retryAfter(h http.Header, now time.Time) time.Duration {
	if v := h.Get("Retry-After-Ms"); v != "" {
		if ms, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil && ms > 0 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s > 0 {
			return time.Duration(s * float64(time.Second))
		}
		return 0
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}

// shouldRetryHeader reads x-should-retry: 1 for true, -1 for false, 0 when
// absent.
func shouldRetryHeader(h http.Header) int {
	switch strings.ToLower(strings.TrimSpace(h.Get("X-Should-Retry"))) {
	case "true":
		return 1
	case "false":
		return -1
	}
	return 0
}

// retryable says whether an API error may succeed on another attempt.
// Quota errors never do; then the server's x-should-retry decides; then the
// status: 408, 409, 429 and 5xx are retried, other 4xx are not.
func (e *APIError) retryable() bool {
	if e.Quota() {
		return false
	}
	switch e.shouldRetry {
	case 1:
		return true
	case -1:
		return false
	}
	switch {
	case e.Status == http.StatusRequestTimeout, e.Status == http.StatusConflict,
		e.Status == http.StatusTooManyRequests, e.Status >= 500:
		return true
	}
	return false
}
