package extcmd

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"github.com/zut-go/zut/agent/app"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/zut-go/zut/host"
)

// update is the root package's golden-file flag: go test . -update.
var update = flag.Bool("update", false, "rewrite golden files")

// extWait bounds waits for something that must happen in these tests; it
// guards against hangs and is not a timing assertion.
const extWait = 60 * time.Second

// extCLI runs zut ext commands in-process against its own $ZUT_HOME and
// environment.
type extCLI struct {
	t    *testing.T
	home string
	vars map[string]string
	// subst maps paths to the placeholders golden files show instead.
	subst [][2]string
	// repo is the package directory, the working directory before the
	// test moved to its own.
	repo string
}

// newExtCLI gives the test a fresh $ZUT_HOME and a fresh working
// directory (for project-local extensions).
func newExtCLI(t *testing.T) *extCLI {
	t.Helper()
	repo, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	home := realPath(t, t.TempDir())
	cwd := realPath(t, t.TempDir())
	t.Chdir(cwd)
	c := &extCLI{t: t, home: home, repo: repo, vars: map[string]string{"ZUT_HOME": home, "HOME": home}}
	c.subst = [][2]string{{home, "$ZUT_HOME"}, {cwd, "$CWD"}}
	return c
}

func realPath(t *testing.T, p string) string {
	t.Helper()
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// run runs "zut ext args..." and returns its output and exit status.
func (c *extCLI) run(stdin io.Reader, args ...string) (stdout, stderr string, status int) {
	c.t.Helper()
	return c.runCtx(context.Background(), stdin, args...)
}

func (c *extCLI) runCtx(ctx context.Context, stdin io.Reader, args ...string) (stdout, stderr string, status int) {
	c.t.Helper()
	if stdin == nil {
		stdin = strings.NewReader("")
	}
	var out, errb bytes.Buffer
	e := &Env{Stdin: stdin, Stdout: &out, Stderr: &errb, Getenv: func(k string) string { return c.vars[k] }, Home: c.vars["ZUT_HOME"], Version: app.Version}
	err := Run(ctx, e, args)
	status = app.ExitCode(err, &errb)
	return out.String(), errb.String(), status
}

// mustRun runs a command that must succeed.
func (c *extCLI) mustRun(args ...string) string {
	c.t.Helper()
	out, errOut, status := c.run(nil, args...)
	if status != 0 {
		c.t.Fatalf("zut ext %s: status %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), status, out, errOut)
	}
	return out
}

// normalize replaces the test's temporary paths by placeholders.
func (c *extCLI) normalize(s string) string {
	subst := append([][2]string(nil), c.subst...)
	sort.Slice(subst, func(i, j int) bool { return len(subst[i][0]) > len(subst[j][0]) })
	for _, p := range subst {
		s = strings.ReplaceAll(s, p[0], p[1])
	}
	return s
}

// golden compares got, normalised, with testdata/name.golden.
func (c *extCLI) golden(name, got string) {
	c.t.Helper()
	checkExtGolden(c.t, filepath.Join(c.repo, "testdata", name+".golden"), c.normalize(got))
}

// checkExtGolden compares got with the golden file path, or rewrites it
// with -update.
func checkExtGolden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden file: %v (run go test . -run %s -update to create it)", err, t.Name())
	}
	if got != string(want) {
		t.Errorf("output differs from %s:\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

// scriptExt describes a POSIX shell extension written by writeScriptExt.
type scriptExt struct {
	name     string
	version  string
	commands []string
	tools    []string
	noReady  bool
	exit     int    // exit at once with this status (no hello) when > 0
	hang     bool   // never say hello
	manifest string // the whole extension.json, instead of the generated one
	extra    string // members added to the generated manifest, as `"k":v,`
}

// writeScriptExt writes the extension s into parent/dir and returns the
// directory.
func writeScriptExt(t *testing.T, parent, dir string, s scriptExt) string {
	t.Helper()
	d := filepath.Join(parent, dir)
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("#!/bin/sh\n")
	emit := func(frame string) { fmt.Fprintf(&b, "printf '%%s\\n' '%s'\n", frame) }
	switch {
	case s.exit > 0:
		fmt.Fprintf(&b, "echo 'starting and failing' >&2\nexit %d\n", s.exit)
	case s.hang:
		b.WriteString("exec sleep 60\n")
	default:
		emit(fmt.Sprintf(`{"type":"hello","protocol_version":2,"name":"%s","version":"%s"}`, s.name, s.version))
		b.WriteString("read -r ack\n")
		for _, c := range s.commands {
			emit(fmt.Sprintf(`{"type":"register_command","name":"%s","description":"the %s command"}`, c, c))
		}
		for _, tl := range s.tools {
			emit(fmt.Sprintf(`{"type":"register_tool","name":"%s","description":"the %s tool","schema":{"type":"object"}}`, tl, tl))
		}
		if !s.noReady {
			emit(`{"type":"ready"}`)
		}
		b.WriteString("while read -r line; do\n\tcase $line in *'\"shutdown\"'*)\n")
		emit(`{"type":"shutdown_ack"}`)
		b.WriteString("\t\texit 0;;\n\tesac\ndone\n")
	}
	if err := os.WriteFile(filepath.Join(d, "run.sh"), []byte(b.String()), 0o755); err != nil {
		t.Fatal(err)
	}
	m := s.manifest
	if m == "" {
		m = fmt.Sprintf(`{"name":%q,"version":%q,"exec":"./run.sh",%s"language":"sh","description":"the %s extension"}`,
			s.name, s.version, s.extra, s.name)
	}
	if err := os.WriteFile(filepath.Join(d, "extension.json"), []byte(m+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return d
}

// doctorFixture fills $ZUT_HOME, the project directory and one -e
// directory with extensions in every state, and returns the -e directory.
func doctorFixture(t *testing.T, c *extCLI) string {
	t.Helper()
	global := filepath.Join(c.home, "extensions")
	project := filepath.Join(".zut", "extensions")
	extra := realPath(t, t.TempDir())
	c.subst = append(c.subst, [2]string{extra, "$EXTRA"})

	writeScriptExt(t, global, "alpha", scriptExt{name: "alpha", version: "1.0.0", commands: []string{"hi"}, tools: []string{"alpha_tool"}})
	writeScriptExt(t, global, "bravo", scriptExt{name: "bravo", version: "0.2.0", commands: []string{"HI", "bravo"}, tools: []string{"read"}, noReady: true})
	writeScriptExt(t, global, "broken", scriptExt{manifest: `{"name": "broken", "exec": ./run.sh}`})
	writeScriptExt(t, global, "crash", scriptExt{name: "crash", version: "1.0.0", exit: 3})
	writeScriptExt(t, global, "off", scriptExt{name: "off", version: "1.0.0", extra: `"enabled":false,`})
	writeScriptExt(t, global, "charlie", scriptExt{name: "charlie", version: "1.0.0"})
	painted := filepath.Join(global, "painted")
	os.MkdirAll(painted, 0o755)
	os.WriteFile(filepath.Join(painted, "extension.json"), []byte(`{"name":"painted","version":"1.0.0","description":"a theme"}`), 0o644)
	os.WriteFile(filepath.Join(painted, "theme.json"), []byte(`{}`), 0o644)

	writeScriptExt(t, project, "proj", scriptExt{name: "proj", version: "3.0.0", commands: []string{"p"}, extra: `"skills":["skills"],`})

	return writeScriptExt(t, extra, "charlie", scriptExt{name: "charlie", version: "2.0.0-dev", commands: []string{"c"}})
}

func TestExtListAndDoctor(t *testing.T) {
	c := newExtCLI(t)
	extra := doctorFixture(t, c)
	tests := []struct {
		name       string
		args       []string
		wantStatus int
	}{
		{"list", []string{"list"}, 0},
		{"list-json", []string{"list", "--json"}, 0},
		{"doctor", []string{"doctor", "-e", extra}, 1},
		{"doctor-json", []string{"doctor", "--json", "--ext", extra}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, status := c.run(nil, tc.args...)
			if status != tc.wantStatus {
				t.Errorf("zut ext %s: status %d, want %d; stderr:\n%s", strings.Join(tc.args, " "), status, tc.wantStatus, errOut)
			}
			c.golden(tc.name, out)
			if strings.HasSuffix(tc.name, "json") {
				var v []map[string]any
				if err := json.Unmarshal([]byte(out), &v); err != nil {
					t.Fatalf("zut ext %s: not JSON: %v", strings.Join(tc.args, " "), err)
				}
				for _, r := range v {
					keys := make([]string, 0, len(r))
					for k := range r {
						keys = append(keys, k)
					}
					sort.Strings(keys)
					if got := strings.Join(keys, " "); got != "commands dir error log name scope status tools warnings" {
						t.Errorf("%s: members %s, want exactly the doctor shape", r["name"], got)
					}
				}
			}
		})
	}
}

func TestExtListEmpty(t *testing.T) {
	c := newExtCLI(t)
	out := c.mustRun("list")
	c.golden("list-empty", out)
	out = c.mustRun("list", "--json")
	if out != "[]\n" {
		t.Errorf("zut ext list --json with nothing installed = %q, want []", out)
	}
	out = c.mustRun("doctor")
	if !strings.HasPrefix(c.normalize(out), "no extensions found: none in $CWD/.zut/extensions or $ZUT_HOME/extensions") {
		t.Errorf("zut ext doctor with nothing installed = %q", out)
	}
}

// TestExtDoctorHang checks that an extension that never says hello is
// reported with the hello deadline (C1) and does not stop doctor.
func TestExtDoctorHang(t *testing.T) {
	c := newExtCLI(t)
	writeScriptExt(t, filepath.Join(c.home, "extensions"), "sleepy", scriptExt{name: "sleepy", hang: true})
	writeScriptExt(t, filepath.Join(c.home, "extensions"), "awake", scriptExt{name: "awake", commands: []string{"a"}})
	start := time.Now()
	out, _, status := c.run(nil, "doctor")
	t.Logf("doctor with a hanging extension took %v", time.Since(start).Round(time.Millisecond))
	if status != 1 {
		t.Errorf("zut ext doctor with a hanging extension: status %d, want 1", status)
	}
	for _, want := range []string{
		"awake   ok      global  $ZUT_HOME/extensions/awake",
		"sleepy  error   global  $ZUT_HOME/extensions/sleepy",
		`  error     load extension "sleepy": sent no hello within 5s (C1)`,
		"              dir: $ZUT_HOME/extensions/sleepy",
		"2 extensions: 1 ok, 1 error",
	} {
		if !strings.Contains(c.normalize(out), want) {
			t.Errorf("zut ext doctor output lacks %q:\n%s", want, c.normalize(out))
		}
	}
}

func TestExtDoctorColor(t *testing.T) {
	reports := []host.Report{
		{Name: "good", Status: host.StatusOK, Scope: host.ScopeGlobal, Dir: "/x/good",
			Commands: []host.Registration{{Name: "g", State: host.StateActive}}, Log: "/l/ext-good.log"},
		{Name: "quiet", Status: host.StatusAutoReady, Scope: host.ScopeExt, Dir: "/x/quiet"},
		{Name: "slow", Status: host.StatusReadyTimeout, Scope: host.ScopeGlobal, Dir: "/x/slow", Warnings: []string{"still registering"}},
		{Name: "bad", Status: host.StatusError, Scope: host.ScopeProject, Dir: "/x/bad", Error: "load extension \"bad\": boom\n  dir: /x/bad"},
		{Name: "off", Status: host.StatusDisabled, Scope: host.ScopeGlobal, Dir: "/x/off"},
		{Name: "twin", Status: host.StatusShadowed, Scope: host.ScopeGlobal, Dir: "/x/twin", ShadowedBy: "/y/twin"},
		{Name: "paint", Status: host.StatusThemeOnly, Scope: host.ScopeGlobal, Dir: "/x/paint", Theme: "/x/paint/theme.json"},
	}
	for _, color := range []bool{false, true} {
		t.Run(fmt.Sprint("color=", color), func(t *testing.T) {
			var b bytes.Buffer
			if err := writeDoctor(&b, reports, color); err != nil {
				t.Fatal(err)
			}
			name := "doctor-plain"
			if color {
				name = "doctor-color"
			}
			checkExtGolden(t, filepath.Join("testdata", name+".golden"), b.String())
			if got := strings.Contains(b.String(), "\x1b["); got != color {
				t.Errorf("writeDoctor(color=%v) has escape codes: %v", color, got)
			}
		})
	}
}

func TestExtUseColor(t *testing.T) {
	devNull, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer devNull.Close()
	tests := []struct {
		name string
		vars map[string]string
		w    io.Writer
	}{
		{"a buffer", nil, &bytes.Buffer{}},
		{"a file that is not a terminal", nil, devNull},
		{"NO_COLOR", map[string]string{"NO_COLOR": "1"}, devNull},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := &Env{Getenv: func(k string) string { return tc.vars[k] }}
			if useColor(e, tc.w) {
				t.Errorf("useColor(%s) = true, want false", tc.name)
			}
		})
	}
}

func TestExtUsage(t *testing.T) {
	c := newExtCLI(t)
	tests := []struct {
		args       []string
		wantStatus int
		wantErr    string
	}{
		{nil, 2, "zut ext — manage extensions"},
		{[]string{"frobnicate"}, 2, `unknown zut ext verb "frobnicate"`},
		{[]string{"list", "extra"}, 2, "takes no operands"},
		{[]string{"list", "--bogus"}, 2, "zut ext list: unknown flag --bogus; zut help ext"},
		{[]string{"install"}, 2, "needs one <path|git-url>"},
		{[]string{"install", "--build=rust", "x"}, 2, "unknown --build=rust"},
		{[]string{"install", "--build=go", "https://example.com/x.git"}, 2, "works on a local directory only"},
		{[]string{"remove"}, 2, "needs one extension name"},
		{[]string{"remove", "--yes", "../etc"}, 2, `"../etc" is not an extension name`},
		{[]string{"enable", "a", "b"}, 2, "needs one extension name, got 2"},
		{[]string{"logs", "-f"}, 2, "needs one extension name"},
		{[]string{"doctor", "dir"}, 2, "load a directory with -e DIR"},
		{[]string{"help"}, 0, ""},
		{[]string{"list", "-h"}, 0, "usage: zut ext list [--json] [--trust]"},
		{[]string{"lsit"}, 2, `unknown zut ext verb "lsit" (did you mean zut ext list?)`},
		{[]string{"list", "--jsn"}, 2, "unknown flag --jsn (did you mean --json?)"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			_, errOut, status := c.run(nil, tc.args...)
			if status != tc.wantStatus || !strings.Contains(errOut, tc.wantErr) {
				t.Errorf("zut ext %s: status %d, stderr %q; want status %d and %q", strings.Join(tc.args, " "), status, errOut, tc.wantStatus, tc.wantErr)
			}
		})
	}
}

// buildGoExample copies the example examples/name, without its Go files,
// into parent and builds the example's binary there.
func buildGoExample(t *testing.T, examples, parent, name string) string {
	t.Helper()
	src := filepath.Join(examples, name)
	dst := filepath.Join(parent, name)
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		target := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(target, 0o755)
		case strings.HasSuffix(path, ".go") || rel == name:
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(goCommand(), "build", "-o", filepath.Join(dst, name), ".")
	cmd.Dir = src
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", name, err, out)
	}
	return dst
}

