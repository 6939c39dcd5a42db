package tools

import (
	"encoding/json"
	"testing"
)

func TestCheckArgs(t *testing.T) {
	const schema = `{"type":"object","properties":{
		"name":{"type":"string"},
		"n":{"type":"integer","minimum":1,"maximum":10},
		"ratio":{"type":["number","null"]},
		"mode":{"enum":["a","b"]},
		"tags":{"type":"array","items":{"type":"string"},"minItems":1,"maxItems":2},
		"opts":{"type":"object","properties":{"deep":{"type":"boolean"}},"required":["deep"],"additionalProperties":false},
		"any":true,
		"extra":{"type":"object","additionalProperties":{"type":"integer"}}
	},"required":["name"],"additionalProperties":false}`
	tests := []struct {
		args, want string // want: the error, "" for none
	}{
		{`{"name":"x"}`, ""},
		{``, "t: name is required"},
		{`null`, "t: name is required"},
		{`{"name":null}`, "t: name is required"},
		{`{"name":1}`, "t: name must be a string, got the number 1"},
		{`{"name":"x","n":null}`, ""},
		{`{"name":"x","n":3}`, ""},
		{`{"name":"x","n":3.5}`, "t: n must be an integer, got a number with a fraction"},
		{`{"name":"x","n":0}`, "t: n must be at least 1, got 0"},
		{`{"name":"x","n":11}`, "t: n must be at most 10, got 11"},
		{`{"name":"x","ratio":0.5}`, ""},
		{`{"name":"x","ratio":"half"}`, "t: ratio must be a number or null, got a string"},
		{`{"name":"x","mode":"c"}`, `t: mode must be one of "a", "b", got "c"`},
		{`{"name":"x","tags":[]}`, "t: tags must hold at least 1 items, got 0"},
		{`{"name":"x","tags":["a","b","c"]}`, "t: tags must hold at most 2 items, got 3"},
		{`{"name":"x","tags":["a",2]}`, "t: tags[1] must be a string, got the number 2"},
		{`{"name":"x","opts":{}}`, "t: opts.deep is required"},
		{`{"name":"x","opts":{"deep":"yes"}}`, "t: opts.deep must be true or false, got a string"},
		{`{"name":"x","opts":{"deep":true,"wide":1}}`, `t: opts: unknown member "wide" (allowed: deep)`},
		{`{"name":"x","any":[1,{"z":null}]}`, ""},
		{`{"name":"x","extra":{"k":1}}`, ""},
		{`{"name":"x","extra":{"k":"v"}}`, "t: extra.k must be an integer, got a string"},
		{`{"name":"x","zzz":1}`, `t: unknown argument "zzz" (allowed: any, extra, mode, n, name, opts, ratio, tags)`},
		{`[1]`, "t: arguments must be an object, got an array"},
		{`{"name":`, "t: arguments are not valid JSON: unexpected end of JSON input"},
	}
	for _, tc := range tests {
		err := CheckArgs("t", json.RawMessage(schema), json.RawMessage(tc.args))
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("CheckArgs(%s) = %q, want %q", tc.args, got, tc.want)
		}
	}
	for _, s := range []string{``, `not json`, `true`, `{"type":"weird"}`, `{"properties":5,"required":"x"}`} {
		if err := CheckArgs("t", json.RawMessage(s), json.RawMessage(`{"a":1}`)); err != nil {
			t.Errorf("CheckArgs with schema %q = %v, want no check", s, err)
		}
	}
}

// FuzzCheckArgs: any schema and arguments give an answer, never a panic.
func FuzzCheckArgs(f *testing.F) {
	f.Add(`{"type":"object","properties":{"a":{"type":"array","items":{"type":"integer"}}},"required":["a"]}`, `{"a":[1,2.5]}`)
	f.Add(`{"type":["object"],"additionalProperties":{"enum":[1,"x",null]}}`, `{"k":null,"j":{"x":[]}}`)
	f.Fuzz(func(t *testing.T, schema, args string) {
		CheckArgs("t", json.RawMessage(schema), json.RawMessage(args))
	})
}
