package provider

import (
	"fmt"
	"net/url"
	"strings"
)

// BaseURLError is a base URL zut cannot send requests to: no scheme, a
// scheme other than http and https, or no host. It is a usage error: the
// app reports it at once and exits with the usage status. The URL in the
// message has any user:password@ part hidden.
type BaseURLError struct {
	URL    string // as given (print it with RedactURL)
	Source string // where it came from: "--base-url", an environment variable, "models.json"
	Reason string // "no scheme", `unknown scheme "htp"`, "no host"
	Fix    string // the corrected form, when one can be guessed
}

func (e *BaseURLError) Error() string {
	msg := fmt.Sprintf("base URL %q", RedactURL(e.URL))
	if e.Source != "" {
		msg += " (from " + e.Source + ")"
	}
	msg += ": " + e.Reason
	if e.Fix != "" {
		return msg + " — write " + e.Fix
	}
	return msg + " — write it as http://host:port/path or https://host/path"
}

// Usage reports that the error is the user's input to fix.
func (e *BaseURLError) Usage() bool { return true }

// CheckBaseURL returns a *BaseURLError when s is not an http or https URL
// with a host. source names where s came from, for the message.
func CheckBaseURL(s, source string) error {
	s = strings.TrimSpace(s)
	e := &BaseURLError{URL: s, Source: source}
	scheme, rest, ok := strings.Cut(s, "://")
	if !ok {
		e.Reason = "no scheme"
		e.Fix = RedactURL("http://" + s)
		if strings.HasPrefix(s, "//") {
			e.Fix = RedactURL("http:" + s)
		}
		return e
	}
	switch strings.ToLower(scheme) {
	case "http", "https":
	default:
		e.Reason = fmt.Sprintf("unknown scheme %q (zut speaks http and https)", scheme)
		if guess := schemeGuess(scheme); guess != "" {
			e.Fix = RedactURL(guess + "://" + rest)
		}
		return e
	}
	u, err := url.Parse(s)
	if err != nil {
		e.Reason = strings.TrimPrefix(redactIn(err.Error(), s), "parse ")
		return e
	}
	if u.Host == "" {
		e.Reason = "no host"
		return e
	}
	return nil
}

// schemeGuess corrects a mistyped scheme: htp, htps, http:, hhtp ...
func schemeGuess(s string) string {
	s = strings.ToLower(s)
	switch {
	case strings.Contains(s, "s") && strings.Count(s, "t") >= 1 && len(s) <= 6:
		return "https"
	case strings.Contains(s, "t") && len(s) <= 5:
		return "http"
	}
	return ""
}

// RedactURL hides the user information (user:password@) of a URL, and
// of anything that looks like one, so that it can be printed: errors,
// logs and --list-models show "https://***@host/v1".
func RedactURL(s string) string {
	start := 0
	if i := strings.Index(s, "://"); i >= 0 {
		start = i + 3
	} else if strings.ContainsAny(s, " \t\n") {
		return s // text, not a URL without a scheme
	}
	end := len(s)
	if j := strings.IndexAny(s[start:], "/?#"); j >= 0 {
		end = start + j
	}
	at := strings.LastIndexByte(s[start:end], '@')
	if at < 0 {
		return s
	}
	return s[:start] + "***" + s[start+at:]
}

// redactIn replaces the URL u inside text by its redacted form.
func redactIn(text, u string) string {
	if r := RedactURL(u); r != u {
		return strings.ReplaceAll(text, u, r)
	}
	return text
}
