package exttest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// The tool schemas of register_tool go to the model APIs as they are:
// Anthropic's input_schema and the OpenAI and Ollama function parameters.
// Those accept a JSON Schema whose top level is an object schema; they
// reject oneOf, anyOf, allOf, not, enum and const at the top level, and
// cannot resolve a $ref that leaves the schema.

// schemaIssue is one problem of a tool schema.
type schemaIssue struct {
	status Status
	path   string // JSON pointer-like path, "" for the top level
	msg    string
}

func (i schemaIssue) String() string {
	if i.path == "" {
		return i.msg
	}
	return i.path + ": " + i.msg
}

var schemaTypes = []string{"object", "array", "string", "number", "integer", "boolean", "null"}

// maxSchemaDepth bounds the nesting the tester walks.
const maxSchemaDepth = 64

// checkSchema judges a register_tool schema. nil or empty means the host's
// default {"type":"object"}.
func checkSchema(raw json.RawMessage) []schemaIssue {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var top any
	if err := json.Unmarshal(raw, &top); err != nil {
		return []schemaIssue{{Fail, "", "not JSON: " + err.Error()}}
	}
	obj, ok := top.(map[string]any)
	if !ok {
		return []schemaIssue{{Fail, "", fmt.Sprintf("the schema is %s, not an object; zut rejects the tool", kindOf(top))}}
	}
	var out []schemaIssue
	switch t := obj["type"].(type) {
	case string:
		if t != "object" {
			out = append(out, schemaIssue{Fail, "", fmt.Sprintf(`top-level "type" is %q; tool arguments must be an object ("type": "object")`, t)})
		}
	case nil:
		out = append(out, schemaIssue{Fail, "", `no top-level "type": "object"; the model APIs require an object schema`})
	default:
		out = append(out, schemaIssue{Fail, "", `top-level "type" must be the string "object"`})
	}
	for _, k := range []string{"oneOf", "anyOf", "allOf", "not", "enum", "const"} {
		if _, ok := obj[k]; ok {
			out = append(out, schemaIssue{Fail, "", fmt.Sprintf("%q at the top level; Anthropic and OpenAI reject it there (move it into a property)", k)})
		}
	}
	w := schemaWalker{root: obj}
	w.walk(obj, "", 0)
	return append(out, w.issues...)
}

type schemaWalker struct {
	root   map[string]any
	issues []schemaIssue
}

func (w *schemaWalker) add(st Status, path, format string, args ...any) {
	w.issues = append(w.issues, schemaIssue{st, path, fmt.Sprintf(format, args...)})
}

