package exttest

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// Report is the outcome of Test: every check in catalog order and the
// verdict. Its JSON form is described in docs/protocol.md ("Checking an
// extension").
type Report struct {
	Extension string        // the manifest's name (the directory's when it has none)
	Dir       string        // the extension directory, absolute
	Verdict   Status        // Pass, or Fail when any check failed
	Duration  time.Duration // the whole test
	// Notes say how this run differs from a plain one (--quick deadlines,
	// a Go build), one sentence each.
	Notes  []string
	Checks []Check
}

// Counts returns how many checks have each status.
func (r *Report) Counts() map[Status]int {
	n := map[Status]int{Pass: 0, Warn: 0, Fail: 0, Skip: 0}
	for _, c := range r.Checks {
		n[c.Status]++
	}
	return n
}

// Failed returns the ids of the failed checks, each once, in report
// order.
func (r *Report) Failed() []string { return r.ids(Fail) }

// Warned returns the ids of the checks that warned, each once.
func (r *Report) Warned() []string { return r.ids(Warn) }

func (r *Report) ids(st Status) []string {
	var out []string
	for _, c := range r.Checks {
		if c.Status == st && !slices.Contains(out, c.ID) {
			out = append(out, c.ID)
		}
	}
	return out
}

// finish orders and filters the checks and sets the verdict.
func (r *Report) finish(cs []Check, pl plan, d time.Duration) {
	r.Checks = nil
	for _, c := range ordered(cs) {
		if pl.reports(c.Phase, c.Status) {
			r.Checks = append(r.Checks, c)
		}
	}
	r.Duration = d
	r.Verdict = Pass
	if len(r.Failed()) > 0 {
		r.Verdict = Fail
	}
}

// VerdictLine is the report's last line, for example
// "PASS hello-py: 30 checks, 28 passed, 2 warnings, 0 failed, 9 skipped (0.41s)".
func (r *Report) VerdictLine() string {
	n := r.Counts()
	total := len(r.Checks)
	line := fmt.Sprintf("%s %s: %s, %d passed, %s, %d failed, %d skipped (%s)",
		strings.ToUpper(string(r.Verdict)), r.Extension, plural(total, "check", "checks"),
		n[Pass], plural(n[Warn], "warning", "warnings"), n[Fail], n[Skip], round(r.Duration))
	if f := r.Failed(); len(f) > 0 {
		line += ": " + strings.Join(f, ", ")
	}
	return line
}

func round(d time.Duration) string {
	switch {
	case d >= time.Second:
		return fmt.Sprintf("%.2fs", d.Seconds())
	case d >= 10*time.Millisecond:
		return fmt.Sprintf("%dms", d.Milliseconds())
	case d >= time.Millisecond:
		return fmt.Sprintf("%.1fms", float64(d.Microseconds())/1000)
	}
	return fmt.Sprintf("%dµs", d.Microseconds())
}

// WriteText writes the report for a person: one line per check grouped by
// phase, with the reference, the frames and the stderr of every warning
// and failure, then the verdict line.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "zut ext test %s (%s)\n", r.Extension, r.Dir)
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	width := 0
	for _, c := range r.Checks {
		width = max(width, len(c.ID))
	}
	phase := ""
	for _, c := range r.Checks {
		if c.Phase != phase {
			phase = c.Phase
			fmt.Fprintf(&b, "\n%s\n", phase)
		}
		subject := ""
		if c.Subject != "" {
			subject = c.Subject + ": "
		}
		fmt.Fprintf(&b, "  %-4s  %-*s  %s%s\n", c.Status, width, c.ID, subject, c.Message)
		if c.Status != Warn && c.Status != Fail {
			continue
		}
		indent := strings.Repeat(" ", 8)
		fmt.Fprintf(&b, "%sref: %s\n", indent, c.Ref)
		for _, f := range c.Frames {
			dir := "got: "
			if f.FromHost {
				dir = "sent:"
			}
			fmt.Fprintf(&b, "%s%s %s\n", indent, dir, f.Text)
		}
	}
	fmt.Fprintf(&b, "\n%s\n", r.VerdictLine())
	_, err := io.WriteString(w, b.String())
	return err
}

// jsonReport is the JSON shape of a Report.
type jsonReport struct {
	Extension  string         `json:"extension"`
	Dir        string         `json:"dir"`
	Verdict    Status         `json:"verdict"`
	DurationMS float64        `json:"duration_ms"`
	Counts     map[Status]int `json:"counts"`
	Failed     []string       `json:"failed"`
	Notes      []string       `json:"notes,omitempty"`
	Checks     []jsonCheck    `json:"checks"`
}

type jsonCheck struct {
	ID         string      `json:"id"`
	Phase      string      `json:"phase"`
	Ref        string      `json:"ref"`
	Subject    string      `json:"subject,omitempty"`
	Status     Status      `json:"status"`
	Message    string      `json:"message"`
	DurationMS float64     `json:"duration_ms,omitempty"`
	Frames     []jsonFrame `json:"frames,omitempty"`
}

type jsonFrame struct {
	From string  `json:"from"` // "host" or "extension"
	AtMS float64 `json:"at_ms"`
	Text string  `json:"text"`
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// MarshalJSON encodes the report in the documented shape.
func (r *Report) MarshalJSON() ([]byte, error) {
	j := jsonReport{Extension: r.Extension, Dir: r.Dir, Verdict: r.Verdict, DurationMS: ms(r.Duration),
		Counts: r.Counts(), Failed: r.Failed(), Notes: r.Notes, Checks: []jsonCheck{}}
	if j.Failed == nil {
		j.Failed = []string{}
	}
	for _, c := range r.Checks {
		jc := jsonCheck{ID: c.ID, Phase: c.Phase, Ref: c.Ref, Subject: c.Subject, Status: c.Status,
			Message: c.Message, DurationMS: ms(c.Duration)}
		for _, f := range c.Frames {
			from := "extension"
			if f.FromHost {
				from = "host"
			}
			jc.Frames = append(jc.Frames, jsonFrame{From: from, AtMS: ms(f.At), Text: f.Text})
		}
		j.Checks = append(j.Checks, jc)
	}
	return json.Marshal(j)
}

// WriteJSON writes the report as one indented JSON document.
func (r *Report) WriteJSON(w io.Writer) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}
