package app

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestLoadSettings(t *testing.T) {
	def := DefaultSettings()
	with := func(f func(s *Settings)) Settings {
		s := DefaultSettings()
		f(&s)
		return s
	}
	tests := []struct {
		name    string
		file    string // "" means no file
		want    Settings
		wantErr string
	}{
		{"missing", "", def, ""},
		{"empty object", `{}`, def, ""},
		{"all", `{"theme": "light", "terminal_alerts": false, "auto_compact": 0.7, "model": "openai/gpt-5", "reasoning": "high", "thinking": "full", "paste_lines": 20, "paste_chars": 500, "history_size": 50}`,
			Settings{Theme: "light", TerminalAlerts: false, AutoCompact: 0.7, Model: "openai/gpt-5", Reasoning: "high", Thinking: "full", PasteLines: 20, PasteChars: 500, HistorySize: 50, LSPDiagnostics: true}, ""},
		{"tools and network", `{"disabled_tools": ["python", "web_search"], "pass_keys": true, "web": {"allow_private": true}, "lsp": {"diagnostics_after_edit": false}}`,
			with(func(s *Settings) {
				s.DisabledTools, s.PassKeys, s.WebAllowPrivate, s.LSPDiagnostics = []string{"python", "web_search"}, true, true, false
			}), ""},
		{"percent", `{"auto_compact": 80}`, with(func(s *Settings) { s.AutoCompact = 0.8 }), ""},
		{"off", `{"auto_compact": 0}`, with(func(s *Settings) { s.AutoCompact = 0 }), ""},
		{"unknown members kept out", `{"options": {"x": 1}, "theme": "dark"}`, with(func(s *Settings) { s.Theme = "dark" }), ""},
		{"bad values", `{"theme": 3, "thinking": "loud", "paste_lines": 0, "auto_compact": 2000}`, def, "theme: 3 is not a string; auto_compact: 2000 is out of range"},
		{"not an object", `[1, 2]`, def, "not a JSON object"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			if tc.file != "" {
				if err := os.WriteFile(filepath.Join(home, SettingsFile), []byte(tc.file), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, err := LoadSettings(home)
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Fatalf("loadSettings(%s) error = %v, want %q", tc.file, err, tc.wantErr)
			}
			got.raw = nil
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("loadSettings(%s) = %+v, want %+v", tc.file, got, tc.want)
			}
		})
	}
}

// TestSaveSettings round-trips the settings and keeps the members zut
// does not know.
func TestSaveSettings(t *testing.T) {
	home := t.TempDir()
	path := filepath.Join(home, SettingsFile)
	if err := os.WriteFile(path, []byte(`{"options": {"plan": "on"}, "model": "old", "custom": [1]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	s := DefaultSettings()
	s.Theme, s.TerminalAlerts, s.AutoCompact = "ocean", false, 0.9
	if err := SaveSettings(home, s); err != nil {
		t.Fatalf("saveSettings = %v", err)
	}
	got, err := LoadSettings(home)
	got.raw = nil
	if err != nil || !reflect.DeepEqual(got, s) {
		t.Errorf("loadSettings after saveSettings = %+v, %v; want %+v", got, err, s)
	}
	data, _ := os.ReadFile(path)
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("saved file: %v", err)
	}
	var custom []int
	json.Unmarshal(m["custom"], &custom)
	if len(custom) != 1 || custom[0] != 1 || !strings.Contains(string(m["options"]), `"plan"`) {
		t.Errorf("saved file lost members: %s", data)
	}
	if _, ok := m["model"]; ok {
		t.Errorf("an empty model should remove the member: %s", data)
	}
	if entries, _ := os.ReadDir(home); len(entries) != 1 {
		t.Errorf("saving left files behind: %v", entries)
	}
}

func TestSaveSettingsBrokenFile(t *testing.T) {
	home := t.TempDir()
	path := filepath.Join(home, SettingsFile)
	os.WriteFile(path, []byte(`{broken`), 0o644)
	err := SaveSettings(home, DefaultSettings())
	if err == nil || !strings.Contains(err.Error(), "fix or delete it") {
		t.Fatalf("saveSettings over a broken file = %v, want an error that keeps the file", err)
	}
	if data, _ := os.ReadFile(path); string(data) != `{broken` {
		t.Errorf("the broken file was overwritten: %s", data)
	}
}

// FuzzLoadSettings reads any config.json: no panic, and what loads saves
// and loads again unchanged.
func FuzzLoadSettings(f *testing.F) {
	f.Add([]byte(`{"theme": "dark", "auto_compact": 0.5, "options": {"a": 1}}`))
	f.Add([]byte(`{"terminal_alerts": "yes", "paste_lines": -1}`))
	f.Add([]byte(`null`))
	f.Add([]byte(`{"thinking": "full", "model": "  x  "}`))
	// One home per process: the fuzz function runs one input at a time
	// in each worker, and a directory per input costs most of the time.
	home := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(filepath.Join(home, SettingsFile), data, 0o600); err != nil {
			t.Fatal(err)
		}
		s, err := LoadSettings(home)
		if err != nil {
			return
		}
		if err := SaveSettings(home, s); err != nil {
			t.Fatalf("saveSettings after a clean load: %v", err)
		}
		again, err := LoadSettings(home)
		again.raw, s.raw = nil, nil // the file's members, as written
		if err != nil || !reflect.DeepEqual(again, s) {
			t.Fatalf("round trip of %q: %+v, %v; want %+v", data, again, err, s)
		}
	})
}

// TestSettingsFilesAreSafe: config.json is read as a regular file only,
// and saving it writes 0600 through a link the user made, never
// replacing the link.
func TestSettingsFilesAreSafe(t *testing.T) {
	t.Run("fifo", func(t *testing.T) {
		home := t.TempDir()
		if err := syscall.Mkfifo(filepath.Join(home, SettingsFile), 0o600); err != nil {
			t.Skip("no FIFOs here:", err)
		}
		done := make(chan error, 1)
		go func() { _, err := LoadSettings(home); done <- err }()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), "not a regular file") {
				t.Errorf("LoadSettings with a FIFO = %v, want a not-a-regular-file error", err)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("LoadSettings hung on a FIFO")
		}
	})
	t.Run("link", func(t *testing.T) {
		home, elsewhere := t.TempDir(), t.TempDir()
		target := filepath.Join(elsewhere, "zut-config.json")
		os.WriteFile(target, []byte(`{"theme":"dark"}`), 0o600)
		link := filepath.Join(home, SettingsFile)
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
		s, err := LoadSettings(home)
		if err != nil || s.Theme != "dark" {
			t.Fatalf("LoadSettings through a link = %+v, %v", s, err)
		}
		s.Theme = "light"
		if err := SaveSettings(home, s); err != nil {
			t.Fatal(err)
		}
		if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Errorf("the link was replaced: %v, %v", fi.Mode(), err)
		}
		b, _ := os.ReadFile(target)
		if !strings.Contains(string(b), `"light"`) {
			t.Errorf("the target holds %s, want the saved theme", b)
		}
	})
}
