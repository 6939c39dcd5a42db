package mcp

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// checkInputSchema reports why raw cannot be a tool's inputSchema: it
// must be a JSON Schema object of type "object" (tools: inputSchema; a
// missing type is taken as "object", see normalizeSchema), and
// every keyword zut's model providers read must have the shape JSON
// Schema gives it. Unknown keywords are allowed, as JSON Schema allows
// them.
func checkInputSchema(raw json.RawMessage) error {
	if len(raw) == 0 || string(raw) == "null" {
		return fmt.Errorf("it has no inputSchema")
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return fmt.Errorf("its inputSchema is not JSON: %v", err)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("its inputSchema is not a JSON object")
	}
	if t, ok := m["type"].(string); m["type"] != nil && (!ok || t != "object") {
		return fmt.Errorf("its inputSchema has type %s; a tool's inputSchema must have type \"object\"", describe(m["type"]))
	}
	return checkSchema(v, "inputSchema", 0)
}

func jsonTypes() map[string]bool {
	return jsonTypesLazy.get(func() map[string]bool {
		return map[string]bool{"null": true, "boolean": true, "object": true, "array": true, "number": true, "string": true, "integer": true}
	})
}

var jsonTypesLazy lazy[map[string]bool]

const maxSchemaDepth = 64

// checkSchema checks one schema (an object or a boolean) at path.
func checkSchema(v any, path string, depth int) error {
	if depth > maxSchemaDepth {
		return fmt.Errorf("%s: nested more than %d levels", path, maxSchemaDepth)
	}
	if _, ok := v.(bool); ok {
		return nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("%s: a schema must be an object or a boolean, not %s", path, describe(v))
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		val := m[k]
		at := path + "." + k
		var err error
		switch k {
		case "type":
			err = checkType(val, at)
		case "properties", "patternProperties", "$defs", "definitions", "dependentSchemas":
			obj, ok := val.(map[string]any)
			if !ok {
				return fmt.Errorf("%s: must be an object of schemas, not %s", at, describe(val))
			}
			names := make([]string, 0, len(obj))
			for n := range obj {
				names = append(names, n)
			}
			sort.Strings(names)
			for _, n := range names {
				if err := checkSchema(obj[n], at+"."+n, depth+1); err != nil {
					return err
				}
			}
		case "items":
			if list, ok := val.([]any); ok { // draft-07 tuple form
				err = checkSchemas(list, at, depth, false)
			} else {
				err = checkSchema(val, at, depth+1)
			}
		case "additionalProperties", "additionalItems", "not", "contains", "propertyNames", "if", "then", "else",
			"unevaluatedProperties", "unevaluatedItems":
			err = checkSchema(val, at, depth+1)
		case "anyOf", "oneOf", "allOf", "prefixItems":
			list, ok := val.([]any)
			if !ok {
				return fmt.Errorf("%s: must be an array of schemas, not %s", at, describe(val))
			}
			err = checkSchemas(list, at, depth, k != "prefixItems")
		case "required":
			list, ok := val.([]any)
			if !ok {
				if _, isBool := val.(bool); isBool { // draft-03 style, seen in the wild: harmless
					continue
				}
				return fmt.Errorf("%s: must be an array of strings, not %s", at, describe(val))
			}
			for _, r := range list {
				if _, ok := r.(string); !ok {
					return fmt.Errorf("%s: must be an array of strings, but holds %s", at, describe(r))
				}
			}
		case "enum":
			if _, ok := val.([]any); !ok {
				return fmt.Errorf("%s: must be an array, not %s", at, describe(val))
			}
		case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf":
			_, num := val.(float64)
			_, b := val.(bool) // draft-04 exclusive bounds
			if !num && !b {
				return fmt.Errorf("%s: must be a number, not %s", at, describe(val))
			}
		case "minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties":
			f, ok := val.(float64)
			if !ok || f < 0 || f != float64(int64(f)) {
				return fmt.Errorf("%s: must be a non-negative integer, not %s", at, describe(val))
			}
		case "$ref", "pattern", "format", "$schema", "$id", "title", "description":
			if _, ok := val.(string); !ok {
				return fmt.Errorf("%s: must be a string, not %s", at, describe(val))
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func checkSchemas(list []any, at string, depth int, nonEmpty bool) error {
	if nonEmpty && len(list) == 0 {
		return fmt.Errorf("%s: must not be empty", at)
	}
	for i, s := range list {
		if err := checkSchema(s, fmt.Sprintf("%s[%d]", at, i), depth+1); err != nil {
			return err
		}
	}
	return nil
}

func checkType(v any, at string) error {
	switch t := v.(type) {
	case string:
		if !jsonTypes()[t] {
			return fmt.Errorf("%s: %q is not a JSON Schema type", at, t)
		}
		return nil
	case []any:
		if len(t) == 0 {
			return fmt.Errorf("%s: must not be empty", at)
		}
		for _, e := range t {
			s, ok := e.(string)
			if !ok || !jsonTypes()[s] {
				return fmt.Errorf("%s: %s is not a JSON Schema type", at, describe(e))
			}
		}
		return nil
	}
	return fmt.Errorf("%s: must be a type name or an array of them, not %s", at, describe(v))
}

func describe(v any) string {
	switch t := v.(type) {
	case nil:
		return "null"
	case string:
		return fmt.Sprintf("%q", t)
	case bool:
		return fmt.Sprint(t)
	case float64:
		return fmt.Sprint(t)
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return strings.TrimSpace(fmt.Sprint(v))
}

// normalizeSchema returns raw with "type": "object" added when it has no
// type, as model providers require one.
func normalizeSchema(raw json.RawMessage) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return raw
	}
	if _, ok := m["type"]; ok {
		return raw
	}
	m["type"] = json.RawMessage(`"object"`)
	b, err := json.Marshal(m)
	if err != nil {
		return raw
	}
	return b
}
