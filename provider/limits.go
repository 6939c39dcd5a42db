package provider

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Limits bound the time and the size of one request and its response.
// A zero field takes the default shown; a negative duration turns that
// bound off. Each has an environment variable, read by Resolve when the
// field is zero, and a config.json setting the app passes in
// Options.Limits; the error of each bound names both (see LimitSettings).
type Limits struct {
	// FirstByte bounds one attempt from sending the request to the
	// response headers: 60 s.
	FirstByte time.Duration
	// Idle is the window in which at least MinProgress bytes of the body
	// must arrive once the headers are in: 120 s. (Config.IdleTimeout
	// sets it too, for older callers.)
	Idle time.Duration
	// MinProgress is the number of bytes each Idle window must bring, so
	// that a server trickling a byte every few seconds is cut off like a
	// silent one: 256 (a ping every 15 s still passes). Negative: 1.
	MinProgress int
	// Response bounds the whole response, from the first attempt to the
	// last event, retries included: 60 min.
	Response time.Duration
	// RetryBudget bounds all attempts and the waits between them: no
	// attempt starts once it is spent, and the first-byte deadline of the
	// last one is cut to what is left: 3 min.
	RetryBudget time.Duration
	// MaxBody bounds the bytes of one response body: 16 times MaxMessage.
	MaxBody int64
	// MaxMessage bounds the text, thinking and tool arguments assembled
	// from one response, together: 64 bytes per token of the model's
	// max output, at least 32 MiB.
	MaxMessage int64
}

// Defaults of Limits.
const (
	DefaultFirstByte   = 60 * time.Second
	DefaultIdle        = 120 * time.Second
	DefaultMinProgress = 256
	DefaultResponse    = 60 * time.Minute
	DefaultRetryBudget = 3 * time.Minute
	// MinMessageLimit is the least MaxMessage defaults to.
	MinMessageLimit = 32 << 20
)

// LimitSetting names the environment variable and the config.json key of
// one field of Limits.
type LimitSetting struct {
	Field   string // the Limits field
	Env     string // environment variable, read by Resolve
	Key     string // config.json member the app reads into Options.Limits
	Default string // the default, as the docs show it
}

// LimitSettings are the names of every bound, for the app's settings,
// its help and docs/providers.md.
var LimitSettings = []LimitSetting{
	{Field: "FirstByte", Env: "ZUT_FIRST_BYTE_TIMEOUT", Key: "first_byte_timeout", Default: "60s"},
	{Field: "Idle", Env: "ZUT_IDLE_TIMEOUT", Key: "idle_timeout", Default: "120s"},
	{Field: "MinProgress", Env: "ZUT_MIN_PROGRESS", Key: "min_progress_bytes", Default: "256"},
	{Field: "Response", Env: "ZUT_RESPONSE_TIMEOUT", Key: "response_timeout", Default: "60m"},
	{Field: "RetryBudget", Env: "ZUT_RETRY_BUDGET", Key: "retry_budget", Default: "3m"},
	{Field: "MaxBody", Env: "ZUT_MAX_RESPONSE_BYTES", Key: "max_response_bytes", Default: "16 × max_message_bytes"},
	{Field: "MaxMessage", Env: "ZUT_MAX_MESSAGE_BYTES", Key: "max_message_bytes", Default: "max(32 MiB, 64 B × max output tokens)"},
}

// settingHint says how to change the bound of field, for messages.
func settingHint(field string) string {
	for _, s := range LimitSettings {
		if s.Field == field {
			return fmt.Sprintf("%s or the %q setting", s.Env, s.Key)
		}
	}
	return field
}

// LimitsFromEnv reads the Limits environment variables through getenv.
// Durations take Go syntax ("90s", "5m") or plain seconds; sizes take
// bytes with an optional KiB, MiB or GiB suffix. A malformed value is an
// error naming the variable.
func LimitsFromEnv(getenv func(string) string) (Limits, error) {
	var l Limits
	if getenv == nil {
		return l, nil
	}
	for _, s := range LimitSettings {
		v := strings.TrimSpace(getenv(s.Env))
		if v == "" {
			continue
		}
		var err error
		switch s.Field {
		case "FirstByte":
			l.FirstByte, err = ParseDuration(v)
		case "Idle":
			l.Idle, err = ParseDuration(v)
		case "Response":
			l.Response, err = ParseDuration(v)
		case "RetryBudget":
			l.RetryBudget, err = ParseDuration(v)
		case "MinProgress":
			var n int64
			n, err = ParseSize(v)
			l.MinProgress = int(n)
		case "MaxBody":
			l.MaxBody, err = ParseSize(v)
		case "MaxMessage":
			l.MaxMessage, err = ParseSize(v)
		}
		if err != nil {
			return Limits{}, fmt.Errorf("%s=%q: %v", s.Env, v, err)
		}
	}
	return l, nil
}