func goCommand() string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	return filepath.Join(runtime.GOROOT(), "bin", "go")
}

// TestExtDoctorExamples runs zut ext doctor on every example, each given
// with -e: the Go ones built into a temporary directory, the scripts from
// the source tree. Every example must be ok.
func TestExtDoctorExamples(t *testing.T) {
	for _, tool := range []string{"node", "python3", "jq"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed; the script examples need it", tool)
		}
	}
	src, err := filepath.Abs(filepath.Join("..", "..", "examples", "extensions"))
	if err != nil {
		t.Fatal(err)
	}
	src = realPath(t, src)
	c := newExtCLI(t) // changes the working directory
	build := realPath(t, t.TempDir())
	c.subst = append(c.subst, [2]string{build, "$BUILD"}, [2]string{src, "$EXAMPLES"})

	names := []string{"clock", "guard", "hello", "hello-py", "phases", "shout", "todo", "weather"}
	var args []string
	dirs := make([]string, len(names))
	for i, name := range names {
		switch name {
		case "clock", "hello-py", "shout":
			dirs[i] = filepath.Join(src, name)
		default:
			dirs[i] = buildGoExample(t, src, build, name)
		}
	}
	for _, d := range dirs {
		args = append(args, "-e", d)
	}
	out, errOut, status := c.run(nil, append([]string{"doctor"}, args...)...)
	if status != 0 {
		t.Errorf("zut ext doctor on the examples: status %d; stderr:\n%s", status, errOut)
	}
	c.golden("doctor-examples", out)

	out, _, _ = c.run(nil, append([]string{"doctor", "--json"}, args...)...)
	var reports []struct{ Name, Status string }
	if err := json.Unmarshal([]byte(out), &reports); err != nil {
		t.Fatal(err)
	}
	if len(reports) != len(names) {
		t.Fatalf("doctor reported %d extensions, want %d", len(reports), len(names))
	}
	for _, r := range reports {
		if r.Status != host.StatusOK {
			t.Errorf("example %s: status %s, want %s", r.Name, r.Status, host.StatusOK)
		}
	}
}
