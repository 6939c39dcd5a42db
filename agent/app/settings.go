package app

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/zut-go/zut/provider"
)

// SettingsFile is the name of the settings file under $ZUT_HOME.
const SettingsFile = "config.json"

// Settings are the user's choices kept in $ZUT_HOME/config.json. /Settings
// changes them and saves them at once; zut reads them when it starts.
// Members of the file that zut does not know here (for example the
// "options" object of extension options) are kept untouched when the file
// is saved.
type Settings struct {
	// Theme is "auto", "dark", "light" or the name of a theme file.
	Theme string
	// TerminalAlerts lets zut and extensions ring the terminal bell.
	TerminalAlerts bool
	// AutoCompact is the share of the context window (0.1 to 0.99) at
	// which the conversation is compacted before the next request; 0
	// turns automatic compaction off.
	AutoCompact float64
	// Model is the model used when no --model flag is given
	// ("provider/model" or a model id); "" lets zut choose.
	Model string
	// Reasoning is the default reasoning level; "" is the model's default.
	Reasoning string
	// Thinking is how reasoning shows: "collapsed", "full" or "hidden".
	Thinking string
	// PasteLines and PasteChars are the sizes above which a paste becomes
	// a marker in the editor.
	PasteLines, PasteChars int
	// HistorySize is the number of prompts kept in history.jsonl.
	HistorySize int

	// DisabledTools are tools never offered to the model
	// ("disabled_tools": ["web_search", "python"]); --no-tools adds to them.
	DisabledTools []string
	// PassKeys lets provider API keys through to bash, python and
	// extensions ("pass_keys"; ZUT_PASS_KEYS=1 does the same).
	PassKeys bool
	// WebAllowPrivate lets the web tools open loopback and private
	// addresses ("web": {"allow_private": true}; ZUT_WEB_ALLOW_PRIVATE=1).
	WebAllowPrivate bool
	// LSPDiagnostics appends a running language server's diagnostics to
	// edit and write results ("lsp": {"diagnostics_after_edit": false}
	// turns it off).
	LSPDiagnostics bool

	// raw holds the file's members by name, for the settings read where
	// they are used (the network limits, options).
	raw map[string]json.RawMessage
}

// Raw returns the value of a top-level member of config.json, nil when it
// is absent.
func (s Settings) Raw(name string) json.RawMessage { return s.raw[name] }

// UISettings are the members of config.json that /settings changes; the
// others (reasoning, paste_chars, history_size) are changed in the file.
var UISettings = []string{"theme", "terminal_alerts", "auto_compact", "thinking", "model", "paste_lines"}

// SettingsMembers are the members of config.json that Settings holds
// (permissions and options are read elsewhere).
var SettingsMembers = []string{"theme", "terminal_alerts", "auto_compact", "model", "reasoning", "thinking", "paste_lines", "paste_chars", "history_size", "disabled_tools", "pass_keys", "web", "lsp"}

// DefaultSettings are the settings of a fresh $ZUT_HOME.
func DefaultSettings() Settings {
	return Settings{
		Theme:          "auto",
		TerminalAlerts: true,
		AutoCompact:    0.85,
		Thinking:       "collapsed",
		PasteLines:     10,
		PasteChars:     1000,
		HistorySize:    1000,
		LSPDiagnostics: true,
	}
}

// settingsJSON is the file format: every member optional.
type settingsJSON struct {
	Theme          *string  `json:"theme,omitempty"`
	TerminalAlerts *bool    `json:"terminal_alerts,omitempty"`
	AutoCompact    *float64 `json:"auto_compact,omitempty"`
	Model          *string  `json:"model,omitempty"`
	Reasoning      *string  `json:"reasoning,omitempty"`
	Thinking       *string  `json:"thinking,omitempty"`
	PasteLines     *int     `json:"paste_lines,omitempty"`
	PasteChars     *int     `json:"paste_chars,omitempty"`
	HistorySize    *int     `json:"history_size,omitempty"`
	DisabledTools  []string `json:"disabled_tools,omitempty"`
	PassKeys       *bool    `json:"pass_keys,omitempty"`
	Web            *struct {
		AllowPrivate *bool `json:"allow_private"`
	} `json:"web,omitempty"`
	LSP *struct {
		DiagnosticsAfterEdit *bool `json:"diagnostics_after_edit"`
	} `json:"lsp,omitempty"`
}

