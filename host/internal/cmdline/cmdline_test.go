package cmdline

import (
	"errors"
	"flag"
	"io"
	"slices"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		operands []string
		json     bool
		only     string
		err      string
	}{
		{"nothing", nil, nil, false, "", ""},
		{"operand only", []string{"dir"}, []string{"dir"}, false, "", ""},
		{"flags first", []string{"--json", "--only", "calls", "dir"}, []string{"dir"}, true, "calls", ""},
		{"flags after", []string{"dir", "--json", "--only=calls"}, []string{"dir"}, true, "calls", ""},
		{"flags between", []string{"a", "--json", "b", "--only", "x", "c"}, []string{"a", "b", "c"}, true, "x", ""},
		{"double dash", []string{"a", "--", "--json", "-h"}, []string{"a", "--json", "-h"}, false, "", ""},
		{"double dash after flags", []string{"--json", "--", "--only", "a"}, []string{"--only", "a"}, true, "", ""},
		{"double dash as an operand after it", []string{"a", "--", "--"}, []string{"a", "--"}, false, "", ""},
		{"double dash first", []string{"--", "a"}, []string{"a"}, false, "", ""},
		{"single dash operand", []string{"-", "--json"}, []string{"-"}, true, "", ""},
		{"unknown flag after an operand", []string{"dir", "--jsn"}, nil, false, "", "flag provided but not defined: -jsn"},
		{"missing value", []string{"dir", "--only"}, nil, false, "", "flag needs an argument: -only"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fs := flag.NewFlagSet("test", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			json := fs.Bool("json", false, "")
			only := fs.String("only", "", "")
			got, err := Parse(fs, tc.args)
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("Parse(%q) = %q, %v; want error %q", tc.args, got, err, tc.err)
				}
				return
			}
			if err != nil || !slices.Equal(got, tc.operands) || *json != tc.json || *only != tc.only {
				t.Errorf("Parse(%q) = %q, %v (json %v, only %q); want %q (json %v, only %q)",
					tc.args, got, err, *json, *only, tc.operands, tc.json, tc.only)
			}
		})
	}
}

func TestParseHelp(t *testing.T) {
	for _, args := range [][]string{{"-h"}, {"dir", "--help"}} {
		fs := flag.NewFlagSet("test", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		if _, err := Parse(fs, args); !errors.Is(err, flag.ErrHelp) {
			t.Errorf("Parse(%q) = %v, want flag.ErrHelp", args, err)
		}
	}
}
