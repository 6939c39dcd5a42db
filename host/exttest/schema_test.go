package exttest

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestCheckSchema(t *testing.T) {
	cases := []struct {
		schema string
		want   Status // the worst issue; Pass for none
		msg    string // in one of the issues
	}{
		{``, Pass, ""},
		{`{"type":"object"}`, Pass, ""},
		{`{"type":"object","properties":{"city":{"type":"string"},"n":{"type":"integer","minimum":1}},"required":["city"]}`, Pass, ""},
		{`{"type":"object","properties":{"a":{"$ref":"#/$defs/a"}},"$defs":{"a":{"type":"string"}}}`, Pass, ""},
		{`[]`, Fail, "not an object"},
		{`{"properties":{}}`, Fail, `no top-level "type"`},
		{`{"type":"array","items":{"type":"string"}}`, Fail, `top-level "type" is "array"`},
		{`{"type":"object","anyOf":[{"required":["a"]}]}`, Fail, `"anyOf" at the top level`},
		{`{"type":"object","oneOf":[{"required":["a"]}]}`, Fail, `"oneOf" at the top level`},
		{`{"type":"object","properties":{"a":{"type":"text"}}}`, Fail, `type "text" is not`},
		{`{"type":"object","properties":{"a":{"type":"string","minLength":-1}}}`, Fail, "non-negative integer"},
		{`{"type":"object","properties":{"a":{"$ref":"https://example.com/a.json"}}}`, Fail, "points outside"},
		{`{"type":"object","properties":{"a":{"$ref":"#/$defs/missing"}}}`, Fail, "does not resolve"},
		{`{"type":"object","properties":{"a":{"enum":[]}}}`, Fail, "non-empty list"},
		{`{"type":"object","properties":{"a":{}},"required":["a","b"]}`, Warn, `requires "b"`},
		{`{"type":"object","properties":"nope"}`, Fail, "must be an object"},
	}
	for _, tc := range cases {
		issues := checkSchema(json.RawMessage(tc.schema))
		worst, all := Pass, ""
		for _, i := range issues {
			if i.status == Fail || worst == Pass {
				worst = i.status
			}
			all += i.String() + "; "
		}
		if worst != tc.want || !strings.Contains(all, tc.msg) {
			t.Errorf("checkSchema(%s) = %s %q, want %s with %q", tc.schema, worst, all, tc.want, tc.msg)
		}
	}
}

// TestSynth checks that the arguments built from a schema satisfy it and
// that the invalid ones do not.
func TestSynth(t *testing.T) {
	cases := []struct {
		schema  string
		invalid bool // invalidArgs can break it
	}{
		{`{"type":"object"}`, false},
		{`{"type":"object","properties":{"city":{"type":"string"},"units":{"type":"string","enum":["metric","imperial"]}},"required":["city"]}`, true},
		{`{"type":"object","properties":{"n":{"type":"integer","minimum":5,"maximum":9},"x":{"type":"number","exclusiveMinimum":2}}}`, true},
		{`{"type":"object","properties":{"tags":{"type":"array","items":{"type":"string","minLength":12},"minItems":2}},"required":["tags"]}`, true},
		{`{"type":"object","properties":{"o":{"type":"object","properties":{"deep":{"type":"boolean"}},"required":["deep"]}}}`, true},
		{`{"type":"object","properties":{"a":{"$ref":"#/$defs/a"}},"required":["a"],"$defs":{"a":{"type":"string","format":"email"}}}`, true},
		{`{"type":"object","properties":{"when":{"type":["string","null"],"format":"date-time"},"k":{"const":"fixed"}}}`, true},
	}
	for _, tc := range cases {
		s := parseSchema(json.RawMessage(tc.schema))
		v := synth(s, s, "", 0)
		b, _ := json.Marshal(v)
		var back any
		json.Unmarshal(b, &back)
		if errs := validate(s, s, back, "", 0); len(errs) > 0 {
			t.Errorf("synth(%s) = %s, which breaks it: %q", tc.schema, b, errs)
		}
		bad, how, ok := invalidArgs(s)
		if ok != tc.invalid {
			t.Errorf("invalidArgs(%s) ok = %v, want %v", tc.schema, ok, tc.invalid)
			continue
		}
		if ok {
			var bv any
			json.Unmarshal(bad, &bv)
			if errs := validate(s, s, bv, "", 0); len(errs) == 0 {
				t.Errorf("invalidArgs(%s) = %s (%s), which satisfies it", tc.schema, bad, how)
			}
		}
	}
}

// FuzzSchema feeds the schema checker, synthesis and validation any
// bytes: a schema comes from the extension.
func FuzzSchema(f *testing.F) {
	for _, s := range []string{`{"type":"object"}`, `{"type":"object","properties":{"a":{"$ref":"#"}}}`,
		`{"type":"object","properties":{"a":{"type":"array","items":[{"type":"string"}]}}}`, `[1,2]`, `"x"`, `{"$ref":"#/a/~1b"}`,
		`{"type":"object","properties":{"a":{"$ref":"#"},"b":{"$ref":"#"},"c":{"$ref":"#"},"d":{"$ref":"#"}}}`,
		`{"type":"object","properties":{"a":{"type":"array","minItems":1e9,"items":{"type":"string","minLength":1e12}}}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkSchema(data)
		s := parseSchema(data)
		v := synth(s, s, "", 0)
		validate(s, s, v, "", 0)
		invalidArgs(s)
	})
}