// walk checks one subschema.
func (w *schemaWalker) walk(v any, path string, depth int) {
	if depth > maxSchemaDepth {
		w.add(Fail, path, "nested more than %d levels", maxSchemaDepth)
		return
	}
	if _, ok := v.(bool); ok {
		return
	}
	s, ok := v.(map[string]any)
	if !ok {
		w.add(Fail, path, "a subschema must be an object or a boolean, not %s", kindOf(v))
		return
	}
	switch t := s["type"].(type) {
	case nil:
	case string:
		if !slices.Contains(schemaTypes, t) {
			w.add(Fail, path, "type %q is not a JSON Schema type", t)
		}
	case []any:
		for _, e := range t {
			if n, ok := e.(string); !ok || !slices.Contains(schemaTypes, n) {
				w.add(Fail, path, "type list holds %v, not a JSON Schema type", e)
			}
		}
	default:
		w.add(Fail, path, "type must be a string or a list of strings")
	}
	if p, ok := s["properties"]; ok {
		props, ok := p.(map[string]any)
		if !ok {
			w.add(Fail, path+"/properties", "must be an object")
		}
		for _, k := range sortedKeys(props) {
			w.walk(props[k], path+"/properties/"+k, depth+1)
		}
	}
	if r, ok := s["required"]; ok {
		list, ok := r.([]any)
		if !ok {
			w.add(Fail, path+"/required", "must be a list of property names")
		}
		props, _ := s["properties"].(map[string]any)
		seen := map[string]bool{}
		for _, e := range list {
			n, ok := e.(string)
			switch {
			case !ok:
				w.add(Fail, path+"/required", "holds %v, not a property name", e)
			case seen[n]:
				w.add(Warn, path+"/required", "lists %q twice", n)
			case props != nil && props[n] == nil:
				w.add(Warn, path+"/required", "requires %q, which properties does not describe", n)
			}
			seen[n] = true
		}
	}
	if it, ok := s["items"]; ok {
		if list, ok := it.([]any); ok {
			for i, e := range list {
				w.walk(e, fmt.Sprintf("%s/items/%d", path, i), depth+1)
			}
		} else {
			w.walk(it, path+"/items", depth+1)
		}
	}
	if ap, ok := s["additionalProperties"]; ok {
		w.walk(ap, path+"/additionalProperties", depth+1)
	}
	for _, k := range []string{"oneOf", "anyOf", "allOf"} {
		if x, ok := s[k]; ok {
			list, ok := x.([]any)
			if !ok || len(list) == 0 {
				w.add(Fail, path+"/"+k, "must be a non-empty list of schemas")
				continue
			}
			for i, e := range list {
				w.walk(e, fmt.Sprintf("%s/%s/%d", path, k, i), depth+1)
			}
		}
	}
	if x, ok := s["not"]; ok {
		w.walk(x, path+"/not", depth+1)
	}
	if e, ok := s["enum"]; ok {
		if list, ok := e.([]any); !ok || len(list) == 0 {
			w.add(Fail, path+"/enum", "must be a non-empty list")
		}
	}
	for _, k := range []string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"} {
		if x, ok := s[k]; ok {
			_, num := x.(float64)
			_, flag := x.(bool) // draft 4 exclusive bounds
			if !num && !(flag && strings.HasPrefix(k, "exclusive")) {
				w.add(Fail, path+"/"+k, "must be a number")
			}
		}
	}
	for _, k := range []string{"minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties"} {
		if x, ok := s[k]; ok {
			if f, ok := x.(float64); !ok || f < 0 || f != math.Trunc(f) {
				w.add(Fail, path+"/"+k, "must be a non-negative integer")
			}
		}
	}
	if p, ok := s["pattern"]; ok {
		if ps, ok := p.(string); !ok {
			w.add(Fail, path+"/pattern", "must be a string")
		} else if _, err := regexp.Compile(ps); err != nil {
			w.add(Warn, path+"/pattern", "%q does not compile as a regular expression here: %v", ps, err)
		}
	}
	if ref, ok := s["$ref"]; ok {
		r, _ := ref.(string)
		if !strings.HasPrefix(r, "#") {
			w.add(Fail, path+"/$ref", "%q points outside the schema; the model APIs cannot fetch it", r)
		} else if _, ok := resolveRef(w.root, r); !ok {
			w.add(Fail, path+"/$ref", "%q does not resolve inside the schema", r)
		}
	}
	for _, k := range []string{"$defs", "definitions"} {
		if d, ok := s[k].(map[string]any); ok {
			for _, n := range sortedKeys(d) {
				w.walk(d[n], path+"/"+k+"/"+n, depth+1)
			}
		}
	}
}

// resolveRef follows a local reference such as "#/$defs/item".
func resolveRef(root map[string]any, ref string) (any, bool) {
	if ref == "#" {
		return root, true
	}
	if !strings.HasPrefix(ref, "#/") {
		return nil, false
	}
	var cur any = root
	for _, part := range strings.Split(ref[2:], "/") {
		part = strings.ReplaceAll(strings.ReplaceAll(part, "~1", "/"), "~0", "~")
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[part]; !ok {
			return nil, false
		}
	}
	return cur, true
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func kindOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case float64:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}
