package mcp

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// The form of SEP-1034's conformance scenario: every primitive type with
// a default.
const defaultsForm = `{"mode":"form","message":"accept with defaults","requestedSchema":{"type":"object","properties":{
	"name":{"type":"string","default":"John Doe"},
	"age":{"type":"integer","default":30},
	"score":{"type":"number","default":95.5},
	"status":{"type":"string","enum":["active","inactive","pending"],"default":"active"},
	"verified":{"type":"boolean","default":true},
	"tags":{"type":"array","items":{"anyOf":[{"const":"a","title":"A"},{"const":"b","title":"B"}]},"default":["a"]}},
	"required":["name"]}}`

func TestElicitComplete(t *testing.T) {
	req, err := parseElicit(json.RawMessage(defaultsForm))
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, f := range req.Fields {
		order = append(order, f.Name)
	}
	if want := []string{"name", "age", "score", "status", "verified", "tags"}; !reflect.DeepEqual(order, want) {
		t.Errorf("fields = %v, want the schema's order %v", order, want)
	}
	tests := []struct {
		name    string
		content map[string]any
		want    map[string]any
		err     string
	}{
		{"defaults", nil, map[string]any{"name": "John Doe", "age": int64(30), "score": 95.5, "status": "active", "verified": true, "tags": []any{"a"}}, ""},
		{"answers win", map[string]any{"age": 41.0, "status": "pending"},
			map[string]any{"name": "John Doe", "age": int64(41), "score": 95.5, "status": "pending", "verified": true, "tags": []any{"a"}}, ""},
		{"not an integer", map[string]any{"age": 4.5}, nil, "age must be a whole number"},
		{"not in the enum", map[string]any{"status": "gone"}, nil, `status: "gone" is not one of`},
		{"wrong type", map[string]any{"verified": "yes"}, nil, "verified must be true or false"},
		{"array item outside", map[string]any{"tags": []any{"c"}}, nil, "tags: c is not one of"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := req.Complete(tc.content)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("Complete(%v) = %v, %v; want an error containing %q", tc.content, got, err, tc.err)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Complete(%v) = %v, %v; want %v", tc.content, got, err, tc.want)
			}
		})
	}
}

func TestParseElicit(t *testing.T) {
	tests := []struct {
		name, params, err string
	}{
		{"url", `{"mode":"url","message":"sign in","url":"https://example.com/x","elicitationId":"e1"}`, ""},
		{"url without id", `{"mode":"url","message":"sign in","url":"https://example.com/x"}`, "needs url and elicitationId"},
		{"legacy form without mode", `{"message":"m","requestedSchema":{"type":"object","properties":{"a":{"type":"string"}}}}`, ""},
		{"nested object", `{"message":"m","requestedSchema":{"type":"object","properties":{"a":{"type":"object"}}}}`, "not a primitive type"},
		{"schema not an object", `{"message":"m","requestedSchema":{"type":"string"}}`, "must be a JSON Schema of type object"},
		{"unknown mode", `{"mode":"voice","message":"m"}`, "unknown elicitation mode"},
		{"not JSON", `[`, "unusable params"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseElicit(json.RawMessage(tc.params))
			if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
				t.Errorf("parseElicit(%s) = %v, want error %q", tc.params, err, tc.err)
			}
		})
	}
}

func TestElicitFieldParse(t *testing.T) {
	one, nine := 1.0, 9.0
	size := ElicitField{Name: "size", Type: "integer", Min: &one, Max: &nine}
	color := ElicitField{Name: "color", Type: "string", Options: []ElicitOption{{"r", "Red"}, {"g", "Green"}}}
	ok := ElicitField{Name: "ok", Type: "boolean"}
	tests := []struct {
		f    ElicitField
		in   string
		want any
		err  string
	}{
		{size, "3", int64(3), ""},
		{size, "12", nil, "within 1 to 9"},
		{size, "three", nil, "is not a number"},
		{color, "Green", "g", ""},
		{color, "2", "g", ""},
		{color, "blue", nil, "is not one of"},
		{ok, "yes", true, ""},
		{ok, "maybe", nil, "answer yes or no"},
	}
	for _, tc := range tests {
		got, err := tc.f.Parse(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s.Parse(%q) = %v, %v; want error %q", tc.f.Name, tc.in, got, err, tc.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s.Parse(%q) = %v, %v; want %v", tc.f.Name, tc.in, got, err, tc.want)
		}
	}
}