// LoadSettings reads $ZUT_HOME/config.json. A missing file gives the
// defaults. A file that cannot be read gives the defaults and an error
// that names the file and what is wrong; members with bad values fall
// back to their defaults one by one.
func LoadSettings(home string) (Settings, error) {
	s := DefaultSettings()
	path := filepath.Join(home, SettingsFile)
	data, err := provider.ReadRegular(path, provider.MaxConfigFile)
	if errors.Is(err, fs.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return s, fmt.Errorf("read settings %s: %w", path, err)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return s, fmt.Errorf("read settings %s: not a JSON object (%v); fix or delete the file", path, err)
	}
	var problems []string
	field := func(name string, dst any) {
		v, ok := raw[name]
		if !ok {
			return
		}
		if err := json.Unmarshal(v, dst); err != nil {
			problems = append(problems, fmt.Sprintf("%s: %s is not a %s", name, strings.TrimSpace(string(v)), kindName(dst)))
		}
	}
	var f settingsJSON
	field("theme", &f.Theme)
	field("terminal_alerts", &f.TerminalAlerts)
	field("auto_compact", &f.AutoCompact)
	field("model", &f.Model)
	field("reasoning", &f.Reasoning)
	field("thinking", &f.Thinking)
	field("paste_lines", &f.PasteLines)
	field("paste_chars", &f.PasteChars)
	field("history_size", &f.HistorySize)
	field("disabled_tools", &f.DisabledTools)
	field("pass_keys", &f.PassKeys)
	field("web", &f.Web)
	field("lsp", &f.LSP)
	s.raw = raw
	s.DisabledTools = f.DisabledTools
	if f.PassKeys != nil {
		s.PassKeys = *f.PassKeys
	}
	if f.Web != nil && f.Web.AllowPrivate != nil {
		s.WebAllowPrivate = *f.Web.AllowPrivate
	}
	if f.LSP != nil && f.LSP.DiagnosticsAfterEdit != nil {
		s.LSPDiagnostics = *f.LSP.DiagnosticsAfterEdit
	}
	if f.Theme != nil && *f.Theme != "" {
		s.Theme = *f.Theme
	}
	if f.TerminalAlerts != nil {
		s.TerminalAlerts = *f.TerminalAlerts
	}
	if f.AutoCompact != nil {
		switch v := *f.AutoCompact; {
		case v == 0 || v >= 0.1 && v <= 0.99:
			s.AutoCompact = v
		case v > 1 && v < 100:
			s.AutoCompact = v / 100 // written as a percentage
		default:
			problems = append(problems, fmt.Sprintf("auto_compact: %v is out of range; use 0 (off) or 0.1 to 0.99", v))
		}
	}
	if f.Model != nil {
		s.Model = strings.TrimSpace(*f.Model)
	}
	if f.Reasoning != nil {
		s.Reasoning = strings.TrimSpace(*f.Reasoning)
	}
	if f.Thinking != nil {
		switch *f.Thinking {
		case "collapsed", "full", "hidden":
			s.Thinking = *f.Thinking
		default:
			problems = append(problems, fmt.Sprintf("thinking: %q is not collapsed, full or hidden", *f.Thinking))
		}
	}
	positive := func(name string, v *int, dst *int) {
		if v == nil {
			return
		}
		if *v < 1 {
			problems = append(problems, fmt.Sprintf("%s: %d must be 1 or more", name, *v))
			return
		}
		*dst = *v
	}
	positive("paste_lines", f.PasteLines, &s.PasteLines)
	positive("paste_chars", f.PasteChars, &s.PasteChars)
	positive("history_size", f.HistorySize, &s.HistorySize)
	if len(problems) > 0 {
		return s, fmt.Errorf("settings %s: %s; the defaults are used for these", path, strings.Join(problems, "; "))
	}
	return s, nil
}

func kindName(dst any) string {
	switch dst.(type) {
	case **bool:
		return "boolean"
	case **float64, **int:
		return "number"
	}
	return "string"
}

// SaveSettings writes s to $ZUT_HOME/config.json, keeping the members of
// the existing file that settings does not hold. The file is replaced
// atomically.
func SaveSettings(home string, s Settings) error {
	path := filepath.Join(home, SettingsFile)
	raw := map[string]json.RawMessage{}
	if data, err := provider.ReadRegular(path, provider.MaxConfigFile); err == nil {
		if err := json.Unmarshal(data, &raw); err != nil {
			return fmt.Errorf("save settings %s: the file is not a JSON object (%v); fix or delete it", path, err)
		}
		if raw == nil {
			raw = map[string]json.RawMessage{}
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("save settings: %w", err)
	}
	set := func(name string, v any) {
		b, _ := json.Marshal(v)
		raw[name] = b
	}
	set("theme", s.Theme)
	set("terminal_alerts", s.TerminalAlerts)
	set("auto_compact", s.AutoCompact)
	set("thinking", s.Thinking)
	set("paste_lines", s.PasteLines)
	set("paste_chars", s.PasteChars)
	set("history_size", s.HistorySize)
	for name, v := range map[string]string{"model": s.Model, "reasoning": s.Reasoning} {
		if v == "" {
			delete(raw, name)
		} else {
			set(name, v)
		}
	}
	data, err := json.MarshalIndent(raw, "", "  ")
	if err != nil {
		return fmt.Errorf("save settings: %w", err)
	}
	data = append(data, '\n')
	if err := os.MkdirAll(home, 0o700); err != nil {
		return fmt.Errorf("save settings: %w", err)
	}
	// WriteFile replaces the file atomically, follows a link only the user
	// made, and never swaps a link for a regular file.
	if err := provider.WriteFile(path, data, 0o600); err != nil {
		return fmt.Errorf("save settings %s: %w", path, err)
	}
	return nil
}

// Limits are the network bounds of config.json (first_byte_timeout,
// idle_timeout, ... see provider.LimitSettings), as strings ("90s",
// "64 MiB", "off") or numbers (seconds, bytes). A malformed value is an
// error naming the member; the environment variables of the same bounds
// win over the file.
func (s Settings) Limits() (provider.Limits, error) {
	byEnv := map[string]string{}
	for _, l := range provider.LimitSettings {
		raw := s.raw[l.Key]
		if len(raw) == 0 {
			continue
		}
		var v string
		if json.Unmarshal(raw, &v) != nil {
			v = strings.TrimSpace(string(raw))
		}
		byEnv[l.Env] = v
	}
	lim, err := provider.LimitsFromEnv(func(name string) string { return byEnv[name] })
	if err != nil {
		for _, l := range provider.LimitSettings {
			err = errors.New(strings.Replace(err.Error(), l.Env+"=", "config.json "+l.Key+"=", 1))
		}
		return provider.Limits{}, fmt.Errorf("settings: %v; the default is used", err)
	}
	return lim, nil
}
