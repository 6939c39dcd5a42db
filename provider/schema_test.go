package provider

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// schemaChecker validates JSON values against the subset of JSON Schema
// that the OpenAI OpenAPI document uses for request bodies: type (and the
// OpenAPI nullable), properties, required, additionalProperties, items,
// minItems, maxItems, enum, const, allOf, anyOf, oneOf (exactly one branch,
// or at least one under an OpenAPI discriminator) and local $ref.
// Annotations (description, default, discriminator, x-…) are ignored.
type schemaChecker struct {
	doc   map[string]any
	depth int
}

func newSchemaChecker(openapi []byte) (*schemaChecker, error) {
	var doc map[string]any
	if err := json.Unmarshal(openapi, &doc); err != nil {
		return nil, err
	}
	return &schemaChecker{doc: doc}, nil
}

// resolve follows a local reference such as "#/components/schemas/X".
func (c *schemaChecker) resolve(ref string) (any, error) {
	if !strings.HasPrefix(ref, "#/") {
		return nil, fmt.Errorf("unsupported $ref %q", ref)
	}
	var cur any = c.doc
	for _, part := range strings.Split(ref[2:], "/") {
		part = strings.ReplaceAll(strings.ReplaceAll(part, "~1", "/"), "~0", "~")
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("$ref %q: %q is not an object", ref, part)
		}
		if cur, ok = m[part]; !ok {
			return nil, fmt.Errorf("$ref %q: no %q", ref, part)
		}
	}
	return cur, nil
}

// check returns the violations of v against schema, each prefixed by its
// JSON path.
func (c *schemaChecker) check(schema any, v any, path string) []string {
	c.depth++
	defer func() { c.depth-- }()
	if c.depth > 200 {
		return []string{path + ": schema nesting too deep"}
	}
	switch s := schema.(type) {
	case bool:
		if !s {
			return []string{path + ": no value is allowed here"}
		}
		return nil
	case map[string]any:
		return c.checkObject(s, v, path)
	}
	return []string{fmt.Sprintf("%s: bad schema %T", path, schema)}
}

func (c *schemaChecker) checkObject(s map[string]any, v any, path string) []string {
	var errs []string
	if ref, ok := s["$ref"].(string); ok {
		target, err := c.resolve(ref)
		if err != nil {
			return []string{path + ": " + err.Error()}
		}
		errs = append(errs, c.check(target, v, path)...)
	}
	if v == nil && s["nullable"] == true {
		return errs
	}
	if t, ok := s["type"]; ok && !typeMatches(t, v) {
		return append(errs, fmt.Sprintf("%s: %s is not of type %v", path, brief(v), t))
	}
	if e, ok := s["enum"].([]any); ok {
		found := false
		for _, x := range e {
			if reflect.DeepEqual(x, v) {
				found = true
			}
		}
		if !found {
			errs = append(errs, fmt.Sprintf("%s: %s is not one of %v", path, brief(v), e))
		}
	}
	if cv, ok := s["const"]; ok && !reflect.DeepEqual(cv, v) {
		errs = append(errs, fmt.Sprintf("%s: %s is not %v", path, brief(v), cv))
	}
	if all, ok := s["allOf"].([]any); ok {
		for _, sub := range all {
			errs = append(errs, c.check(sub, v, path)...)
		}
	}
	if any_, ok := s["anyOf"].([]any); ok {
		matched := false
		var why []string
		for _, sub := range any_ {
			e := c.check(sub, v, path)
			if len(e) == 0 {
				matched = true
				break
			}
			why = append(why, e[0])
		}
		if !matched {
			errs = append(errs, fmt.Sprintf("%s: matches none of anyOf (%s)", path, strings.Join(why, "; ")))
		}
	}
	if one, ok := s["oneOf"].([]any); ok {
		n := 0
		var why []string
		for _, sub := range one {
			e := c.check(sub, v, path)
			if len(e) == 0 {
				n++
			} else {
				why = append(why, e[0])
			}
		}
		// With a discriminator, OpenAPI picks the branch by the discriminating
		// property, and the OpenAI document's branches overlap (an easy input
		// message is also a message item): one match is enough there.
		_, disc := s["discriminator"]
		if n != 1 && !(disc && n > 1) {
			errs = append(errs, fmt.Sprintf("%s: matches %d of oneOf, want exactly 1 (%s)", path, n, strings.Join(why, "; ")))
		}
	}
	switch x := v.(type) {
	case map[string]any:
		errs = append(errs, c.checkProperties(s, x, path)...)
	case []any:
		if items, ok := s["items"]; ok {
			for i, el := range x {
				errs = append(errs, c.check(items, el, fmt.Sprintf("%s[%d]", path, i))...)
			}
		}
		if n, ok := s["minItems"].(float64); ok && float64(len(x)) < n {
			errs = append(errs, fmt.Sprintf("%s: %d items, want at least %v", path, len(x), n))
		}
		if n, ok := s["maxItems"].(float64); ok && float64(len(x)) > n {
			errs = append(errs, fmt.Sprintf("%s: %d items, want at most %v", path, len(x), n))
		}
	}
	return errs
}

