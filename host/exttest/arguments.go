package exttest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
)

// Tool arguments from a schema: synth builds valid ones, invalidArgs ones
// that break it, and validate checks a value against the subset of JSON
// Schema the tester understands.

// parseSchema decodes a tool schema; nil or invalid gives {"type":"object"}.
func parseSchema(raw json.RawMessage) map[string]any {
	var s map[string]any
	if json.Unmarshal(raw, &s) != nil || s == nil {
		return map[string]any{"type": "object"}
	}
	return s
}

// synthBudget bounds the values synth builds, so that a schema whose
// references loop cannot make it work forever.
const synthBudget = 2000

// synth builds a value that satisfies schema s: the default, the first
// enum value, or a plain value of the type, with every required property
// and every described property of an object.
func synth(root map[string]any, s any, name string, depth int) any {
	budget := synthBudget
	return synthN(root, s, name, depth, &budget)
}

func synthN(root map[string]any, s any, name string, depth int, budget *int) any {
	m, ok := s.(map[string]any)
	if *budget--; !ok || depth > 16 || *budget < 0 {
		return nil
	}
	if r, ok := m["$ref"].(string); ok {
		if t, ok := resolveRef(root, r); ok {
			return synthN(root, t, name, depth+1, budget)
		}
	}
	if d, ok := m["default"]; ok {
		return d
	}
	if c, ok := m["const"]; ok {
		return c
	}
	if e, ok := m["enum"].([]any); ok && len(e) > 0 {
		return e[0]
	}
	for _, k := range []string{"anyOf", "oneOf", "allOf"} {
		if list, ok := m[k].([]any); ok && len(list) > 0 && m["type"] == nil && m["properties"] == nil {
			return synthN(root, list[0], name, depth+1, budget)
		}
	}
	switch schemaType(m) {
	case "object":
		out := map[string]any{}
		props, _ := m["properties"].(map[string]any)
		for _, k := range sortedKeys(props) {
			out[k] = synthN(root, props[k], k, depth+1, budget)
		}
		return out
	case "array":
		n := 1
		if f, ok := m["minItems"].(float64); ok && f > 1 {
			n = int(min(f, 64))
		}
		item, _ := m["items"].(map[string]any)
		out := make([]any, 0, n)
		for i := 0; i < n; i++ {
			out = append(out, synthN(root, item, name, depth+1, budget))
		}
		return out
	case "integer":
		return boundedNumber(m, true)
	case "number":
		return boundedNumber(m, false)
	case "boolean":
		return true
	case "null":
		return nil
	}
	return sampleString(m, name)
}

// schemaType returns the schema's type, the first non-null one of a list,
// or one guessed from its members.
func schemaType(m map[string]any) string {
	switch t := m["type"].(type) {
	case string:
		return t
	case []any:
		for _, e := range t {
			if s, _ := e.(string); s != "" && s != "null" {
				return s
			}
		}
	}
	switch {
	case m["properties"] != nil:
		return "object"
	case m["items"] != nil:
		return "array"
	}
	return "string"
}

func boundedNumber(m map[string]any, integer bool) any {
	v := 1.0
	if lo, ok := m["minimum"].(float64); ok && v < lo {
		v = lo
	}
	if lo, ok := m["exclusiveMinimum"].(float64); ok && v <= lo {
		v = lo + 1
	}
	if hi, ok := m["maximum"].(float64); ok && v > hi {
		v = hi
	}
	if integer {
		return math.Ceil(v)
	}
	return v
}

// sampleString is a plausible string for a property: by format, by name,
// or a phrase, padded to minLength.
func sampleString(m map[string]any, name string) string {
	s := "example"
	switch m["format"] {
	case "uri", "url":
		s = "https://example.com/"
	case "email":
		s = "ana@example.com"
	case "date":
		s = "2025-01-02"
	case "date-time":
		s = "2025-01-02T03:04:05Z"
	default:
		n := strings.ToLower(name)
		switch {
		case strings.Contains(n, "path") || strings.Contains(n, "file"):
			s = "README.md"
		case strings.Contains(n, "city"):
			s = "Berlin"
		case strings.Contains(n, "url"):
			s = "https://example.com/"
		case strings.Contains(n, "command"):
			s = "ls"
		case strings.Contains(n, "question"), strings.Contains(n, "prompt"), strings.Contains(n, "text"), strings.Contains(n, "query"):
			s = "write the tests first"
		}
	}
	if f, ok := m["minLength"].(float64); ok && f > float64(len(s)) {
		s += strings.Repeat("x", int(min(f, 4096))-len(s))
	}
	if f, ok := m["maxLength"].(float64); ok && len(s) > int(f) {
		s = s[:int(f)]
	}
	return s
}

