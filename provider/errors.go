package provider

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// APIError is an error answered by a model API: an HTTP status with an error
// body, or an error event inside a stream (Status is then the status the
// error type stands for, for example 529 for overloaded_error). Callers
// branch on Status and Type; Error gives the one line a user should see.
type APIError struct {
	Provider   string        // provider name, for example "anthropic"
	Status     int           // HTTP status (or the one the stream error implies)
	Type       string        // provider error type, for example "rate_limit_error"
	Code       string        // provider error code when it has one ("insufficient_quota")
	Message    string        // provider message, with any API key removed
	RequestID  string        // provider request ID, for support tickets
	RetryAfter time.Duration // server-requested delay before retrying, if any
	Attempts   int           // attempts made before giving up
	// Hint says what the user should do; Error appends it.
	Hint string
	// shouldRetry is the x-should-retry header: 1 yes, -1 no, 0 absent.
	shouldRetry int
	inStream    bool
}

func (e *APIError) Error() string {
	var b strings.Builder
	b.WriteString(e.Provider)
	b.WriteString(": ")
	if e.Status != 0 && !e.inStream {
		b.WriteString(strconv.Itoa(e.Status))
		b.WriteByte(' ')
	}
	kind := e.Type
	if _, err := strconv.Atoi(e.Code); e.Code != "" && err != nil {
		kind = e.Code // codes are the more specific ("invalid_api_key")
	}
	if kind == "" && e.Status != 0 {
		kind = strings.ToLower(http.StatusText(e.Status))
	}
	if kind == "" {
		kind = "error"
	}
	b.WriteString(kind)
	if msg := shortMessage(e.Message); msg != "" {
		b.WriteString(": ")
		b.WriteString(msg)
	}
	if e.Hint != "" {
		b.WriteString(" — ")
		b.WriteString(e.Hint)
	}
	return b.String()
}

// Quota reports whether the error says the account is out of money or quota
// (retrying cannot help).
func (e *APIError) Quota() bool {
	if e.Code == "insufficient_quota" || e.Type == "insufficient_quota" || e.Status == http.StatusPaymentRequired {
		return true
	}
	m := strings.ToLower(e.Message)
	for _, s := range []string{"quota", "credit balance", "insufficient balance", "billing", "out of credits", "insufficient credits"} {
		if strings.Contains(m, s) {
			return true
		}
	}
	return false
}

// shortMessage keeps the first line of a provider message, at most about
// 200 characters, cut at a word.
func shortMessage(m string) string {
	m = strings.TrimSpace(m)
	if i := strings.IndexByte(m, '\n'); i >= 0 {
		m = strings.TrimSpace(m[:i])
	}
	const limit = 200
	if len(m) <= limit {
		return m
	}
	cut := strings.LastIndexByte(m[:limit], ' ')
	if cut < limit/2 {
		cut = limit
	}
	return strings.TrimRight(m[:cut], " ,.;:") + "…"
}

// ConnError is a request that got no complete answer: the connection failed,
// the server did not answer in time or went silent (or trickled), or the
// stream ended before its final event. Its message names the setting
// that governs the bound that ran out.
type ConnError struct {
	Provider string
	URL      string // request URL without query, user information hidden
	// Idle is the progress window that expired, when that is the cause;
	// Received is what arrived in it (less than MinProgress).
	Idle        time.Duration
	Received    int
	MinProgress int
	// FirstByte is the first-byte deadline that expired, when that is the
	// cause.
	FirstByte time.Duration
	// Response is the whole-response deadline that expired, when that is
	// the cause.
	Response time.Duration
	// Budget is set when the retry budget stopped further attempts.
	Budget time.Duration
	// Truncated is set when the response stream ended before its final event.
	Truncated bool
	Attempts  int
	Err       error
	// URLSource says where the base URL came from ("--base-url",
	// "$OLLAMA_HOST", ".../models.json"); "" when unknown.
	URLSource string
}