// ParseDuration reads "90s", "5m", "1h30m" or plain seconds ("90"); "0"
// is the default and "off" (or a negative value) turns a bound off.
func ParseDuration(v string) (time.Duration, error) {
	v = strings.TrimSpace(v)
	if strings.EqualFold(v, "off") {
		return -1, nil
	}
	if n, err := strconv.ParseFloat(v, 64); err == nil {
		return time.Duration(n * float64(time.Second)), nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return 0, errors.New("want a duration such as 90s or 5m, or off")
	}
	return d, nil
}

// ParseSize reads a byte count: "1048576", "512KiB", "32MiB", "1GiB"
// (KB, MB and GB are read as the binary units too).
func ParseSize(v string) (int64, error) {
	v = strings.TrimSpace(v)
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		n      int64
	}{{"gib", 1 << 30}, {"mib", 1 << 20}, {"kib", 1 << 10}, {"gb", 1 << 30}, {"mb", 1 << 20}, {"kb", 1 << 10}, {"b", 1}} {
		if strings.HasSuffix(strings.ToLower(v), u.suffix) {
			v, mult = strings.TrimSpace(v[:len(v)-len(u.suffix)]), u.n
			break
		}
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return 0, errors.New("want a byte count such as 65536 or 32MiB")
	}
	return n * mult, nil
}

// merge fills the zero fields of l from o.
func (l Limits) merge(o Limits) Limits {
	if l.FirstByte == 0 {
		l.FirstByte = o.FirstByte
	}
	if l.Idle == 0 {
		l.Idle = o.Idle
	}
	if l.MinProgress == 0 {
		l.MinProgress = o.MinProgress
	}
	if l.Response == 0 {
		l.Response = o.Response
	}
	if l.RetryBudget == 0 {
		l.RetryBudget = o.RetryBudget
	}
	if l.MaxBody == 0 {
		l.MaxBody = o.MaxBody
	}
	if l.MaxMessage == 0 {
		l.MaxMessage = o.MaxMessage
	}
	return l
}

// resolved returns l with every default applied for a model whose max
// output is maxOutput tokens (0 when unknown).
func (l Limits) resolved(maxOutput int) Limits {
	def := func(d *time.Duration, v time.Duration) {
		if *d == 0 {
			*d = v
		}
	}
	def(&l.FirstByte, DefaultFirstByte)
	def(&l.Idle, DefaultIdle)
	def(&l.Response, DefaultResponse)
	def(&l.RetryBudget, DefaultRetryBudget)
	if l.MinProgress == 0 {
		l.MinProgress = DefaultMinProgress
	}
	if l.MinProgress < 0 {
		l.MinProgress = 1
	}
	if l.MaxMessage <= 0 {
		l.MaxMessage = max(MinMessageLimit, int64(maxOutput)*64)
	}
	if l.MaxBody <= 0 {
		l.MaxBody = 16 * l.MaxMessage
	}
	return l
}

// LimitError is a response that outgrew a size bound: the body (What is
// "body") or the assembled message ("message"). It is never retried: a
// server streaming past any real answer would do it again.
type LimitError struct {
	Provider string
	What     string // "body" or "message"
	Limit    int64
	Field    string // the Limits field
}

func (e *LimitError) Error() string {
	what := "response body"
	if e.What == "message" {
		what = "text, thinking and tool arguments of the response"
	}
	return fmt.Sprintf("%s: the %s passed %s, so zut stopped reading — the server kept streaming past any real answer; if the answer is genuinely that long, raise %s", e.Provider, what, sizeText(e.Limit), settingHint(e.Field))
}

// errFirstByte, errResponseTimeout and errBudget are cancellation
// causes of an attempt.
var (
	errFirstByte       = errors.New("first-byte timeout")
	errResponseTimeout = errors.New("response timeout")
)
