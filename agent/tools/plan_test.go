package tools

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPlan asks write and edit what they would change: the change is
// right, errors say why the call would fail, and no file changes.
func TestPlan(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\ntwo\n"), 0o644)
	ts := Builtins(Config{CWD: dir, Home: dir})
	planner := func(name string) Planner {
		for _, tl := range ts {
			if tl.Definition().Name == name {
				return tl.(Planner)
			}
		}
		t.Fatalf("no tool %s", name)
		return nil
	}
	js := func(v any) json.RawMessage { b, _ := json.Marshal(v); return b }
	tests := []struct {
		name, tool string
		args       json.RawMessage
		want       FileChange
		err        string
	}{
		{"write new", "write", js(map[string]any{"path": "new.txt", "content": "hi\n"}), FileChange{Path: "new.txt", Created: true, New: "hi\n", FirstChangedLine: 1}, ""},
		{"write over", "write", js(map[string]any{"path": "a.txt", "content": "one\n2\n"}), FileChange{Path: "a.txt", Old: "one\ntwo\n", New: "one\n2\n", FirstChangedLine: 2}, ""},
		{"edit", "edit", js(map[string]any{"path": "a.txt", "edits": []map[string]string{{"oldText": "two", "newText": "TWO"}}}), FileChange{Path: "a.txt", Old: "one\ntwo\n", New: "one\nTWO\n", FirstChangedLine: 2}, ""},
		{"edit no match", "edit", js(map[string]any{"path": "a.txt", "edits": []map[string]string{{"oldText": "three", "newText": "3"}}}), FileChange{}, "a.txt"},
		{"edit missing file", "edit", js(map[string]any{"path": "nope.txt", "edits": []map[string]string{{"oldText": "x", "newText": "y"}}}), FileChange{}, "nope.txt"},
		{"bad args", "write", js(map[string]any{"path": "x"}), FileChange{}, "content"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := planner(tc.tool).Plan(tc.args)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("Plan(%s) error = %v, want one naming %q", tc.args, err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("Plan(%s) = %+v, %v, want %+v", tc.args, got, err, tc.want)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "new.txt")); err == nil {
		t.Errorf("Plan created new.txt")
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(b) != "one\ntwo\n" {
		t.Errorf("Plan changed a.txt to %q", b)
	}
}
