package exttest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/zut-go/zut/agent/app"
)

func TestRunUsage(t *testing.T) {
	cases := []struct {
		name string
		args []string
		want string // in the error
	}{
		{"no directory", nil, "takes one extension directory, got 0"},
		{"two directories", []string{"a", "b"}, "got 2 operands"},
		{"unknown phase", []string{"--only", "bogus", "x"}, `unknown phase "bogus"`},
		{"bad args", []string{"--args", "noequals", "x"}, "want CMD=ARGS"},
		{"bad tool args", []string{"--tool-args", "noequals", "x"}, "want TOOL=JSON"},
		{"tool args not an object", []string{"--tool-args", "echo=[1]", "x"}, "the arguments must be a JSON object"},
		{"tool args not JSON", []string{"--tool-args", "echo={text", "x"}, "the arguments must be a JSON object"},
		{"negative hello timeout", []string{"--hello-timeout", "-1s", "x"}, "--hello-timeout -1s: a deadline must be positive"},
		{"bad tool timeout", []string{"--tool-timeout", "soon", "x"}, "invalid value"},
		{"unknown flag", []string{"--verbose", "x"}, "flag provided but not defined"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			err := Run(context.Background(), tc.args, &out, &errOut)
			var ue *UsageError
			if !errors.As(err, &ue) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Run(%q) = %v, want a *UsageError containing %q", tc.args, err, tc.want)
			}
			if out.Len() != 0 {
				t.Errorf("Run(%q) wrote %q to stdout, want nothing", tc.args, out.String())
			}
		})
	}
}

func TestRunHelp(t *testing.T) {
	var out, errOut bytes.Buffer
	if err := Run(context.Background(), []string{"-h"}, &out, &errOut); err != nil {
		t.Errorf("Run(-h) = %v, want nil", err)
	}
	if !strings.Contains(errOut.String(), Synopsis) {
		t.Errorf("Run(-h) usage = %q, want the synopsis", errOut.String())
	}
}

// TestRunJSON checks the documented JSON shape, the exit error of a failed
// check, flags after the directory, --only and --args.
func TestRunJSON(t *testing.T) {
	needPython(t)
	dir := filepath.Join("testdata", "corpus", "calls.command")
	var out, errOut bytes.Buffer
	err := Run(context.Background(), []string{dir, "--json", "--only", "calls", "--args", "ping=twice", "--args", "/ping=again"}, &out, &errOut)
	var fe *FailedError
	if !errors.Is(err, ErrFailed) || !errors.As(err, &fe) || !slices.Equal(fe.Failed, []string{"calls.command"}) {
		t.Fatalf("Run = %v, want a *FailedError for calls.command\n%s", err, out.String())
	}
	var rep struct {
		Extension  string         `json:"extension"`
		Dir        string         `json:"dir"`
		Verdict    string         `json:"verdict"`
		DurationMS float64        `json:"duration_ms"`
		Counts     map[string]int `json:"counts"`
		Failed     []string       `json:"failed"`
		Checks     []struct {
			ID, Phase, Ref, Subject, Status, Message string
			Frames                                   []struct {
				From string  `json:"from"`
				AtMS float64 `json:"at_ms"`
				Text string  `json:"text"`
			}
		} `json:"checks"`
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("decode the JSON report: %v\n%s", err, out.String())
	}
	if rep.Extension != "calls-command" || rep.Verdict != "fail" || rep.DurationMS <= 0 || !slices.Equal(rep.Failed, []string{"calls.command"}) {
		t.Errorf("report = %s %s %v %q, want calls-command fail >0 [calls.command]", rep.Extension, rep.Verdict, rep.DurationMS, rep.Failed)
	}
	var subjects []string
	for _, c := range rep.Checks {
		if c.Phase != "calls" {
			t.Errorf("--only calls reported %s (%s), want only calls checks (and failures)", c.ID, c.Status)
		}
		if c.ID == "calls.command" {
			subjects = append(subjects, c.Subject)
			if c.Status == "fail" && (len(c.Frames) != 2 || c.Frames[0].From != "host" || c.Frames[1].From != "extension") {
				t.Errorf("failed check frames = %+v, want the command_invoked sent and the command_response got", c.Frames)
			}
		}
		if c.Ref == "" || c.Message == "" {
			t.Errorf("check %s has ref %q and message %q, want both", c.ID, c.Ref, c.Message)
		}
	}
	if want := []string{"/ping twice", "/ping again", "/panel"}; !slices.Equal(subjects, want) {
		t.Errorf("calls.command subjects = %q, want %q (one invocation per --args)", subjects, want)
	}
	if rep.Counts["fail"] != 2 || rep.Counts["pass"] == 0 {
		t.Errorf("counts = %v, want 2 failures (two /ping invocations) and some passes", rep.Counts)
	}
}

