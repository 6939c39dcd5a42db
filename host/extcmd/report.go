package extcmd

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/zut-go/zut/host"
	"github.com/zut-go/zut/host/exttest"
)

// runExtList prints the installed extensions as discovery finds them,
// without starting any.
func runExtList(e *Env, args []string) error {
	fs := extFlags(e, "list", "[--json] [--trust]")
	asJSON := fs.Bool("json", false, "print JSON (the doctor shape) instead of a table")
	trust := fs.Bool("trust", false, "treat this folder as trusted, this once (for CI)")
	operands, err := parseVerb(fs, args)
	if err != nil {
		return verbDone(err)
	}
	if len(operands) > 0 {
		return usagef("zut ext list takes no operands, got %q", operands)
	}
	var reports []host.Report
	entries := host.Discover(e.Home, workDir(), nil)
	host.ApplyTrust(entries, func(p []host.Entry) bool {
		ok, _ := host.ProjectTrusted(e.Home, workDir(), p)
		return ok || *trust
	})
	for _, en := range entries {
		reports = append(reports, entryReport(e, en))
	}
	if *asJSON {
		return writeReportsJSON(e.Stdout, reports)
	}
	if len(reports) == 0 {
		_, err := fmt.Fprintf(e.Stdout, "no extensions installed (searched %s and %s)\ninstall one with: zut ext install <path|git-url>\n",
			filepath.Join(workDir(), ".zut", "extensions"), extensionsDir(e))
		return err
	}
	return writeList(e.Stdout, reports, useColor(e, e.Stdout))
}

// entryReport describes a discovered extension that was not started.
func entryReport(e *Env, en host.Entry) host.Report {
	r := host.Report{
		Name: en.Name(), Dir: en.Dir, Scope: en.Scope, Status: en.Status(), ShadowedBy: en.ShadowedBy,
		Commands: []host.Registration{}, Tools: []host.Registration{}, Warnings: []string{},
	}
	if en.Err != nil {
		r.Error = en.Err.Error()
		return r
	}
	m := en.Manifest
	r.Version, r.Description, r.Language, r.Exec = m.Version, m.Description, m.Language, m.Exec
	r.Warnings = append(r.Warnings, m.Warnings...)
	if !m.ThemeOnly() {
		r.Log = host.LogPath(e.Home, m.Name)
	}
	return r
}

// runExtDoctor loads every extension, concurrently, through the host and
// reports what happened. It fails (exit status 1) when an extension has
// an error.
func runExtDoctor(ctx context.Context, e *Env, args []string) error {
	fs := extFlags(e, "doctor", "[--json] [--trust] [-e DIR]...")
	asJSON := fs.Bool("json", false, "print JSON instead of text")
	trust := fs.Bool("trust", false, "load this folder's extensions as trusted, this once (for CI)")
	var dirs []string
	fs.Func("e", "also load the extension in `DIR`, first (repeatable)", func(v string) error { dirs = append(dirs, v); return nil })
	fs.Func("ext", "same as -e", func(v string) error { dirs = append(dirs, v); return nil })
	operands, err := parseVerb(fs, args)
	if err != nil {
		return verbDone(err)
	}
	if len(operands) > 0 {
		return usagef("zut ext doctor takes no operands, got %q; load a directory with -e DIR", operands)
	}
	reports, err := host.Doctor(ctx, host.Config{
		Home: e.Home, CWD: workDir(), ExtDirs: dirs, ZutVersion: e.Version,
		// The built-in tools of a plain zut run shadow extension tools of
		// their names, as they do in zut.
		Builtins: exttest.DefaultBuiltinTools,
		// doctor runs no code of a folder the user has not trusted.
		TrustProject: func(p []host.Entry) bool {
			ok, _ := host.ProjectTrusted(e.Home, workDir(), p)
			return ok || *trust
		},
	})
	if err != nil {
		return fmt.Errorf("doctor: %w", err)
	}
	if *asJSON {
		err = writeReportsJSON(e.Stdout, reports)
	} else if len(reports) == 0 {
		_, err = fmt.Fprintf(e.Stdout, "no extensions found: none in %s or %s, and no -e DIR given\n",
			filepath.Join(workDir(), ".zut", "extensions"), extensionsDir(e))
	} else {
		err = writeDoctor(e.Stdout, reports, useColor(e, e.Stdout))
	}
	if err != nil {
		return err
	}
	for _, r := range reports {
		if r.Status == host.StatusError {
			return errSilent
		}
	}
	return nil
}

// jsonReport is one extension in the JSON output of list and doctor.
type jsonReport struct {
	Name     string              `json:"name"`
	Dir      string              `json:"dir"`
	Scope    string              `json:"scope"`
	Status   string              `json:"status"`
	Commands []host.Registration `json:"commands"`
	Tools    []host.Registration `json:"tools"`
	Warnings []string            `json:"warnings"`
	Error    string              `json:"error"`
	Log      string              `json:"log"`
}

