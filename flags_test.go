package main

import (
	"io"
	"strings"
	"testing"
)

func TestParseOptions(t *testing.T) {
	cases := []struct {
		name    string
		args    string
		check   func(o options) bool
		wantErr string
	}{
		{"prompt after flags", "-p --model x hello world", func(o options) bool {
			return o.mode == "print" && o.model == "x" && strings.Join(o.prompt, " ") == "hello world"
		}, ""},
		{"flags after prompt", "hello -p --model x", func(o options) bool { return o.mode == "print" && o.model == "x" }, ""},
		{"double dash keeps dashes in the prompt", "-p -- -x --y", func(o options) bool { return strings.Join(o.prompt, " ") == "-x --y" }, ""},
		{"bare resume", "-r", func(o options) bool { return o.resumeSet && o.resume == "" }, ""},
		{"resume with id", "-r 3f2a9c", func(o options) bool { return o.resumeSet && o.resume == "3f2a9c" && len(o.prompt) == 0 }, ""},
		{"resume with prompt", "-r fix", func(o options) bool { return o.resumeSet && o.resume == "" && o.prompt[0] == "fix" }, ""},
		{"resume equals", "--resume=abcd-12", func(o options) bool { return o.resume == "abcd-12" }, ""},
		{"repeatable ext", "-e a --ext b", func(o options) bool { return strings.Join(o.exts, ",") == "a,b" }, ""},
		{"bad mode", "--mode nope", nil, "unknown --mode"},
		{"print conflicts with rpc", "-p --mode rpc", nil, "conflicts"},
		{"yolo conflict", "--yolo --no-yolo", nil, "conflict"},
		{"negative steps", "--max-steps -1", nil, "--max-steps"},
		{"two session choices", "-c --no-session", nil, "only one"},
		{"fork without session", "--fork e1", nil, "--fork needs"},
		{"fork with continue", "-c --fork e1", func(o options) bool { return o.fork == "e1" && o.cont }, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o, err := parseOptions(strings.Fields(tc.args), io.Discard)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("parseOptions(%q) error = %v, want %q", tc.args, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("parseOptions(%q) = %v", tc.args, err)
			}
			if !tc.check(o) {
				t.Errorf("parseOptions(%q) = %+v", tc.args, o)
			}
		})
	}
}
