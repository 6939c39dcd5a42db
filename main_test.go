package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zut-go/zut/provider/providertest"
)

// The end-to-end scripts in testdata/script/*.txtar run the real zut
// binary. Each file is a txtar archive: the comment section is the script,
// the files are written into a fresh work directory ($WORK) that is also the
// working directory. Script lines:
//
//	# comment
//	env KEY=VALUE            set an environment variable for later commands
//	model [wire] FILE        serve the reply script FILE (providertest format)
//	                         and point zut at it (wire: anthropic, openai,
//	                         openai-responses); each model command starts a
//	                         new server
//	stdin FILE               feed FILE to the next exec
//	stdin-open               give the next exec (or interrupt) a stdin pipe that
//	                         stays open, silent, until it has ended (a harness
//	                         that never closes it)
//	[!] exec PROG ARGS...    run PROG (zut is the binary under test); ! expects failure
//	status N                 the last exec exited with status N
//	[!] stdout|stderr REGEX  the last exec's output (does not) match
//	requests N               the model server got N requests
//	[!] request N REGEX      request N's body (1-based, raw JSON) does (not) match
//	[!] exists PATH          a file exists (glob patterns allowed)
//	[!] grep REGEX PATH      a file (glob allowed, newest match) does (not) match
//	build-ext NAME           build examples/extensions/NAME into $WORK/ext/NAME
//	newest VAR GLOB          set VAR to the newest file matching GLOB
//	field VAR FILE RE KEY    set VAR to the string KEY of the first JSON line
//	                         of FILE (glob: newest) matching RE
//	need PROG                skip the script unless PROG is on the PATH
//	need-sandbox             skip the script unless zut sandbox check says workspace-write
//	                         is available (agent/sandbox's tests check the refusal then)
//	serve DIR                serve DIR's files over HTTP on loopback; $SERVER is its
//	                         URL, also in the files served and in model replies
//	sleep DURATION           wait (for processes that must notice something)
//
// Arguments are split on spaces; single quotes group; $VAR expands.

var zutBinary string

func TestMain(m *testing.M) {
	code := func() int {
		dir, err := os.MkdirTemp("", "zut-bin-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer os.RemoveAll(dir)
		zutBinary = filepath.Join(dir, "zut")
		out, err := exec.Command("go", "build", "-o", zutBinary, ".").CombinedOutput()
		if err != nil {
			fmt.Fprintf(os.Stderr, "build zut for the script tests: %v\n%s", err, out)
			return 1
		}
		return m.Run()
	}()
	os.Exit(code)
}

func TestScripts(t *testing.T) {
	files, err := filepath.Glob("testdata/script/*.txtar")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no scripts in testdata/script")
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".txtar")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			ar := parseTxtar(data)
			s := newScript(t, ar)
			s.run(ar.comment)
		})
	}
}

// txtar is a parsed archive: a comment and named files.
type txtar struct {
	comment string
	files   []txtarFile
}

type txtarFile struct {
	name string
	data []byte
}

var txtarMarker = regexp.MustCompile(`(?m)^-- (.+) --$`)

func parseTxtar(data []byte) txtar {
	locs := txtarMarker.FindAllSubmatchIndex(data, -1)
	if len(locs) == 0 {
		return txtar{comment: string(data)}
	}
	ar := txtar{comment: string(data[:locs[0][0]])}
	for i, l := range locs {
		end := len(data)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		body := data[l[1]:end]
		body = bytes.TrimPrefix(body, []byte("\n"))
		ar.files = append(ar.files, txtarFile{name: string(data[l[2]:l[3]]), data: body})
	}
	return ar
}

// script is the state of one running script.
type script struct {
	t       *testing.T
	work    string
	env     map[string]string
	stdin   []byte
	status  int
	stdout  string
	stderr  string
	servers []*providertest.Server
	line    int

	stdinOpen bool // the next exec gets a silent stdin pipe held open
}

