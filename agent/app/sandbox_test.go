package app

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestSandboxSettings: "sandbox" of config.json is a mode's name or an
// object; the project's entry under "projects" replaces the members it
// sets; a bad value is a warning and is ignored; the mode chosen follows
// --sandbox, then the settings, then --no-yolo in a headless run.
func TestSandboxSettings(t *testing.T) {
	tests := []struct {
		name, config string
		opts         Options
		interactive  bool
		wantMode     string
		wantWritable string
		wantNet      bool
		warning      string
	}{
		{"none", `{}`, Options{}, false, "danger-full-access", "", false, ""},
		{"name", `{"sandbox": "read-only"}`, Options{}, false, "read-only", "", false, ""},
		{"object", `{"sandbox": {"mode": "workspace-write", "writable": ["~/.cache"], "network": true}}`, Options{}, false, "workspace-write", "~/.cache", true, ""},
		{"project wins", `{"sandbox": {"mode": "workspace-write", "writable": ["a"]}, "projects": {"/p": {"sandbox": "read-only"}, "/q": {"sandbox": "danger-full-access"}}}`, Options{}, false, "read-only", "a", false, ""},
		{"flag wins", `{"sandbox": "read-only"}`, Options{Sandbox: "danger-full-access"}, false, "danger-full-access", "", false, ""},
		{"no-yolo", `{}`, Options{NoYolo: true}, false, "workspace-write", "", false, ""},
		{"no-yolo, settings", `{"sandbox": "read-only"}`, Options{NoYolo: true}, false, "read-only", "", false, ""},
		{"interactive no-yolo", `{}`, Options{NoYolo: true}, true, "danger-full-access", "", false, ""},
		{"bad value", `{"sandbox": 3}`, Options{}, false, "danger-full-access", "", false, "settings: sandbox: not a mode's name"},
		{"bad mode", `{"sandbox": "open"}`, Options{}, false, "danger-full-access", "", false, `sandbox mode "open": not one of`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var raw map[string]json.RawMessage
			if err := json.Unmarshal([]byte(tc.config), &raw); err != nil {
				t.Fatal(err)
			}
			var stderr bytes.Buffer
			a := &App{env: &Env{Stderr: &stderr, Getenv: func(string) string { return "" }}, cwd: "/p", opts: tc.opts,
				settings: Settings{raw: raw}, front: Frontend{Interactive: tc.interactive}}
			if err := a.initSandbox(); err != nil {
				t.Fatal(err)
			}
			s := a.sandbox
			got := fmt.Sprintf("%s %s %v", a.SandboxMode(), strings.Join(s.settings.Writable, ","), s.settings.Network != nil && *s.settings.Network)
			want := fmt.Sprintf("%s %s %v", tc.wantMode, tc.wantWritable, tc.wantNet)
			if got != want {
				t.Errorf("mode, writable, network = %s, want %s", got, want)
			}
			if tc.warning == "" && stderr.Len() > 0 || !strings.Contains(stderr.String(), tc.warning) {
				t.Errorf("stderr %q, want %q", stderr.String(), tc.warning)
			}
		})
	}
}
