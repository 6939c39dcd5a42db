package jsonfile

import (
	"strings"
	"testing"
)

func TestMembersEncode(t *testing.T) {
	tests := []struct {
		name, in, want, err string
	}{
		{name: "order and unknown keys kept", in: `{"z":1,"a":{"b":[1,2]},"m":"x"}`,
			want: "{\n  \"z\": 1,\n  \"a\": {\n    \"b\": [\n      1,\n      2\n    ]\n  },\n  \"m\": \"x\"\n}"},
		{name: "empty object", in: ` {} `, want: "{}"},
		{name: "array", in: `[1]`, err: "not a JSON object"},
		{name: "trailing data", in: `{"a":1} {}`, err: "data after the object"},
		{name: "trailing garbage", in: "{\"a\":1}sC\xb1", err: "data after the object"},
		{name: "keys escaped as JSON", in: "{\"\x7f\\u0001<\\\"\":1}", want: "{\n  \"\x7f\\u0001<\\\"\": 1\n}"},
		{name: "cut short", in: `{"a":`, err: "EOF"},
		{name: "empty", in: ``, err: "EOF"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ms, err := Members([]byte(tc.in))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("Members(%q) error = %v, want %q", tc.in, err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := string(Encode(ms, "")); got != tc.want {
				t.Errorf("Encode = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestEncodeIndent(t *testing.T) {
	got := string(Encode([]Member{{"k", []byte(`{"x":true}`)}}, "  "))
	want := "{\n    \"k\": {\n      \"x\": true\n    }\n  }"
	if got != want {
		t.Errorf("Encode with indent = %q, want %q", got, want)
	}
}