func newScript(t *testing.T, ar txtar) *script {
	work := t.TempDir()
	s := &script{t: t, work: work, env: map[string]string{
		"WORK":     work,
		"HOME":     filepath.Join(work, "home"),
		"ZUT_HOME": filepath.Join(work, "zuthome"),
		"PATH":     os.Getenv("PATH"),
		"TMPDIR":   work,
		"TERM":     "dumb",
		"LANG":     "C.UTF-8",
		"REPO":     mustAbs(t, "."),
	}}
	for _, f := range ar.files {
		p := filepath.Join(work, f.name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		mode := os.FileMode(0o644)
		if bytes.HasPrefix(f.data, []byte("#!")) {
			mode = 0o755
		}
		if err := os.WriteFile(p, f.data, mode); err != nil {
			t.Fatal(err)
		}
	}
	os.MkdirAll(s.env["HOME"], 0o755)
	t.Cleanup(func() {
		for _, srv := range s.servers {
			srv.Close()
		}
	})
	return s
}

func mustAbs(t *testing.T, p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func (s *script) fatalf(format string, args ...any) {
	s.t.Helper()
	s.t.Fatalf("line %d: %s", s.line, fmt.Sprintf(format, args...))
}

func (s *script) run(text string) {
	for i, raw := range strings.Split(text, "\n") {
		s.line = i + 1
		line := strings.TrimSpace(raw)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		neg := false
		if strings.HasPrefix(line, "! ") {
			neg = true
			line = strings.TrimSpace(line[2:])
		}
		args := s.split(line)
		s.command(neg, args[0], args[1:])
	}
}

// split breaks a line into words, honouring single quotes and expanding
// $VAR outside them.
func (s *script) split(line string) []string {
	var words []string
	var cur strings.Builder
	inWord, quoted := false, false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quoted:
			if c == '\'' {
				quoted = false
			} else {
				cur.WriteByte(c)
			}
		case c == '\'':
			quoted, inWord = true, true
		case c == ' ' || c == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '$':
			j := i + 1
			for j < len(line) && (line[j] == '_' || line[j] >= 'A' && line[j] <= 'Z' || line[j] >= 'a' && line[j] <= 'z' || line[j] >= '0' && line[j] <= '9') {
				j++
			}
			cur.WriteString(s.env[line[i+1:j]])
			i = j - 1
			inWord = true
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words
}

func (s *script) path(p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(s.work, p)
}

func (s *script) command(neg bool, name string, args []string) {
	s.t.Helper()
	switch name {
	case "env":
		for _, kv := range args {
			k, v, _ := strings.Cut(kv, "=")
			s.env[k] = v
		}
	case "model":
		s.model(args)
	case "stdin":
		data, err := os.ReadFile(s.path(args[0]))
		if err != nil {
			s.fatalf("stdin: %v", err)
		}
		s.stdin = data
	case "stdin-open":
		s.stdinOpen = true
	case "exec":
		s.exec(neg, args)
	case "interrupt":
		// interrupt PATTERN PROG ARGS...: run PROG, send it SIGINT once
		// a line of its stderr matches PATTERN, and wait for its end;
		// status, stdout and stderr then check it.
		s.interrupt(args[0], args[1:])
	case "status":
		n, _ := strconv.Atoi(args[0])
		if s.status != n {
			s.fatalf("the last exec exited with status %d, want %d\nstderr:\n%s", s.status, n, s.stderr)
		}
	case "stdout", "stderr":
		out := s.stdout
		if name == "stderr" {
			out = s.stderr
		}
		s.match(neg, name, args[0], out)
	case "requests":
		n, _ := strconv.Atoi(args[0])
		if got := len(s.requests()); got != n {
			s.fatalf("model server got %d requests, want %d", got, n)
		}
	case "request":
		n, _ := strconv.Atoi(args[0])
		reqs := s.requests()
		if n < 1 || n > len(reqs) {
			s.fatalf("request %d: the server got %d requests", n, len(reqs))
		}
		s.match(neg, "request "+args[0], args[1], string(reqs[n-1].Raw))
	case "exists":
		matches, _ := filepath.Glob(s.path(args[0]))
		switch {
		case len(matches) == 0 && !neg:
			s.fatalf("%s does not exist", args[0])
		case len(matches) > 0 && neg:
			s.fatalf("%s exists but should not", args[0])
		}
	case "grep":
		p := s.newest(args[1])
		data, err := os.ReadFile(p)
		if err != nil {
			s.fatalf("grep: %v", err)
		}
		s.match(neg, "file "+args[1], args[0], string(data))
	case "newest":
		s.env[args[0]] = s.newest(args[1])
	case "field":
		s.field(args)
	case "build-ext":
		s.buildExt(args[0])
	case "need":
		// need PROG: skip the script when PROG is not on the PATH.
		if _, err := exec.LookPath(args[0]); err != nil {
			s.t.Skipf("%s is not installed (on PATH); this script needs it", args[0])
		}
	case "need-sandbox":
		out, _ := exec.Command(zutBinary, "sandbox", "check").CombinedOutput()
		if !regexp.MustCompile(`(?m)^workspace-write: +available`).Match(out) {
			s.t.Skipf("this machine cannot run the sandbox:\n%s", out)
		}
	case "need-env":
		// need-env VAR: skip the script unless the test's environment sets
		// VAR (a path .ci/run provides); the script gets it as $VAR.
		v := os.Getenv(args[0])
		if v == "" {
			s.t.Skipf("%s is not set; this script needs it (.ci/run sets it)", args[0])
		}
		s.env[args[0]] = v
	case "serve":
		// serve DIR: serve the files of DIR over HTTP on loopback and set
		// $SERVER to its URL (for the web tools, with
		// ZUT_WEB_ALLOW_PRIVATE=1). A request for a directory serves its
		// index.html; query strings are ignored.
		s.serve(s.path(args[0]))
	case "sleep":
		d, err := time.ParseDuration(args[0])
		if err != nil {
			s.fatalf("sleep: %v", err)
		}
		time.Sleep(d)
	default:
		s.fatalf("unknown command %q", name)
	}
}

func (s *script) match(neg bool, what, pattern, text string) {
	s.t.Helper()
	re, err := regexp.Compile("(?m)" + pattern)
	if err != nil {
		s.fatalf("bad pattern %q: %v", pattern, err)
	}
	if re.MatchString(text) == neg {
		if neg {
			s.fatalf("%s matches %q but should not:\n%s", what, pattern, text)
		}
		s.fatalf("%s does not match %q:\n%s", what, pattern, text)
	}
}

func (s *script) model(args []string) {
	wire, file := "anthropic", ""
	switch len(args) {
	case 1:
		file = args[0]
	case 2:
		wire, file = args[0], args[1]
	default:
		s.fatalf("usage: model [wire] FILE")
	}
	data, err := os.ReadFile(s.path(file))
	if err != nil {
		s.fatalf("model: %v", err)
	}
	// The replies may name the file server of serve and the work
	// directory (tools that want absolute paths).
	data = []byte(strings.NewReplacer("$SERVER", s.env["SERVER"], "$WORK", s.work).Replace(string(data)))
	replies, err := providertest.ParseScript(data)
	if err != nil {
		s.fatalf("model: %s: %v", file, err)
	}
	srv := providertest.NewServer(replies...)
	s.servers = append(s.servers, srv)
	for _, k := range []string{"ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "OPENAI_API_KEY", "OPENAI_BASE_URL"} {
		delete(s.env, k)
	}
	switch wire {
	case "anthropic":
		s.env["ANTHROPIC_API_KEY"] = "sk-ant-test"
		s.env["ANTHROPIC_BASE_URL"] = srv.URL
	case "openai", "openai-responses":
		s.env["OPENAI_API_KEY"] = "sk-test"
		s.env["OPENAI_BASE_URL"] = srv.URL + "/v1"
	default:
		s.fatalf("model: unknown wire %q", wire)
	}
	s.env["MODEL_URL"] = srv.URL
}

func (s *script) requests() []providertest.Recorded {
	if len(s.servers) == 0 {
		s.fatalf("no model server: use the model command first")
	}
	return s.servers[len(s.servers)-1].Requests()
}

func (s *script) exec(neg bool, args []string) {
	s.t.Helper()
	prog := args[0]
	if prog == "zut" {
		prog = zutBinary
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, prog, args[1:]...)
	cmd.Dir = s.work
	for k, v := range s.env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Stdin = bytes.NewReader(s.stdin)
	if s.stdinOpen {
		// The write end stays open until the process has ended.
		pr, pw, err := os.Pipe()
		if err != nil {
			s.fatalf("stdin-open: %v", err)
		}
		defer pr.Close()
		defer pw.Close()
		cmd.Stdin = pr
	}
	s.stdin, s.stdinOpen = nil, false
	err := cmd.Run()
	s.stdout, s.stderr = stdout.String(), stderr.String()
	s.status = cmd.ProcessState.ExitCode()
	if ctx.Err() != nil {
		s.fatalf("exec %v: timed out\nstdout:\n%s\nstderr:\n%s", args, s.stdout, s.stderr)
	}
	if (err != nil) != neg {
		s.fatalf("exec %v: err = %v, want failure %v\nstdout:\n%s\nstderr:\n%s", args, err, neg, s.stdout, s.stderr)
	}
}

func (s *script) interrupt(pattern string, args []string) {
	s.t.Helper()
	re, err := regexp.Compile(pattern)
	if err != nil {
		s.fatalf("interrupt: %v", err)
	}
	prog := args[0]
	if prog == "zut" {
		prog = zutBinary
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, prog, args[1:]...)
	cmd.Dir = s.work
	for k, v := range s.env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	if s.stdinOpen {
		ir, iw, err := os.Pipe()
		if err != nil {
			s.fatalf("stdin-open: %v", err)
		}
		defer ir.Close()
		defer iw.Close()
		cmd.Stdin = ir
		s.stdinOpen = false
	}
	pr, err := cmd.StderrPipe()
	if err != nil {
		s.fatalf("interrupt: %v", err)
	}
	if err := cmd.Start(); err != nil {
		s.fatalf("interrupt: %v", err)
	}
	var stderr strings.Builder
	sc := bufio.NewScanner(pr)
	matched := false
	for sc.Scan() {
		stderr.WriteString(sc.Text() + "\n")
		if !matched && re.MatchString(sc.Text()) {
			matched = true
			cmd.Process.Signal(os.Interrupt)
		}
	}
	cmd.Wait()
	s.stdout, s.stderr = stdout.String(), stderr.String()
	s.status = cmd.ProcessState.ExitCode()
	if ctx.Err() != nil {
		s.fatalf("interrupt %v: timed out\nstderr:\n%s", args, s.stderr)
	}
	if !matched {
		s.fatalf("interrupt %v: it ended before its stderr matched %q\nstderr:\n%s", args, pattern, s.stderr)
	}
}

// newest returns the most recently modified file matching the glob.
func (s *script) newest(glob string) string {
	matches, err := filepath.Glob(s.path(glob))
	if err != nil || len(matches) == 0 {
		s.fatalf("no file matches %s", glob)
	}
	sort.Slice(matches, func(i, j int) bool {
		a, _ := os.Stat(matches[i])
		b, _ := os.Stat(matches[j])
		return a.ModTime().After(b.ModTime())
	})
	return matches[0]
}

var buildMu sync.Mutex

// buildExt copies an example extension into $WORK/ext/NAME and builds it
// when it is a Go program.
func (s *script) buildExt(name string) {
	src := filepath.Join(s.env["REPO"], "examples", "extensions", name)
	dst := filepath.Join(s.work, "ext", name)
	os.MkdirAll(filepath.Dir(dst), 0o755)
	if out, err := exec.Command("cp", "-r", src, dst).CombinedOutput(); err != nil {
		s.fatalf("copy %s: %v\n%s", name, err, out)
	}
	if _, err := os.Stat(filepath.Join(src, "main.go")); err != nil {
		return
	}
	buildMu.Lock()
	defer buildMu.Unlock()
	cmd := exec.Command("go", "build", "-o", filepath.Join(dst, name), ".")
	cmd.Dir = src
	if out, err := cmd.CombinedOutput(); err != nil {
		s.fatalf("build %s: %v\n%s", name, err, out)
	}
}

// field sets a variable from a JSON lines file: field VAR FILE REGEX KEY.
func (s *script) field(args []string) {
	if len(args) != 4 {
		s.fatalf("usage: field VAR FILE REGEX KEY")
	}
	data, err := os.ReadFile(s.newest(args[1]))
	if err != nil {
		s.fatalf("field: %v", err)
	}
	re, err := regexp.Compile(args[2])
	if err != nil {
		s.fatalf("field: %v", err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if !re.MatchString(line) {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			s.fatalf("field: %v: %s", err, line)
		}
		v, ok := m[args[3]].(string)
		if !ok {
			s.fatalf("field: no string %q in %s", args[3], line)
		}
		s.env[args[0]] = v
		return
	}
	s.fatalf("field: no line of %s matches %q", args[1], args[2])
}

// BenchmarkVersion is the floor: starting the binary and printing the
// version.
func BenchmarkVersion(b *testing.B) {
	for i := 0; i < b.N; i++ {
		if out, err := exec.Command(zutBinary, "--version").CombinedOutput(); err != nil {
			b.Fatalf("%v: %s", err, out)
		}
	}
}

// BenchmarkPrintMode runs zut -p against a local model server that answers
// at once, with sessions on and extensions discovered (none installed).
// Compare with BenchmarkVersion: the difference is zut's own work for a
// prompt.
func BenchmarkPrintMode(b *testing.B) {
	replies := make([]providertest.Reply, b.N)
	for i := range replies {
		replies[i] = providertest.Reply{Text: "ok"}
	}
	srv := providertest.NewServer(replies...)
	defer srv.Close()
	dir := b.TempDir()
	env := append(os.Environ(), "ZUT_HOME="+filepath.Join(dir, "home"), "HOME="+dir,
		"ANTHROPIC_API_KEY=k", "ANTHROPIC_BASE_URL="+srv.URL)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cmd := exec.Command(zutBinary, "-p", "hi")
		cmd.Env = env
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%v: %s", err, out)
		}
	}
}

// serve serves the files of dir on loopback and sets $SERVER to its URL.
// "$SERVER" in a file is replaced by the URL; a directory serves its
// index.html; a file without an extension that holds a JSON object is
// served as JSON (a search API's answer).
func (s *script) serve(dir string) {
	var url string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := filepath.Join(dir, filepath.FromSlash(path.Clean("/"+r.URL.Path)))
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			p = filepath.Join(p, "index.html")
		}
		b, err := os.ReadFile(p)
		if err != nil {
			http.NotFound(w, r)
			return
		}
		b = []byte(strings.ReplaceAll(string(b), "$SERVER", url))
		ct := mime.TypeByExtension(filepath.Ext(p))
		if ct == "" && len(b) > 0 && b[0] == '{' {
			ct = "application/json"
		}
		if ct != "" {
			w.Header().Set("Content-Type", ct)
		}
		w.Write(b)
	}))
	url = srv.URL
	s.t.Cleanup(srv.Close)
	s.env["SERVER"] = srv.URL
}