func (c *schemaChecker) checkProperties(s map[string]any, x map[string]any, path string) []string {
	var errs []string
	props, _ := s["properties"].(map[string]any)
	if req, ok := s["required"].([]any); ok {
		for _, r := range req {
			if _, ok := x[r.(string)]; !ok {
				errs = append(errs, fmt.Sprintf("%s: missing required %q", path, r))
			}
		}
	}
	keys := make([]string, 0, len(x))
	for k := range x {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if sub, ok := props[k]; ok {
			errs = append(errs, c.check(sub, x[k], path+"."+k)...)
			continue
		}
		switch ap := s["additionalProperties"].(type) {
		case bool:
			if !ap {
				errs = append(errs, fmt.Sprintf("%s: property %q is not allowed", path, k))
			}
		case map[string]any:
			errs = append(errs, c.check(ap, x[k], path+"."+k)...)
		}
	}
	return errs
}

func typeMatches(t any, v any) bool {
	switch tt := t.(type) {
	case string:
		return oneType(tt, v)
	case []any:
		for _, x := range tt {
			if s, ok := x.(string); ok && oneType(s, v) {
				return true
			}
		}
	}
	return false
}

func oneType(t string, v any) bool {
	switch t {
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
	return false
}

func brief(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 60 {
		return string(b[:60]) + "…"
	}
	return string(b)
}

// TestSchemaChecker makes sure the checker rejects what it should, so a
// passing conformance run means something.
func TestSchemaChecker(t *testing.T) {
	doc := []byte(`{"components":{"schemas":{
		"Req":{"type":"object","required":["model","messages"],"additionalProperties":false,"properties":{
			"model":{"type":"string"},
			"n":{"type":"integer","nullable":true},
			"mode":{"type":"string","enum":["a","b"]},
			"kind":{"const":"k"},
			"messages":{"type":"array","minItems":1,"items":{"$ref":"#/components/schemas/Msg"}},
			"choice":{"oneOf":[{"type":"string"},{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}]},
			"either":{"anyOf":[{"type":"string"},{"type":"null"}]},
			"extra":{"type":"object","additionalProperties":{"type":"number"}}}},
		"Msg":{"allOf":[{"type":"object","required":["role"]},{"properties":{"role":{"enum":["user","assistant"]}}}]}}}}`)
	c, err := newSchemaChecker(doc)
	if err != nil {
		t.Fatal(err)
	}
	schema := map[string]any{"$ref": "#/components/schemas/Req"}
	tests := []struct {
		body string
		ok   bool
	}{
		{`{"model":"m","messages":[{"role":"user"}]}`, true},
		{`{"model":"m","messages":[{"role":"user"}],"n":null,"mode":"a","kind":"k","choice":{"name":"x"},"either":null,"extra":{"a":1}}`, true},
		{`{"model":"m"}`, false},
		{`{"model":1,"messages":[{"role":"user"}]}`, false},
		{`{"model":"m","messages":[]}`, false},
		{`{"model":"m","messages":[{"role":"system"}]}`, false},
		{`{"model":"m","messages":[{}]}`, false},
		{`{"model":"m","messages":[{"role":"user"}],"n":1.5}`, false},
		{`{"model":"m","messages":[{"role":"user"}],"mode":"c"}`, false},
		{`{"model":"m","messages":[{"role":"user"}],"kind":"q"}`, false},
		{`{"model":"m","messages":[{"role":"user"}],"choice":{}}`, false},
		{`{"model":"m","messages":[{"role":"user"}],"either":3}`, false},
		{`{"model":"m","messages":[{"role":"user"}],"extra":{"a":"x"}}`, false},
		{`{"model":"m","messages":[{"role":"user"}],"unknown":true}`, false},
	}
	for _, tc := range tests {
		var v any
		json.Unmarshal([]byte(tc.body), &v)
		errs := c.check(schema, v, "$")
		if (len(errs) == 0) != tc.ok {
			t.Errorf("check(%s) = %v, want ok %v", tc.body, errs, tc.ok)
		}
	}
}
