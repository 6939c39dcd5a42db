package app

import (
	"io"
	"testing"
)

func TestParseOptionsErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--modle", "x"}, "unknown flag --modle (did you mean --model?); zut --help lists the flags"},
		{[]string{"--contineu"}, "unknown flag --contineu (did you mean --continue?); zut --help lists the flags"},
		{[]string{"--zzz"}, "unknown flag --zzz; zut --help lists the flags"},
		{[]string{"--max-steps", "abc"}, `--max-steps: "abc" is not a whole number; zut --help lists the flags`},
		{[]string{"--yolo=maybe"}, `--yolo: "maybe" is not true or false; zut --help lists the flags`},
		{[]string{"-m"}, "-m needs a value; zut --help lists the flags"},
	}
	for _, tc := range tests {
		_, err := ParseOptions(tc.args, io.Discard, nil)
		if err == nil || err.Error() != tc.want || ExitCode(err, io.Discard) != 2 {
			t.Errorf("ParseOptions(%q) = %v, want usage error %q", tc.args, err, tc.want)
		}
	}
}

func TestNearest(t *testing.T) {
	names := []string{"model", "mode", "continue", "sessions", "ext", "help"}
	tests := []struct{ in, want string }{
		{"modle", "model"}, {"mdoel", "model"}, {"sesions", "sessions"}, {"exts", "ext"},
		{"helo", "help"}, {"test", ""}, {"fix", ""}, {"model", ""}, {"cont", "continue"},
	}
	for _, tc := range tests {
		if got := Nearest(tc.in, names); got != tc.want {
			t.Errorf("Nearest(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