// BenchmarkStreamInProcess is the whole program in this process, as
// testdata/bench.sh's stream case runs it: zut -p of one answer streamed
// as 25,000 text deltas, without a session or extensions. Profile it with
// go test -run '^$' -bench StreamInProcess -cpuprofile cpu.out .
func BenchmarkStreamInProcess(b *testing.B) {
	for _, tc := range []struct {
		name   string
		deltas int
		args   []string
	}{
		{"text", 3, []string{"-p", "--no-session", "--no-extensions", "hi"}},
		{"stream25k", 25000, []string{"-p", "--no-session", "--no-extensions", "go"}},
		{"stream25k-session", 25000, []string{"-p", "go"}},
		{"stream25k-json", 25000, []string{"--mode", "json", "--no-session", "--no-extensions", "go"}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			srv := providertest.NewServerFunc(func(providertest.Recorded) providertest.Reply {
				return providertest.Reply{Text: strings.Repeat("x", tc.deltas), Chunks: tc.deltas}
			})
			defer srv.Close()
			dir := b.TempDir()
			b.Setenv("ZUT_HOME", filepath.Join(dir, "home"))
			b.Setenv("HOME", dir)
			b.Setenv("ANTHROPIC_API_KEY", "k")
			b.Setenv("ANTHROPIC_BASE_URL", srv.URL)
			b.Chdir(dir)
			once := func() {
				var out, errs bytes.Buffer
				if err := run(context.Background(), tc.args, strings.NewReader(""), &out, &errs); err != nil {
					b.Fatalf("zut %s: %v: %s", strings.Join(tc.args, " "), err, errs.String())
				}
				if out.Len() < tc.deltas {
					b.Fatalf("zut %s printed %d bytes, want the %d of the answer", strings.Join(tc.args, " "), out.Len(), tc.deltas)
				}
			}
			once() // the server encodes its reply once, before the timing
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				once()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*tc.deltas), "ns/delta")
		})
	}
}
