package tools

import (
	"context"
	"encoding/json"
	"io/fs"
	"slices"
	"strings"
	"testing"
)

func TestCapText(t *testing.T) {
	long := strings.Repeat("line\n", 10)
	tests := []struct {
		name         string
		text         string
		lines, bytes int
		hint         string
		want         string
		wantCut      bool
	}{
		{"fits", "a\nb\n", 5, 100, "", "a\nb\n", false},
		{"lines", long, 3, 1000, "ask for more", "line\nline\nline\n[output cut: showed 3 lines of 10 (15 B of 50 B); ask for more]", true},
		{"bytes", long, 100, 12, "", "line\nline\n[output cut: showed 2 lines of 10 (10 B of 50 B)]", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, cut := CapText(tc.text, tc.lines, tc.bytes, tc.hint)
			if got != tc.want || cut != tc.wantCut {
				t.Errorf("CapText(%q, %d, %d) = %q, %v; want %q, %v", tc.text, tc.lines, tc.bytes, got, cut, tc.want, tc.wantCut)
			}
		})
	}
}

func TestExportedArgs(t *testing.T) {
	tests := []struct {
		name, raw, wantErr string
	}{
		{"ok", `{"q":"x","n":3,"b":true,"l":[1]}`, ""},
		{"unknown", `{"z":1}`, `t: unknown argument "z" (allowed: q, n, b, l)`},
		{"not object", `[1]`, "t: arguments must be a JSON object, got an array"},
		{"bad int", `{"n":1.5}`, "t: n must be a count, got 1.5"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, err := ParseArgs("t", json.RawMessage(tc.raw), "q", "n", "b", "l")
			if err == nil {
				_, err = a.Int("n", 1, 0, 10, "a count")
			}
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tc.wantErr {
				t.Fatalf("ParseArgs(%s) error = %q, want %q", tc.raw, got, tc.wantErr)
			}
			if err != nil {
				return
			}
			if s, _ := a.String("q", true); s != "x" {
				t.Errorf("String(q) = %q, want x", s)
			}
			if b, _ := a.Bool("b"); !b {
				t.Errorf("Bool(b) = false, want true")
			}
			if string(a.Raw("l")) != "[1]" || a.Raw("missing") != nil {
				t.Errorf("Raw(l) = %s, Raw(missing) = %s", a.Raw("l"), a.Raw("missing"))
			}
		})
	}
}

func TestWalkFiles(t *testing.T) {
	cfg := testConfig(t)
	writeFiles(t, cfg.CWD, map[string]string{
		".gitignore":        "*.log\nbuild/\n!keep.log\n",
		"a.go":              "",
		"keep.log":          "",
		"drop.log":          "",
		"build/out.go":      "",
		"sub/.gitignore":    "secret.go\n",
		"sub/b.go":          "",
		"sub/secret.go":     "",
		".git/config":       "",
		"z/deeper/c.go":     "",
		"z/deeper/skip.txt": "",
	})
	tests := []struct {
		name string
		stop string // visit returns this for the file of that name
		err  error
		want []string
	}{
		{"all", "", nil, []string{".gitignore", "a.go", "keep.log", "sub/.gitignore", "sub/b.go", "z/deeper/c.go", "z/deeper/skip.txt"}},
		{"skip all", "sub/b.go", fs.SkipAll, []string{".gitignore", "a.go", "keep.log", "sub/.gitignore", "sub/b.go"}},
		{"skip dir", "z/deeper/c.go", fs.SkipDir, []string{".gitignore", "a.go", "keep.log", "sub/.gitignore", "sub/b.go", "z/deeper/c.go"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			err := WalkFiles(context.Background(), cfg.CWD, func(p string) error {
				rel := cfg.Display(p)
				got = append(got, rel)
				if rel == tc.stop {
					return tc.err
				}
				return nil
			})
			if err != nil || !slices.Equal(got, tc.want) {
				t.Errorf("WalkFiles = %q, %v; want %q, nil", got, err, tc.want)
			}
		})
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := WalkFiles(ctx, cfg.CWD, func(string) error { return nil }); err != context.Canceled {
		t.Errorf("WalkFiles(cancelled) = %v, want %v", err, context.Canceled)
	}
}
