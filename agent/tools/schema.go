package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
)

// schemaDepth bounds how deep CheckArgs follows nested schemas and values.
const schemaDepth = 32

// CheckArgs checks the arguments of a call of tool against the JSON Schema
// of its definition, for tools that cannot validate a call themselves
// (extension and MCP tools). It checks the part of JSON Schema that says
// what a call must hold: type (one or a list), required, properties,
// additionalProperties, enum, minimum and maximum, items, minItems and
// maxItems; anything else (anyOf, $ref, formats, patterns ...) is left to
// the tool. A null value of a property that is not required counts as
// absent, as it does for the built-in tools. A schema that does not
// decode checks nothing. The error reads like a built-in tool's:
// "<tool>: <argument> is required".
func CheckArgs(tool string, schema, args json.RawMessage) error {
	var s map[string]any
	if json.Unmarshal(schema, &s) != nil || s == nil {
		return nil
	}
	args = bytes.TrimSpace(args)
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	var v any
	if err := json.Unmarshal(args, &v); err != nil {
		return badArg(tool, "arguments are not valid JSON: %v", err)
	}
	c := schemaCheck{tool: tool}
	return c.check(v, s, "", 0)
}

type schemaCheck struct{ tool string }

func (c schemaCheck) check(v any, s map[string]any, path string, depth int) error {
	if depth > schemaDepth {
		return nil
	}
	if types := schemaTypes(s["type"]); len(types) > 0 && !slices.ContainsFunc(types, func(t string) bool { return isType(v, t) }) {
		if path == "" {
			return badArg(c.tool, "arguments must be %s, got %s", typeWords(types), kindOf(v))
		}
		return badArg(c.tool, "%s must be %s, got %s", path, typeWords(types), kindOf(v))
	}
	if enum, ok := s["enum"].([]any); ok && len(enum) > 0 && !slices.ContainsFunc(enum, func(e any) bool { return sameJSON(e, v) }) {
		var opts []string
		for _, e := range enum {
			b, _ := json.Marshal(e)
			opts = append(opts, string(b))
		}
		b, _ := json.Marshal(v)
		return badArg(c.tool, "%s must be one of %s, got %s", name(path), strings.Join(opts, ", "), clip(string(b), 40))
	}
	switch x := v.(type) {
	case float64:
		if lo, ok := s["minimum"].(float64); ok && x < lo {
			return badArg(c.tool, "%s must be at least %v, got %v", name(path), lo, x)
		}
		if hi, ok := s["maximum"].(float64); ok && x > hi {
			return badArg(c.tool, "%s must be at most %v, got %v", name(path), hi, x)
		}
	case []any:
		if n, ok := s["minItems"].(float64); ok && float64(len(x)) < n {
			return badArg(c.tool, "%s must hold at least %v items, got %d", name(path), n, len(x))
		}
		if n, ok := s["maxItems"].(float64); ok && float64(len(x)) > n {
			return badArg(c.tool, "%s must hold at most %v items, got %d", name(path), n, len(x))
		}
		if items, ok := s["items"].(map[string]any); ok {
			for i, e := range x {
				if err := c.check(e, items, fmt.Sprintf("%s[%d]", path, i), depth+1); err != nil {
					return err
				}
			}
		}
	case map[string]any:
		return c.object(x, s, path, depth)
	}
	return nil
}

// object checks the members of an object value.
func (c schemaCheck) object(x map[string]any, s map[string]any, path string, depth int) error {
	props, _ := s["properties"].(map[string]any)
	if req, ok := s["required"].([]any); ok {
		for _, r := range req {
			k, _ := r.(string)
			if v, ok := x[k]; k != "" && (!ok || v == nil) {
				return badArg(c.tool, "%s is required", join(path, k))
			}
		}
	}
	keys := make([]string, 0, len(x))
	for k := range x {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := x[k]
		sub, known := props[k].(map[string]any)
		if !known {
			if _, declared := props[k]; declared {
				continue // a property whose schema is true or odd: anything goes
			}
			switch extra := s["additionalProperties"].(type) {
			case bool:
				if !extra {
					allowed := make([]string, 0, len(props))
					for p := range props {
						allowed = append(allowed, p)
					}
					sort.Strings(allowed)
					if path == "" {
						return badArg(c.tool, "unknown argument %q (allowed: %s)", k, strings.Join(allowed, ", "))
					}
					return badArg(c.tool, "%s: unknown member %q (allowed: %s)", path, k, strings.Join(allowed, ", "))
				}
				continue
			case map[string]any:
				sub = extra
			default:
				continue
			}
		}
		if v == nil && !isRequired(s, k) {
			continue
		}
		if err := c.check(v, sub, join(path, k), depth+1); err != nil {
			return err
		}
	}
	return nil
}

func isRequired(s map[string]any, k string) bool {
	req, _ := s["required"].([]any)
	return slices.Contains(req, any(k))
}

func join(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}

// name is how an error names the value at path.
func name(path string) string {
	if path == "" {
		return "the arguments"
	}
	return path
}

// schemaTypes reads a schema's type: one name or a list of them.
func schemaTypes(t any) []string {
	switch x := t.(type) {
	case string:
		return []string{x}
	case []any:
		var out []string
		for _, e := range x {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// isType reports whether v (decoded JSON) is of the JSON Schema type t.
// An unknown type name matches anything.
func isType(v any, t string) bool {
	switch t {
	case "string":
		_, ok := v.(string)
		return ok
	case "integer":
		f, ok := v.(float64)
		return ok && f == math.Trunc(f)
	case "number":
		_, ok := v.(float64)
		return ok
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "array":
		_, ok := v.([]any)
		return ok
	case "object":
		_, ok := v.(map[string]any)
		return ok
	case "null":
		return v == nil
	}
	return true
}

func typeWords(types []string) string {
	words := make([]string, len(types))
	for i, t := range types {
		switch t {
		case "integer", "object", "array":
			words[i] = "an " + t
		case "boolean":
			words[i] = "true or false"
		case "null":
			words[i] = "null"
		default:
			words[i] = "a " + t
		}
	}
	return strings.Join(words, " or ")
}

// kindOf names the JSON type of a decoded value for error messages.
func kindOf(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case float64:
		if x == math.Trunc(x) {
			return fmt.Sprintf("the number %v", x)
		}
		return "a number with a fraction"
	case []any:
		return "an array"
	}
	return "an object"
}

func sameJSON(a, b any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}