// invalidArgs builds arguments that break schema s, and says how; ok is
// false when the schema accepts any object.
func invalidArgs(s map[string]any) (json.RawMessage, string, bool) {
	props, _ := s["properties"].(map[string]any)
	if req, _ := s["required"].([]any); len(req) > 0 {
		return json.RawMessage(`{}`), "without the required " + quoteList(anyStrings(req)), true
	}
	for _, k := range sortedKeys(props) {
		p, _ := props[k].(map[string]any)
		if p == nil {
			continue
		}
		var bad any
		switch schemaType(p) {
		case "string":
			bad = 42
		case "integer", "number":
			bad = "not a number"
		case "boolean":
			bad = "yes"
		case "array", "object":
			bad = 7
		default:
			continue
		}
		if _, typed := p["type"]; !typed {
			continue
		}
		b, _ := json.Marshal(map[string]any{k: bad})
		return b, fmt.Sprintf("with %q of the wrong type", k), true
	}
	return nil, "", false
}

func anyStrings(list []any) []string {
	var out []string
	for _, e := range list {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// validate returns the ways v breaks schema s (a subset of JSON Schema:
// type, properties, required, items, enum, const, bounds, lengths).
func validate(root map[string]any, s any, v any, path string, depth int) []string {
	m, ok := s.(map[string]any)
	if !ok || depth > 32 {
		if b, ok := s.(bool); ok && !b {
			return []string{path + ": no value is allowed"}
		}
		return nil
	}
	if r, ok := m["$ref"].(string); ok {
		if t, ok := resolveRef(root, r); ok {
			return validate(root, t, v, path, depth+1)
		}
	}
	var errs []string
	if t, ok := m["type"]; ok && !typeMatches(t, v) {
		return []string{fmt.Sprintf("%s: %s, want type %v", orTop(path), kindOf(v), t)}
	}
	if e, ok := m["enum"].([]any); ok && !slices.ContainsFunc(e, func(x any) bool { return jsonEqual(x, v) }) {
		errs = append(errs, fmt.Sprintf("%s: not one of the enum values", orTop(path)))
	}
	if c, ok := m["const"]; ok && !jsonEqual(c, v) {
		errs = append(errs, fmt.Sprintf("%s: not the const value", orTop(path)))
	}
	switch x := v.(type) {
	case map[string]any:
		props, _ := m["properties"].(map[string]any)
		for _, r := range anyStrings(asList(m["required"])) {
			if _, ok := x[r]; !ok {
				errs = append(errs, fmt.Sprintf("%s: missing required %q", orTop(path), r))
			}
		}
		for _, k := range sortedKeys(x) {
			if p, ok := props[k]; ok {
				errs = append(errs, validate(root, p, x[k], path+"/"+k, depth+1)...)
			}
		}
	case []any:
		if it, ok := m["items"].(map[string]any); ok {
			for i, e := range x {
				errs = append(errs, validate(root, it, e, fmt.Sprintf("%s/%d", path, i), depth+1)...)
			}
		}
		if f, ok := m["minItems"].(float64); ok && len(x) < int(f) {
			errs = append(errs, fmt.Sprintf("%s: fewer than %v items", orTop(path), f))
		}
	case float64:
		if f, ok := m["minimum"].(float64); ok && x < f {
			errs = append(errs, fmt.Sprintf("%s: below the minimum %v", orTop(path), f))
		}
		if f, ok := m["maximum"].(float64); ok && x > f {
			errs = append(errs, fmt.Sprintf("%s: above the maximum %v", orTop(path), f))
		}
	case string:
		if f, ok := m["minLength"].(float64); ok && len([]rune(x)) < int(f) {
			errs = append(errs, fmt.Sprintf("%s: shorter than %v", orTop(path), f))
		}
	}
	return errs
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

func orTop(path string) string {
	if path == "" {
		return "arguments"
	}
	return "arguments" + path
}

func typeMatches(t any, v any) bool {
	one := func(name string) bool {
		switch name {
		case "object":
			_, ok := v.(map[string]any)
			return ok
		case "array":
			_, ok := v.([]any)
			return ok
		case "string":
			_, ok := v.(string)
			return ok
		case "number":
			_, ok := v.(float64)
			return ok
		case "integer":
			f, ok := v.(float64)
			return ok && f == math.Trunc(f)
		case "boolean":
			_, ok := v.(bool)
			return ok
		case "null":
			return v == nil
		}
		return true
	}
	switch t := t.(type) {
	case string:
		return one(t)
	case []any:
		for _, e := range t {
			if s, ok := e.(string); ok && one(s) {
				return true
			}
		}
		return false
	}
	return true
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}
