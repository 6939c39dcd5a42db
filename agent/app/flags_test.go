package app

import (
	"io"
	"strings"
	"testing"
)

func TestParseOptions(t *testing.T) {
	cases := []struct {
		name    string
		args    string
		check   func(o Options) bool
		wantErr string
	}{
		{"prompt after flags", "-p --model x hello world", func(o Options) bool {
			return o.Mode == "print" && o.Model == "x" && strings.Join(o.Prompt, " ") == "hello world"
		}, ""},
		{"flags after prompt", "hello -p --model x", func(o Options) bool { return o.Mode == "print" && o.Model == "x" }, ""},
		{"double dash keeps dashes in the prompt", "-p -- -x --y", func(o Options) bool { return strings.Join(o.Prompt, " ") == "-x --y" }, ""},
		{"bare resume", "-r", func(o Options) bool { return o.ResumeSet && o.Resume == "" }, ""},
		{"resume with id", "-r 3f2a9c", func(o Options) bool { return o.ResumeSet && o.Resume == "3f2a9c" && len(o.Prompt) == 0 }, ""},
		{"resume with prompt", "-r fix", func(o Options) bool { return o.ResumeSet && o.Resume == "" && o.Prompt[0] == "fix" }, ""},
		{"resume equals", "--resume=abcd-12", func(o Options) bool { return o.Resume == "abcd-12" }, ""},
		{"repeatable ext", "-e a --ext b", func(o Options) bool { return strings.Join(o.Exts, ",") == "a,b" }, ""},
		{"json alias", "--json hi", func(o Options) bool { return o.Mode == "json" && o.Prompt[0] == "hi" }, ""},
		{"rpc alias", "--rpc", func(o Options) bool { return o.Mode == "rpc" }, ""},
		{"json alias with the same mode", "--json --mode json", func(o Options) bool { return o.Mode == "json" }, ""},
		{"json alias conflicts with rpc", "--json --mode rpc", nil, "--json conflicts with --mode rpc"},
		{"rpc alias conflicts with print", "--rpc -p", nil, "conflicts"},
		{"bad mode", "--mode nope", nil, "unknown --mode"},
		{"print conflicts with rpc", "-p --mode rpc", nil, "conflicts"},
		{"yolo conflict", "--yolo --no-yolo", nil, "conflict"},
		{"negative steps", "--max-steps -1", nil, "--max-steps"},
		{"two session choices", "-c --no-session", nil, "only one"},
		{"fork without session", "--fork e1", nil, "--fork needs"},
		{"fork with continue", "-c --fork e1", func(o Options) bool { return o.Fork == "e1" && o.Continue }, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o, err := ParseOptions(strings.Fields(tc.args), io.Discard, nil)
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