func writeReportsJSON(w io.Writer, reports []host.Report) error {
	out := make([]jsonReport, 0, len(reports))
	for _, r := range reports {
		jr := jsonReport{
			Name: r.Name, Dir: r.Dir, Scope: r.Scope, Status: r.Status,
			Commands: r.Commands, Tools: r.Tools, Warnings: r.Warnings, Error: r.Error, Log: r.Log,
		}
		if jr.Commands == nil {
			jr.Commands = []host.Registration{}
		}
		if jr.Tools == nil {
			jr.Tools = []host.Registration{}
		}
		if jr.Warnings == nil {
			jr.Warnings = []string{}
		}
		out = append(out, jr)
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// writeList prints one row per extension (name, version, scope, status,
// description) and, under a row, what keeps it from loading.
func writeList(w io.Writer, reports []host.Report, color bool) error {
	t := &table{color: color}
	t.row("NAME", "VERSION", "SCOPE", "STATUS", "DESCRIPTION")
	for _, r := range reports {
		t.row(r.Name, orDash(r.Version), r.Scope, r.Status, r.Description)
		if r.ShadowedBy != "" {
			t.detail("shadowed", "by "+r.ShadowedBy)
		}
		if r.Error != "" {
			t.detail("error", r.Error)
		}
		for _, warn := range r.Warnings {
			t.detail("warning", warn)
		}
	}
	return t.write(w, 3)
}

// writeDoctor prints one row per extension (name, status, scope,
// directory) with what was registered, warnings, errors (multi-line ones
// kept intact) and the log path under it, then a summary line.
func writeDoctor(w io.Writer, reports []host.Report, color bool) error {
	t := &table{color: color}
	counts := map[string]int{}
	t.row("NAME", "STATUS", "SCOPE", "DIR")
	for _, r := range reports {
		counts[r.Status]++
		t.row(r.Name, r.Status, r.Scope, r.Dir)
		if s := registrationList(r.Commands); s != "" {
			t.detail("commands", s)
		}
		if s := registrationList(r.Tools); s != "" {
			t.detail("tools", s)
		}
		if len(r.Skills) > 0 {
			t.detail("skills", strings.Join(r.Skills, ", "))
		}
		if r.Theme != "" {
			t.detail("theme", r.Theme)
		}
		if r.Status == host.StatusAutoReady {
			t.detail("note", "sent no ready frame; counted as ready after 250 ms of quiet")
		}
		if r.ShadowedBy != "" {
			t.detail("shadowed", "by "+r.ShadowedBy)
		}
		for _, warn := range r.Warnings {
			t.detail("warning", warn)
		}
		if r.Error != "" {
			t.detail("error", r.Error)
		}
		if r.Log != "" && r.Status != host.StatusShadowed { // a shadowed one never ran: the log is the winner's
			t.detail("log", r.Log)
		}
	}
	if err := t.write(w, 1); err != nil {
		return err
	}
	var parts []string
	for _, s := range []string{host.StatusOK, host.StatusAutoReady, host.StatusReadyTimeout, host.StatusThemeOnly,
		host.StatusDisabled, host.StatusShadowed, host.StatusError} {
		if n := counts[s]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, paint(color, s, s)))
		}
	}
	noun := "extensions"
	if len(reports) == 1 {
		noun = "extension"
	}
	_, err := fmt.Fprintf(w, "\n%d %s: %s\n", len(reports), noun, strings.Join(parts, ", "))
	return err
}

// registrationList is "a, b (shadowed)".
func registrationList(regs []host.Registration) string {
	var names []string
	for _, r := range regs {
		if r.State != host.StateActive {
			names = append(names, r.Name+" ("+r.State+")")
		} else {
			names = append(names, r.Name)
		}
	}
	return strings.Join(names, ", ")
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// table lays out rows in aligned columns, each row optionally followed
// by indented "label  text" detail lines. A multi-line text keeps its
// lines, each indented under the first.
type table struct {
	color bool
	lines []tableLine
}

type tableLine struct {
	cells  []string // a row
	label  string   // a detail
	detail string
}

func (t *table) row(cells ...string) { t.lines = append(t.lines, tableLine{cells: cells}) }

func (t *table) detail(label, text string) {
	t.lines = append(t.lines, tableLine{label: label, detail: text})
}

// write prints the table; statusCol is the column coloured by status.
func (t *table) write(w io.Writer, statusCol int) error {
	var widths []int
	for _, l := range t.lines {
		for i, c := range l.cells {
			if i >= len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], len([]rune(c)))
		}
	}
	const labelWidth = 10
	var b strings.Builder
	header := true
	for _, l := range t.lines {
		if l.cells == nil {
			indent := "  " + strings.Repeat(" ", labelWidth)
			first, rest, _ := strings.Cut(l.detail, "\n")
			fmt.Fprintf(&b, "  %-*s%s\n", labelWidth, l.label, first)
			for line := range strings.Lines(rest) {
				b.WriteString(strings.TrimRight(indent+strings.TrimRight(line, "\n"), " ") + "\n")
			}
			continue
		}
		var cells []string
		for i, c := range l.cells {
			pad := ""
			if i < len(l.cells)-1 {
				pad = strings.Repeat(" ", widths[i]-len([]rune(c))+2)
			}
			if i == statusCol && !header {
				c = paint(t.color, c, c)
			}
			cells = append(cells, c+pad)
		}
		header = false
		b.WriteString(strings.TrimRight(strings.Join(cells, ""), " ") + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// statusColors are the SGR colours of statuses on a terminal.
func statusColors() map[string]string {
	return statusColorsLazy.get(func() map[string]string {
		return map[string]string{
			host.StatusOK:           "32", // green
			host.StatusEnabled:      "32",
			host.StatusAutoReady:    "36", // cyan: loaded, with a remark
			host.StatusReadyTimeout: "33", // yellow
			host.StatusThemeOnly:    "34", // blue
			host.StatusDisabled:     "2",  // dim
			host.StatusShadowed:     "2",
			host.StatusError:        "31", // red
		}
	})
}

var statusColorsLazy lazy[map[string]string]

// paint colours text by status when color is on.
func paint(color bool, status, text string) string {
	c, ok := statusColors()[status]
	if !color || !ok {
		return text
	}
	return "\x1b[" + c + "m" + text + "\x1b[0m"
}