func TestRunText(t *testing.T) {
	needPython(t)
	var out, errOut bytes.Buffer
	err := Run(context.Background(), []string{filepath.Join("testdata", "corpus", "ok"), "--only", "handshake"}, &out, &errOut)
	if err != nil {
		t.Fatalf("Run(ok) = %v, want nil\n%s", err, out.String())
	}
	text := out.String()
	lines := strings.Split(strings.TrimSpace(text), "\n")
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "PASS ok: 7 checks, 7 passed, 0 warnings, 0 failed, 0 skipped (") {
		t.Errorf("verdict line = %q, want PASS ok: 7 checks, 7 passed, ...", last)
	}
	if strings.Contains(text, "registration.") {
		t.Errorf("--only handshake reported registration checks:\n%s", text)
	}
}

// TestDocsListEveryCheck keeps docs/protocol.md ("Checking an extension")
// and the catalog in step.
func TestDocsListEveryCheck(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "protocol.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "## Checking an extension: zut ext test")
	if !ok {
		t.Fatal(`docs/protocol.md has no section "Checking an extension: zut ext test"`)
	}
	for _, c := range Catalog() {
		row := fmt.Sprintf("| `%s` | %s | %s |", c.ID, c.Ref, c.Title)
		if !strings.Contains(section, row) {
			t.Errorf("docs/protocol.md lacks the row %s", row)
		}
	}
	for _, p := range Phases {
		if !strings.Contains(section, "`"+p+"`") {
			t.Errorf("docs/protocol.md does not name the phase %s", p)
		}
	}
}

// TestDocsStateDecisions keeps the decisions the checks cite inside the
// repository: docs/protocol.md states each of C1 to C23, every check's
// reference names the spec, protocol.md or such a decision, and no Go or
// markdown file of the repository sends the reader to a file outside it
// (the clarifications the decisions come from are not shipped).
func TestDocsStateDecisions(t *testing.T) {
	root := filepath.Join("..", "..")
	b, err := os.ReadFile(filepath.Join(root, "docs", "protocol.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, decisions, ok := strings.Cut(string(b), "## Decisions where the reference is silent (C1–C23)")
	if !ok {
		t.Fatal(`docs/protocol.md has no section "Decisions where the reference is silent (C1–C23)"`)
	}
	for i := 1; i <= 23; i++ {
		if !strings.Contains(decisions, fmt.Sprintf("- **C%d ", i)) {
			t.Errorf("docs/protocol.md does not state C%d in its decisions section", i)
		}
	}
	for _, c := range Catalog() {
		for _, part := range strings.Split(c.Ref, "; ") {
			if !strings.HasPrefix(part, "spec: ") && !strings.HasPrefix(part, "protocol.md: ") && !regexp.MustCompile(`^C\d+(, C\d+)*$`).MatchString(part) {
				t.Errorf("check %s cites %q; cite the spec, protocol.md or a decision C1..C23", c.ID, part)
			}
		}
	}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || !(strings.HasSuffix(path, ".go") || strings.HasSuffix(path, ".md") || strings.HasSuffix(path, ".tmpl")) {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		// The names are built here so that this file does not hold them.
		for _, bad := range []string{"clarifications" + ".md", "shared" + "/spec", "/work/" + "shared"} {
			if bytes.Contains(data, []byte(bad)) {
				t.Errorf("%s mentions %q, a file outside the repository; state what it says in the repository (docs/protocol.md)", path, bad)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestDefaultBuiltinTools keeps DefaultBuiltinTools the built-in tools
// zut offers (app.ToolNames, what --no-tools may name).
func TestDefaultBuiltinTools(t *testing.T) {
	if !slices.Equal(DefaultBuiltinTools, app.ToolNames) {
		t.Errorf("DefaultBuiltinTools = %q, want app.ToolNames %q", DefaultBuiltinTools, app.ToolNames)
	}
}
