package host

import (
	"context"
	"time"
)

// Report is what zut ext doctor shows of one extension, and what Start
// and Reload leave in Diagnostics. The JSON names are the doctor's
// --json output.
type Report struct {
	Name        string         `json:"name"`
	Dir         string         `json:"dir"`
	Scope       string         `json:"scope"`  // ScopeExt, ScopeProject or ScopeGlobal
	Status      string         `json:"status"` // StatusOK, StatusAutoReady, ... (not StatusEnabled)
	Version     string         `json:"version,omitempty"`
	Description string         `json:"description,omitempty"`
	Language    string         `json:"language,omitempty"`
	Exec        string         `json:"exec,omitempty"`
	Commands    []Registration `json:"commands"`
	Tools       []Registration `json:"tools"`
	Warnings    []string       `json:"warnings"`
	Error       string         `json:"error"` // "" unless Status is StatusError
	Log         string         `json:"log"`   // the stderr log; "" before a name is known
	Skills      []string       `json:"skills,omitempty"`
	Theme       string         `json:"theme,omitempty"`
	ShadowedBy  string         `json:"shadowed_by,omitempty"` // the directory that won the name
	// Capabilities are the additive capabilities (beyond v2) the
	// extension asked for in its hello.
	Capabilities []string `json:"capabilities,omitempty"`
}

// Registration is one command or tool an extension registered and
// whether it holds the name.
type Registration struct {
	Name  string `json:"name"`
	State string `json:"state"` // StateActive or StateShadowed
}

// Diagnostics returns one Report per discovered extension of the last
// load, in load order. An extension that stopped since shows StatusError
// with the reason.
func (h *Host) Diagnostics() []Report {
	h.mu.Lock()
	records := h.records
	h.mu.Unlock()
	out := make([]Report, 0, len(records))
	for _, rec := range records {
		out = append(out, rec.report(h.cfg.Home))
	}
	return out
}

func (rec *record) report(home string) Report {
	en := rec.entry
	r := Report{
		Name: en.Name(), Dir: en.Dir, Scope: en.Scope, Status: en.Status(),
		Commands: []Registration{}, Tools: []Registration{}, Warnings: []string{},
	}
	if en.Err != nil {
		r.Error = en.Err.Error()
		return r
	}
	m := en.Manifest
	r.Version, r.Description, r.Language, r.Exec = m.Version, m.Description, m.Language, m.Exec
	r.Log = LogPath(home, m.Name)
	r.Warnings = append(r.Warnings, m.Warnings...)
	r.ShadowedBy = en.ShadowedBy
	switch r.Status {
	case StatusThemeOnly:
		r.Theme, r.Skills = m.Theme, m.SkillDirs
		r.Log = ""
		return r
	case StatusEnabled:
	default:
		return r
	}
	if rec.err != nil {
		r.Status, r.Error = StatusError, rec.err.Error()
		return r
	}
	e := rec.e
	r.Skills, r.Theme = m.SkillDirs, m.Theme
	e.mu.Lock()
	defer e.mu.Unlock()
	r.Status = e.status
	if e.dying {
		r.Status = StatusError
		r.Error = (&StoppedError{Extension: e.name, Log: e.log, Err: e.deathErr}).Error()
	}
	for _, c := range e.commands {
		r.Commands = append(r.Commands, Registration{Name: c.name, State: orActive(c.state)})
	}
	for _, t := range e.tools {
		r.Tools = append(r.Tools, Registration{Name: t.def.Name, State: orActive(t.state)})
	}
	r.Warnings = append(r.Warnings, e.warnings...)
	r.Capabilities = e.capabilities()
	return r
}

func orActive(s string) string {
	if s == "" {
		return StateActive
	}
	return s
}

// Skills returns the bundled skill directories (absolute, inside their
// extensions, C23) of the loaded and theme-only extensions, in load order.
func (h *Host) Skills() []string {
	var out []string
	for _, r := range h.Diagnostics() {
		switch r.Status {
		case StatusOK, StatusAutoReady, StatusReadyTimeout, StatusThemeOnly:
			out = append(out, r.Skills...)
		}
	}
	return out
}

// Theme is a theme file shipped by an extension.
type Theme struct {
	Extension string
	Path      string
}

// Themes returns the theme files of the extensions that are loaded or
// theme-only, in load order.
func (h *Host) Themes() []Theme {
	var out []Theme
	for _, r := range h.Diagnostics() {
		switch r.Status {
		case StatusOK, StatusAutoReady, StatusReadyTimeout, StatusThemeOnly:
			if r.Theme != "" {
				out = append(out, Theme{Extension: r.Name, Path: r.Theme})
			}
		}
	}
	return out
}

// Doctor runs discovery and a full load of every extension, concurrently,
// then stops them and returns their reports. With the default timeouts it
// returns in well under 10 s even when extensions hang: hello is bounded
// by 5 s, registration by 3 s after it, and the stop by one second.
func Doctor(ctx context.Context, cfg Config) ([]Report, error) {
	cfg.Callbacks = Callbacks{}
	h, err := Start(ctx, cfg)
	if err != nil {
		return nil, err
	}
	reports := h.Diagnostics()
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
	defer cancel()
	return reports, h.Close(cctx)
}