func (e *ConnError) Error() string {
	var what, hint string
	switch {
	case e.Idle > 0 && e.Received > 0:
		what = fmt.Sprintf("only %d bytes from %s in %s (at least %d must arrive in each such window)", e.Received, e.URL, roundDur(e.Idle), e.MinProgress)
		hint = "the server is trickling; try again, or change " + settingHint("Idle") + " or " + settingHint("MinProgress")
	case e.Idle > 0:
		what = fmt.Sprintf("no data from %s for %s", e.URL, roundDur(e.Idle))
		hint = "the server stalled; try again, or raise " + settingHint("Idle") + " for slow local models"
	case e.FirstByte > 0:
		what = fmt.Sprintf("no answer from %s within %s of sending the request", e.URL, roundDur(e.FirstByte))
		hint = "the server is not answering; check it and --base-url, or raise " + settingHint("FirstByte") + " for a server that takes long to start"
	case e.Response > 0:
		what = fmt.Sprintf("the response from %s took longer than %s", e.URL, roundDur(e.Response))
		hint = "raise " + settingHint("Response") + " for very long answers"
	case e.Truncated:
		what = fmt.Sprintf("response from %s ended early: %v", e.URL, e.Err)
		hint = "the connection was cut; try again"
	default:
		what = fmt.Sprintf("request %s: %v", e.URL, e.Err)
		hint = "check the network and --base-url"
		if e.URLSource != "" && e.URLSource != "--base-url" {
			hint = "check the network and the URL, which comes from " + e.URLSource
		}
	}
	if e.Attempts > 1 {
		what += fmt.Sprintf(" (after %d attempts)", e.Attempts)
	}
	if e.Budget > 0 {
		hint += fmt.Sprintf("; zut stopped retrying when its retry budget of %s was spent (%s)", roundDur(e.Budget), settingHint("RetryBudget"))
	}
	return e.Provider + ": " + what + " — " + hint
}

// roundDur prints a bound readably: whole seconds from 10 s up.
func roundDur(d time.Duration) time.Duration {
	if d >= 10*time.Second {
		return d.Round(time.Second)
	}
	return d.Round(time.Millisecond)
}

func (e *ConnError) Unwrap() error { return e.Err }

// errIdle is the cancellation cause of an attempt that went silent.
var errIdle = errors.New("idle timeout")

// errTruncated is the cause inside a ConnError for a stream that ended
// before its final event.
var errTruncated = errors.New("stream ended before its final event")

// errClosed is the cancellation cause when the caller closes a stream.
var errClosed = errors.New("stream closed")

// errorBody is the union of the error bodies model APIs send.
type errorBody struct {
	Type  string          `json:"type"`
	Error json.RawMessage `json:"error"`
	// Some servers put the fields at the top level.
	Message   string          `json:"message"`
	Detail    json.RawMessage `json:"detail"`
	Code      json.RawMessage `json:"code"`
	RequestID string          `json:"request_id"`
}

type errorObject struct {
	Type    string          `json:"type"`
	Message string          `json:"message"`
	Code    json.RawMessage `json:"code"`
}

// parseErrorBody fills e from an error body (JSON of any common shape, or
// text).
func parseErrorBody(e *APIError, body []byte) {
	var eb errorBody
	if json.Unmarshal(body, &eb) != nil {
		e.Message = textBody(body)
		return
	}
	e.RequestID = firstNonEmpty(e.RequestID, eb.RequestID)
	e.Code = codeString(eb.Code)
	var obj errorObject
	var s string
	switch {
	case len(eb.Error) > 0 && json.Unmarshal(eb.Error, &obj) == nil && (obj.Message != "" || obj.Type != ""):
		e.Type, e.Message = obj.Type, obj.Message
		if c := codeString(obj.Code); c != "" {
			e.Code = c
		}
	case len(eb.Error) > 0 && json.Unmarshal(eb.Error, &s) == nil:
		e.Message = s
	case eb.Message != "":
		e.Message = eb.Message
		if eb.Type != "error" {
			e.Type = eb.Type
		}
	case len(eb.Detail) > 0:
		if json.Unmarshal(eb.Detail, &s) == nil {
			e.Message = s
		} else {
			e.Message = string(eb.Detail)
		}
	default:
		e.Message = textBody(body)
	}
}

