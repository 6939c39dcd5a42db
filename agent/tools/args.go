package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"
)

// args is the decoded argument object of one call. Its accessors validate
// types strictly and word their errors for the model: "edit: path is
// required", "bash: timeout must be a positive integer number of seconds".
// A JSON null counts as absent.
type args struct {
	tool   string
	fields map[string]json.RawMessage
}

// argError is a bad argument, worded for the model.
type argError struct{ msg string }

func (e *argError) Error() string { return e.msg }

func badArg(tool, format string, a ...any) error {
	return &argError{msg: tool + ": " + fmt.Sprintf(format, a...)}
}

// parseArgs decodes raw as a JSON object whose keys must all be in allowed.
func parseArgs(tool string, raw json.RawMessage, allowed ...string) (*args, error) {
	a := &args{tool: tool, fields: map[string]json.RawMessage{}}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return a, nil
	}
	if raw[0] != '{' {
		return nil, badArg(tool, "arguments must be a JSON object, got %s", jsonKind(raw))
	}
	if err := json.Unmarshal(raw, &a.fields); err != nil {
		return nil, badArg(tool, "arguments are not valid JSON: %v", err)
	}
	for k := range a.fields {
		if !contains(allowed, k) {
			return nil, badArg(tool, "unknown argument %q (allowed: %s)", k, strings.Join(allowed, ", "))
		}
	}
	return a, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// present reports whether name was given with a non-null value.
func (a *args) present(name string) bool {
	v, ok := a.fields[name]
	return ok && string(bytes.TrimSpace(v)) != "null"
}

// str returns the string argument name. A required argument that is absent
// is an error; an absent optional one yields "".
func (a *args) str(name string, required bool) (string, error) {
	return fieldString(a.tool, name, a.fields[name], required)
}

func fieldString(tool, name string, v json.RawMessage, required bool) (string, error) {
	v = bytes.TrimSpace(v)
	if len(v) == 0 || string(v) == "null" {
		if required {
			return "", badArg(tool, "%s is required", name)
		}
		return "", nil
	}
	var s string
	if v[0] != '"' || json.Unmarshal(v, &s) != nil {
		return "", badArg(tool, "%s must be a string, got %s", name, jsonKind(v))
	}
	return s, nil
}

// integer returns the integer argument name, or def when it is absent. A
// JSON number with a fraction or outside [lo, hi] is an error whose text is
// "<name> must be <what>".
func (a *args) integer(name string, def, lo, hi int, what string) (int, error) {
	v := bytes.TrimSpace(a.fields[name])
	if len(v) == 0 || string(v) == "null" {
		return def, nil
	}
	var f float64
	if v[0] == '"' || json.Unmarshal(v, &f) != nil || f != math.Trunc(f) || f < float64(lo) || f > float64(hi) {
		return 0, badArg(a.tool, "%s must be %s, got %s", name, what, clip(string(v), 40))
	}
	return int(f), nil
}

// boolean returns the boolean argument name, false when absent.
func (a *args) boolean(name string) (bool, error) {
	v := bytes.TrimSpace(a.fields[name])
	if len(v) == 0 || string(v) == "null" {
		return false, nil
	}
	switch string(v) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, badArg(a.tool, "%s must be true or false, got %s", name, clip(string(v), 40))
}

// jsonKind names the JSON type of v for error messages.
func jsonKind(v json.RawMessage) string {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return "nothing"
	}
	switch v[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// clip shortens s to at most n runes, marking the cut with "…".
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := 0
	for j := range s {
		if i == n {
			return s[:j] + "…"
		}
		i++
	}
	return s
}

// firstLine is the first line of s, clipped to n runes, with "…" when
// anything was left out.
func firstLine(s string, n int) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return clip(strings.TrimRight(s[:i], "\r"), n-1) + " …"
	}
	return clip(s, n)
}
