package tools

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/zut-go/zut/agent/skills"
)

// TestAppendSchema holds the schema encoder to json.Marshal, byte for
// byte, and to refusing what it does not know.
func TestAppendSchema(t *testing.T) {
	type other struct{ A int }
	for _, tc := range []struct {
		name string
		v    any
		ok   bool
	}{
		{"nil", nil, true},
		{"empty object", map[string]any{}, true},
		{"nil object", map[string]any(nil), true},
		{"scalars", map[string]any{"b": true, "f": false, "i": 3, "n": nil, "neg": int64(-12), "s": "text"}, true},
		{"sorted keys", map[string]any{"zeta": 1, "alpha": 2, "Mid": 3, "mid": 4, "_": 5}, true},
		{"nested", map[string]any{"type": "object", "properties": map[string]any{
			"path": map[string]any{"type": "string", "description": "A path."},
			"mode": map[string]any{"enum": []any{"a", "b", 1, nil}},
		}, "required": []string{"path"}, "additionalProperties": false}, true},
		{"empty and nil slices", map[string]any{"a": []string{}, "b": []string(nil), "c": []any{}, "d": []any(nil)}, true},
		{"quotes and backslashes", map[string]any{"pattern": `e.g. "func \\w+Handler" or \`, `k"\`: "v"}, true},
		{"unicode", map[string]any{"d": "é — ✓ 日本 \ufffd 😀"}, true},
		{"escapes", map[string]any{"q": `say "hi"\now`, "html": "<a href='x'>&</a>", "ctl": "tab\there\nline\r\b\f\x01",
			"uni": "é — ✓ \u2028 \u2029", "bad": "\xff\xfe", "del": "\x7f", "key \"quoted\"": 1}, true},
		{"float", map[string]any{"x": 1.5}, false},
		{"struct", map[string]any{"x": other{1}}, false},
		{"map of strings", map[string]any{"x": map[string]string{"a": "b"}}, false},
		{"deep unknown", map[string]any{"x": []any{map[string]any{"y": 2.5}}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := appendSchema(nil, tc.v)
			if ok != tc.ok {
				t.Fatalf("appendSchema(%v) ok = %v, want %v", tc.v, ok, tc.ok)
			}
			if !ok {
				return
			}
			want, err := json.Marshal(tc.v)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("appendSchema(%v) =\n%s\nwant (json.Marshal)\n%s", tc.v, got, want)
			}
		})
	}
}

// TestDefinitionsEncodeAsMarshal: every built-in tool's schema is what
// json.Marshal makes of it.
func TestDefinitionsEncodeAsMarshal(t *testing.T) {
	for _, tool := range Builtins(Config{CWD: t.TempDir(), Skills: &skills.Index{}}) {
		d := tool.Definition()
		var v map[string]any
		if err := json.Unmarshal(d.Schema, &v); err != nil {
			t.Fatalf("%s: schema %s: %v", d.Name, d.Schema, err)
		}
		want, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(d.Schema, want) {
			t.Errorf("%s: schema\n%s\nwant\n%s", d.Name, d.Schema, want)
		}
	}
}

// FuzzAppendSchemaString: any string encodes as json.Marshal encodes it.
func FuzzAppendSchemaString(f *testing.F) {
	for _, s := range []string{"", "plain", `a "q" \ b`, "é\u2028\xff<&>\x00", "\ufffd"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := appendSchemaString(nil, s); !bytes.Equal(got, want) {
			t.Fatalf("appendSchemaString(%q) = %s, want %s", s, got, want)
		}
	})
}