// codeString renders an error code that may be a string or a number.
func codeString(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

// textBody turns a non-JSON error body (an HTML proxy page, plain text) into
// one short line.
func textBody(b []byte) string {
	s := strings.TrimSpace(string(b))
	if strings.HasPrefix(s, "<") {
		lower := asciiLower(s) // same length as s, so indices carry over
		if i := strings.Index(lower, "<title>"); i >= 0 {
			if j := strings.Index(lower[i+7:], "</title>"); j >= 0 {
				return strings.TrimSpace(s[i+7 : i+7+j])
			}
		}
		return "the server answered with an HTML page"
	}
	return s
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

// streamErrorStatus maps a stream error type to the HTTP status it stands
// for, so stream errors follow the same retry rules as HTTP ones.
func streamErrorStatus(typ string) int {
	switch typ {
	case "overloaded_error", "overloaded":
		return 529
	case "api_error", "server_error", "internal_error":
		return http.StatusInternalServerError
	case "rate_limit_error", "rate_limit_exceeded", "tokens", "requests":
		return http.StatusTooManyRequests
	case "authentication_error":
		return http.StatusUnauthorized
	case "permission_error":
		return http.StatusForbidden
	case "not_found_error":
		return http.StatusNotFound
	case "request_too_large":
		return http.StatusRequestEntityTooLarge
	}
	return http.StatusBadRequest
}

// redact removes secret from s.
func redact(s, secret string) string {
	if len(secret) < 8 {
		return s
	}
	return strings.ReplaceAll(s, secret, "[redacted]")
}

// hintFor fills e.Hint with what the user should do for this status and
// type. keyHint names where the key comes from ("set ANTHROPIC_API_KEY or
// run zut with --api-key"); model is the requested model.
func hintFor(e *APIError, keyHint, model, baseURL string) {
	msg := strings.ToLower(e.Message)
	switch {
	case e.Quota():
		e.Hint = "the account is out of credit or quota; add billing at the provider or switch provider (retrying will not help)"
	case e.Status == http.StatusUnauthorized:
		e.Hint = firstNonEmpty(keyHint, "check the API key or run zut with --api-key")
	case e.Status == http.StatusForbidden:
		e.Hint = "the key is not allowed to use this model or feature; check the account's access, or pick another model with --model"
	case e.Status == http.StatusNotFound && (strings.Contains(msg, "model") || e.Code == "model_not_found" || e.Type == "not_found_error"):
		e.Hint = fmt.Sprintf("model %q is unknown here; run zut --list-models, then pass --model", model)
	case e.Status == http.StatusNotFound:
		e.Hint = fmt.Sprintf("nothing answers at %s; check --base-url", baseURL)
	case e.Status == http.StatusRequestEntityTooLarge:
		e.Hint = "the request is too large; remove big attachments or compact the conversation"
	case strings.Contains(msg, "context length") || strings.Contains(msg, "context window") ||
		strings.Contains(msg, "prompt is too long") || strings.Contains(msg, "too many tokens") ||
		e.Code == "context_length_exceeded":
		e.Hint = "the conversation no longer fits the model's context window; compact it or start a new session"
	case e.Status == http.StatusTooManyRequests:
		e.Hint = "rate limited; wait a minute and retry, or use a smaller model"
	case e.Status == 529 || e.Status >= 500:
		e.Hint = "the provider is overloaded or failing; try again shortly or switch model"
	case e.Status == http.StatusBadRequest || e.Status == http.StatusUnprocessableEntity:
		e.Hint = "the provider rejected the request; check --model and its options (see docs/providers.md)"
	}
}

// asciiLower lowers ASCII letters only, keeping byte offsets.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
