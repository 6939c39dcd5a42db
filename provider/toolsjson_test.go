package provider

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
)

// TestMarshalWithTools: a body written with its tools from the cache is
// the JSON json.Marshal writes, whatever the wire, the list, and the
// lists written before it; and the body's tools are left as they were.
func TestMarshalWithTools(t *testing.T) {
	schema := json.RawMessage(`{"type": "object", "properties": {"path": {"type": "string", "description": "a <file> & more"}}}`)
	tools := []Tool{{Name: "read", Description: "Reads a file", Schema: schema}, {Name: "bash", Description: "Runs <cmd>", Schema: nil}}
	changed := []Tool{tools[0], {Name: "bash", Description: "Runs <cmd>", Schema: json.RawMessage(`{"type":"object","properties":{}}`)}}
	msgs := []Message{{Role: RoleUser, Content: []Block{{Type: BlockText, Text: "hi"}}}}
	m := &Model{MaxOutput: 1000}
	// In this order, every run: a wire whose tools were written as
	// another wire's would fail after that wire (chat and responses
	// share the fields of a tool).
	bodies := []struct {
		wire  string
		build func(tools []Tool, cache bool) (any, func() []byte)
	}{
		{"anthropic", func(tools []Tool, cache bool) (any, func() []byte) {
			b := anthropicBody(&Request{Messages: msgs, Tools: tools, Cache: cache}, "m", m, "anthropic")
			return b, func() []byte { out, _ := marshalWithTools(b, &b.Tools); return out }
		}},
		{"chat", func(tools []Tool, _ bool) (any, func() []byte) {
			b := chatBody(&Request{Messages: msgs, Tools: tools}, "m", m, ChatQuirks{}, "openai")
			return b, func() []byte { out, _ := marshalWithTools(b, &b.Tools); return out }
		}},
		{"responses", func(tools []Tool, _ bool) (any, func() []byte) {
			b := responsesBody(&Request{Messages: msgs, Tools: tools}, "m", m, "openai-responses")
			return b, func() []byte { out, _ := marshalWithTools(b, &b.Tools); return out }
		}},
		{"ollama", func(tools []Tool, _ bool) (any, func() []byte) {
			b := ollamaBody(&Request{Messages: msgs, Tools: tools}, "m", m)
			return b, func() []byte { out, _ := marshalWithTools(b, &b.Tools); return out }
		}},
	}
	cases := []struct {
		name  string
		tools []Tool
		cache bool
	}{
		{"no tools", nil, false},
		{"tools", tools, false},
		{"same tools again", tools, false},
		{"cached breakpoint on the last tool", tools, true},
		{"a schema changed", changed, false},
		{"first list again", tools, false},
	}
	for _, w := range bodies {
		for _, tc := range cases {
			t.Run(w.wire+"/"+tc.name, func(t *testing.T) {
				body, spliced := w.build(tc.tools, tc.cache)
				want, err := json.Marshal(body)
				if err != nil {
					t.Fatal(err)
				}
				got := spliced()
				var g, w any
				if err := json.Unmarshal(got, &g); err != nil {
					t.Fatalf("not JSON: %v\n%s", err, got)
				}
				_ = json.Unmarshal(want, &w)
				if !reflect.DeepEqual(g, w) {
					t.Errorf("got  %s\nwant %s", got, want)
				}
				if again, _ := json.Marshal(body); string(again) != string(want) {
					t.Errorf("the body changed: %s", again)
				}
			})
		}
	}
}

// TestToolsJSONDetached: the cache keeps its own copy of a list, so a
// schema changed in place after it was written is written anew.
func TestToolsJSONDetached(t *testing.T) {
	schema := []byte(`{"type":"object","properties":{"a":{}}}`)
	tools := []anthropicTool{{Name: "t", InputSchema: schema}}
	first, err := toolsJSON(tools)
	if err != nil {
		t.Fatal(err)
	}
	schema[bytes.Index(schema, []byte(`"a"`))+1] = 'b' // in place
	got, _ := toolsJSON(tools)
	want, _ := json.Marshal(tools)
	if string(got) != string(want) || string(got) == string(first) {
		t.Errorf("after the change: got %s, want %s (first %s)", got, want, first)
	}
}

func TestSpliceMember(t *testing.T) {
	for _, tc := range []struct{ obj, want string }{
		{`{}`, `{"tools":[1]}`},
		{`{"a":1}`, `{"a":1,"tools":[1]}`},
	} {
		if got := string(spliceMember([]byte(tc.obj), "tools", []byte(`[1]`))); got != tc.want {
			t.Errorf("spliceMember(%s) = %s, want %s", tc.obj, got, tc.want)
		}
	}
}

// BenchmarkRequestBody: an Anthropic request body with 21 tools of
// 1.5 KB schemas, written by json.Marshal and by marshalWithTools.
func BenchmarkRequestBody(b *testing.B) {
	prop := `"p%d": {"type": "string", "description": "a property that says what the tool does with it, in a sentence or two"}`
	var tools []Tool
	for i := range 21 {
		s := `{"type": "object", "properties": {`
		for j := range 12 {
			if j > 0 {
				s += ", "
			}
			s += fmt.Sprintf(prop, j)
		}
		tools = append(tools, Tool{Name: fmt.Sprintf("tool%d", i), Description: "Does a thing.", Schema: json.RawMessage(s + `}}`)})
	}
	req := &Request{Messages: []Message{{Role: RoleUser, Content: []Block{{Type: BlockText, Text: "hi"}}}}, Tools: tools}
	body := anthropicBody(req, "m", &Model{}, "anthropic")
	b.Run("json.Marshal", func(b *testing.B) {
		for b.Loop() {
			_, _ = json.Marshal(body)
		}
	})
	b.Run("marshalWithTools", func(b *testing.B) {
		for b.Loop() {
			_, _ = marshalWithTools(body, &body.Tools)
		}
	})
}
