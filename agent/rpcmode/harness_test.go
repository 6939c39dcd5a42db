package rpcmode

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/zut-go/zut/agent/app"
	"io"
	"os"
	"os/exec"
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

// The RPC transcripts in testdata/*.txtar run zut's RPC mode in
// process, against a scripted model server and real extension processes,
// and compare everything zut writes to stdout, normalised, with the
// archive's "stdout" file (rewritten by go test -run TestRPCTranscripts
// -update). The archive's comment is the script:
//
//	# comment
//	args FLAGS...       zut's flags (after the defaults: --provider fake --model fake-1)
//	env KEY=VALUE       an environment variable for zut
//	limit NAME N        lower a limit: maxline, frames, bytes, queued
//	send JSON           write a command and wait for its response
//	post JSON           write a command without waiting
//	raw TEXT            write TEXT as a line, as is, and wait for the next response
//	wait TYPE [ID]      wait for the next line of that type (a response: with that id)
//	capture VAR ID PATH set $VAR to a member of the response to command ID
//	                    (PATH: data.entries.0.id); ID @TYPE takes the line
//	                    of that type the last wait returned
//	need PROGRAM        skip the test when PROGRAM is not on PATH
//	                    ($REPO in a line is the repository's root)
//	sort                compare the transcript sorted (for events whose order
//	                    against a response is not fixed)
//	close               close stdin and wait for zut to return
//	exit N              zut's exit status (after close; default 0)
//	stderr REGEX        zut's stderr matches (after close)
//
// Files of the archive: model.json is the model's reply script
// (providertest.ParseScript; $WORK in it is the work directory, for tools
// that take absolute paths: the tools run in the package's directory);
// any other file is written into the work
// directory ($WORK), executable when it starts with "#!". $EXT/NAME is a fresh copy of the extension NAME
// (examples/extensions/NAME, or testdata/ext/NAME) with its binary
// built. Lines are normalised: times, session and entry ids, paths and the
// version are replaced by placeholders.

// rpcWait bounds every wait of the harness. It guards against hangs; it
// is not a timing assertion.
const rpcWait = 30 * time.Second

// rpcArchive is a parsed txtar file.
type rpcArchive struct {
	comment string
	files   []rpcFile
}

type rpcFile struct {
	name string
	data []byte
}

var rpcMarker = regexp.MustCompile(`(?m)^-- (.+) --$`)

func parseRPCArchive(data []byte) rpcArchive {
	var a rpcArchive
	locs := rpcMarker.FindAllSubmatchIndex(data, -1)
	if len(locs) == 0 {
		a.comment = string(data)
		return a
	}
	a.comment = string(data[:locs[0][0]])
	for i, loc := range locs {
		end := len(data)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		start := loc[1]
		if start < len(data) && data[start] == '\n' {
			start++
		}
		a.files = append(a.files, rpcFile{name: string(data[loc[2]:loc[3]]), data: data[start:end]})
	}
	return a
}

func (a rpcArchive) file(name string) ([]byte, bool) {
	for _, f := range a.files {
		if f.name == name {
			return f.data, true
		}
	}
	return nil, false
}

func (a rpcArchive) format() []byte {
	var b bytes.Buffer
	b.WriteString(a.comment)
	for _, f := range a.files {
		fmt.Fprintf(&b, "-- %s --\n", f.name)
		b.Write(f.data)
	}
	return b.Bytes()
}

// rpcBuilds builds extension binaries once for a test and its subtests;
// each run gets a fresh copy of the directory (extensions keep data
// there). Safe for concurrent use.
type rpcBuilds struct {
	root  string // a temporary directory of the test
	mu    sync.Mutex
	built map[string]string // name -> directory holding the built extension
}

func newRPCBuilds(t *testing.T) *rpcBuilds {
	return &rpcBuilds{root: t.TempDir(), built: map[string]string{}}
}

// copy returns a fresh copy of extension name, built, under dir.
func (b *rpcBuilds) copy(name, dir string) (string, error) {
	b.mu.Lock()
	src, ok := b.built[name]
	if !ok {
		var err error
		src, err = b.build(name)
		if err != nil {
			b.mu.Unlock()
			return "", err
		}
		b.built[name] = src
	}
	b.mu.Unlock()
	dst := filepath.Join(dir, name)
	return dst, copyRPCTree(src, dst, true)
}

// build copies an example or test extension into the build root,
// building Go ones.
func (b *rpcBuilds) build(name string) (string, error) {
	src := filepath.Join("..", "..", "examples", "extensions", name)
	if _, err := os.Stat(src); err != nil {
		src = filepath.Join("testdata", "ext", name)
	}
	dst := filepath.Join(b.root, name)
	if err := copyRPCTree(src, dst, false); err != nil {
		return "", err
	}
	var m struct{ Exec, Language string }
	data, err := os.ReadFile(filepath.Join(src, "extension.json"))
	if err != nil {
		return "", err
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return "", err
	}
	if m.Language == "go" {
		cmd := exec.Command("go", "build", "-o", filepath.Join(dst, m.Exec), "./"+filepath.ToSlash(src))
		if out, err := cmd.CombinedOutput(); err != nil {
			return "", fmt.Errorf("build extension %s: %v\n%s", name, err, out)
		}
	}
	return dst, nil
}

// copyRPCTree copies the regular files of src into dst, keeping modes and
// leaving Go sources out; with link, executables are hard links (the
// build root's files, never the repository's).
func copyRPCTree(src, dst string, link bool) error {
	return filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if info.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if strings.HasSuffix(p, ".go") {
			return nil
		}
		if link && info.Mode().Perm()&0o111 != 0 && os.Link(p, target) == nil {
			// An executable is linked, never written: a file this process
			// holds open for writing while a parallel test forks cannot be
			// executed ("text file busy", go.dev/issue/22315).
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, info.Mode().Perm())
	})
}

// rpcRun is one run of RPC mode driven by a script.
type rpcRun struct {
	t       *testing.T
	builds  *rpcBuilds
	work    string
	env     map[string]string
	args    []string
	lim     rpcLimits
	model   *providertest.Server
	stdin   *io.PipeWriter
	out     chan string
	lines   []string     // every stdout line, in order
	claimed map[int]bool // lines a wait returned for
	stderr  *syncBuffer
	result  chan error
	err     error
	exited  bool
	vars    map[string]string
	seen    map[string]any // responses by id
	sorted  bool
}

// syncBuffer is a bytes.Buffer safe for concurrent writes.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// newRPCRun prepares a work directory, the model server and the
// environment.
func newRPCRun(t *testing.T, builds *rpcBuilds, replies []providertest.Reply) *rpcRun {
	return newRPCRunIn(t, t.TempDir(), builds, replies)
}

// newRPCRunIn is newRPCRun in the work directory work.
func newRPCRunIn(t *testing.T, work string, builds *rpcBuilds, replies []providertest.Reply) *rpcRun {
	home := filepath.Join(work, "zuthome")
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	r := &rpcRun{t: t, builds: builds, work: work, lim: defaultRPCLimits, stderr: &syncBuffer{},
		vars: map[string]string{}, seen: map[string]any{}, claimed: map[int]bool{}}
	r.lim.Drain = rpcWait
	r.model = providertest.NewServer(replies...)
	t.Cleanup(r.model.Close)
	models := fmt.Sprintf(`{
  "providers": {"fake": {"base_url": %q, "wire": "anthropic", "api_key_env": "FAKE_KEY", "default_model": "fake-1"}},
  "models": [
    {"provider": "fake", "id": "fake-1", "context_window": 200000, "max_output": 8192, "prices": {"input": 1, "output": 5}},
    {"provider": "fake", "id": "fake-2", "context_window": 100000, "max_output": 4096, "prices": {"input": 2, "output": 10}, "reasoning": "effort", "images": true},
    {"provider": "fake", "id": "fake-small", "context_window": 600, "max_output": 200}
  ]
}`, r.model.URL)
	if err := os.WriteFile(filepath.Join(home, "models.json"), []byte(models), 0o644); err != nil {
		t.Fatal(err)
	}
	r.env = map[string]string{
		"ZUT_HOME": home,
		"HOME":     filepath.Join(work, "home"),
		"FAKE_KEY": "test-key",
		"PATH":     os.Getenv("PATH"),
	}
	r.args = []string{"--mode", "rpc", "--provider", "fake", "--model", "fake-1", "--no-context-files"}
	return r
}

// start runs RPC mode on its own goroutine.
func (r *rpcRun) start() {
	t := r.t
	o, err := app.ParseOptions(r.args, r.stderr, nil)
	if err != nil {
		t.Fatalf("app.ParseOptions(%q) = %v", r.args, err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	r.stdin = inW
	r.out = make(chan string, 1024)
	r.result = make(chan error, 1)
	e := &app.Env{Stdin: inR, Stdout: outW, Stderr: r.stderr, Getenv: func(k string) string { return r.env[k] }}
	go func() {
		err := serveRPC(context.Background(), e, o, r.lim)
		outW.Close()
		inR.Close()
		r.result <- err
	}()
	go func() {
		defer close(r.out)
		sc := bufio.NewScanner(outR)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			r.out <- sc.Text()
		}
	}()
	t.Cleanup(func() {
		if !r.exited {
			r.stdin.Close()
			r.finish()
		}
	})
}

// send writes one line to zut's stdin.
func (r *rpcRun) send(line string) {
	if _, err := io.WriteString(r.stdin, line+"\n"); err != nil {
		r.t.Fatalf("write %q to zut: %v", line, err)
	}
}

// line returns line i of stdout, reading more as needed.
func (r *rpcRun) line(i int, what string) string {
	r.t.Helper()
	for i >= len(r.lines) {
		select {
		case l, ok := <-r.out:
			if !ok {
				r.t.Fatalf("stdout ended while waiting for %s; stdout so far:\n%s\nstderr:\n%s", what, strings.Join(r.lines, "\n"), r.stderr)
			}
			r.lines = append(r.lines, l)
		case <-time.After(rpcWait):
			r.t.Fatalf("no %s within %v; stdout so far:\n%s\nstderr:\n%s", what, rpcWait, strings.Join(r.lines, "\n"), r.stderr)
		}
	}
	return r.lines[i]
}

// head is the part of a line the harness looks at.
type rpcHead struct {
	Type string          `json:"type"`
	ID   json.RawMessage `json:"id"`
}

// wait returns once a line of type typ (with id, for a response) that no
// earlier wait claimed has arrived, and claims it. Lines are searched
// from the start, so that a wait does not depend on the order of lines
// that zut may emit in either order.
func (r *rpcRun) wait(typ string, id json.RawMessage) {
	r.t.Helper()
	what := typ
	if id != nil {
		what += " " + string(id)
	}
	for i := 0; ; i++ {
		if r.claimed[i] {
			continue
		}
		l := r.line(i, what)
		var h rpcHead
		if err := json.Unmarshal([]byte(l), &h); err != nil {
			r.t.Fatalf("stdout line is not a JSON object: %q", l)
		}
		if h.Type != typ {
			continue
		}
		if typ == "response" && id != nil && !bytes.Equal(h.ID, id) {
			continue
		}
		r.claimed[i] = true
		var v any
		json.Unmarshal([]byte(l), &v)
		r.seen["@"+typ] = v
		if typ == "response" && h.ID != nil {
			key := string(h.ID)
			var sid string
			if json.Unmarshal(h.ID, &sid) == nil {
				key = sid
			}
			r.seen[key] = v
		}
		return
	}
}

// finish waits for zut to return and for the rest of stdout.
func (r *rpcRun) finish() {
	r.t.Helper()
	for {
		select {
		case l, ok := <-r.out:
			if !ok {
				select {
				case r.err = <-r.result:
				case <-time.After(rpcWait):
					r.t.Fatalf("zut did not return within %v after stdout ended", rpcWait)
				}
				r.exited = true
				return
			}
			r.lines = append(r.lines, l)
		case <-time.After(rpcWait):
			r.t.Fatalf("zut did not finish within %v; stdout so far:\n%s\nstderr:\n%s", rpcWait, strings.Join(r.lines, "\n"), r.stderr)
		}
	}
}

// exitStatus is the status the zut command would exit with; like main,
// it writes the error to stderr.
func (r *rpcRun) exitStatus() int { return app.ExitCode(r.err, r.stderr) }

// script runs the archive's script.
func (r *rpcRun) script(a rpcArchive) {
	t := r.t
	wantExit := 0
	var stderrRes []*regexp.Regexp
	for n, raw := range strings.Split(a.comment, "\n") {
		line := strings.TrimSpace(raw)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		verb, rest, _ := strings.Cut(line, " ")
		rest = r.expand(strings.TrimSpace(rest))
		fail := func(format string, args ...any) {
			t.Helper()
			t.Fatalf("script line %d (%s): %s", n+1, line, fmt.Sprintf(format, args...))
		}
		switch verb {
		case "args":
			r.args = append(r.args, strings.Fields(rest)...)
		case "env":
			k, v, _ := strings.Cut(rest, "=")
			r.env[k] = v
		case "limit":
			name, val, _ := strings.Cut(rest, " ")
			n, err := strconv.Atoi(val)
			if err != nil {
				fail("bad number %q", val)
			}
			switch name {
			case "maxline":
				r.lim.MaxLine = n
			case "frames":
				r.lim.QueueFrames = n
			case "bytes":
				r.lim.QueueBytes = n
			case "queued":
				r.lim.MaxQueued = n
			default:
				fail("unknown limit %q", name)
			}
		case "send", "post":
			if r.stdin == nil {
				r.start()
			}
			var h rpcHead
			if err := json.Unmarshal([]byte(rest), &h); err != nil {
				fail("not a JSON command: %v", err)
			}
			r.send(rest)
			if verb == "send" {
				r.wait("response", h.ID)
			}
		case "raw":
			if r.stdin == nil {
				r.start()
			}
			r.send(rest)
			r.wait("response", nil)
		case "wait":
			typ, id, _ := strings.Cut(rest, " ")
			var raw json.RawMessage
			if id != "" {
				raw = json.RawMessage(id)
			}
			r.wait(typ, raw)
		case "capture":
			f := strings.Fields(rest)
			if len(f) != 3 {
				fail("want: capture VAR ID PATH")
			}
			v, ok := r.seen[f[1]]
			if !ok {
				fail("no response to %s seen", f[1])
			}
			for _, k := range strings.Split(f[2], ".") {
				switch x := v.(type) {
				case map[string]any:
					v = x[k]
				case []any:
					i, err := strconv.Atoi(k)
					if err != nil || i >= len(x) {
						fail("no element %q in %v", k, x)
					}
					v = x[i]
				default:
					fail("cannot take %q of %v", k, v)
				}
			}
			s, ok := v.(string)
			if !ok {
				fail("%s of %s is %v, not a string", f[2], f[1], v)
			}
			r.vars[f[0]] = s
		case "need":
			if _, err := exec.LookPath(rest); err != nil {
				t.Skipf("%s is not installed", rest)
			}
		case "sort":
			r.sorted = true
		case "close":
			if r.stdin == nil {
				r.start()
			}
			r.stdin.Close()
			r.finish()
		case "exit":
			n, err := strconv.Atoi(rest)
			if err != nil {
				fail("bad exit status %q", rest)
			}
			wantExit = n
		case "stderr":
			re, err := regexp.Compile(rest)
			if err != nil {
				fail("bad pattern: %v", err)
			}
			stderrRes = append(stderrRes, re)
		default:
			fail("unknown verb %q", verb)
		}
	}
	if !r.exited {
		if r.stdin == nil {
			r.start()
		}
		r.stdin.Close()
		r.finish()
	}
	if got := r.exitStatus(); got != wantExit {
		t.Errorf("exit status = %d (%v), want %d\nstderr:\n%s", got, r.err, wantExit, r.stderr)
	}
	for _, re := range stderrRes {
		if !re.MatchString(r.stderr.String()) {
			t.Errorf("stderr does not match %q:\n%s", re, r.stderr)
		}
	}
	for _, l := range r.lines {
		var h rpcHead
		if err := json.Unmarshal([]byte(l), &h); err != nil || h.Type == "" {
			t.Errorf("stdout line is not a protocol line: %q", l)
		}
	}
}

// expand replaces $WORK, $REPO (the repository's root) and $EXT/NAME in a
// script line.
func (r *rpcRun) expand(s string) string {
	s = regexp.MustCompile(`\$EXT/([a-z0-9-]+)`).ReplaceAllStringFunc(s, func(m string) string {
		dir, err := r.builds.copy(strings.TrimPrefix(m, "$EXT/"), filepath.Join(r.work, "ext"))
		if err != nil {
			r.t.Fatal(err)
		}
		return dir
	})
	for k, v := range r.vars {
		s = strings.ReplaceAll(s, "$"+k, v)
	}
	if strings.Contains(s, "$REPO") {
		repo, err := filepath.Abs(filepath.Join("..", ".."))
		if err != nil {
			r.t.Fatal(err)
		}
		s = strings.ReplaceAll(s, "$REPO", repo)
	}
	return strings.ReplaceAll(s, "$WORK", r.work)
}

var (
	rpcTimeRe    = regexp.MustCompile(`"(time|created|modified|at|next|due)":"[^"]*"`)
	rpcDateRe    = regexp.MustCompile(`\d{4}-\d\d-\d\d[ T]\d\d:\d\d(:\d\d)?( [A-Z]{3,5})?|[A-Z][a-z]{2}, \d\d [A-Z][a-z]{2} \d{4} \d\d:\d\d:\d\d [A-Z]{3,5}`)
	rpcUUIDRe    = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	rpcEntryRe   = regexp.MustCompile(`"(id|parent_id|leaf_id|branch_id|entry_id|session_id)":"([0-9a-f]{8})"`)
	rpcQuotedRe  = regexp.MustCompile(`\\?"([0-9a-f]{8})\\?"`)
	rpcReqIDRe   = regexp.MustCompile(`"request_id":"([0-9]+)"`)
	rpcEscNumRe  = regexp.MustCompile(`\\"([0-9]+)\\"`)
	rpcTimeoutRe = regexp.MustCompile(`"timeout_ms":[0-9]+`)
	rpcVersionRe = regexp.MustCompile(`"version":"` + regexp.QuoteMeta(app.Version) + `[^"]*"`)
	// The python tool's details name the interpreter's version.
	rpcPythonRe  = regexp.MustCompile(`("stderr_bytes":\d+(?:,"fresh":true)?,"version":)"3\.\d+\.\d+[^"]*"`)
	rpcClockRe   = regexp.MustCompile(`\d\d:\d\d:\d\d`)
	rpcSessionRe = regexp.MustCompile(`\$WORK/zuthome/sessions/[^"]*\.jsonl`)
)

// normalise makes a transcript independent of times, random ids, paths
// and the build.
func (r *rpcRun) normalise(lines []string) []string {
	cwd, _ := os.Getwd()
	ids := map[string]string{}
	name := func(kind, id string) string {
		if n, ok := ids[id]; ok {
			return n
		}
		n := fmt.Sprintf("<%s%d>", kind, len(ids)+1)
		ids[id] = n
		return n
	}
	// Entry ids are only known where a key names them; collect them first
	// so that they are also replaced in error messages.
	for _, l := range lines {
		for _, m := range rpcEntryRe.FindAllStringSubmatch(l, -1) {
			name("id", m[2])
		}
	}
	out := make([]string, 0, len(lines))
	for _, l := range lines {
		l = rpcTimeRe.ReplaceAllString(l, `"$1":"<time>"`)
		l = rpcDateRe.ReplaceAllString(l, `<date>`)
		l = rpcUUIDRe.ReplaceAllStringFunc(l, func(m string) string { return name("session", m) })
		l = rpcQuotedRe.ReplaceAllStringFunc(l, func(m string) string {
			id := strings.Trim(m, `\"`)
			if n, ok := ids[id]; ok {
				return strings.Replace(m, id, n, 1)
			}
			return m
		})
		l = rpcReqIDRe.ReplaceAllStringFunc(l, func(m string) string {
			return `"request_id":"` + name("req", rpcReqIDRe.FindStringSubmatch(m)[1]) + `"`
		})
		// Request ids quoted inside error messages.
		l = rpcEscNumRe.ReplaceAllStringFunc(l, func(m string) string {
			if n, ok := ids[rpcEscNumRe.FindStringSubmatch(m)[1]]; ok {
				return `\"` + n + `\"`
			}
			return m
		})
		// The host sends the time left, which depends on scheduling.
		l = rpcTimeoutRe.ReplaceAllString(l, `"timeout_ms":<ms>`)
		l = rpcVersionRe.ReplaceAllString(l, `"version":"$$VERSION"`)
		l = rpcPythonRe.ReplaceAllString(l, `$1"$$PYTHON"`)
		l = strings.ReplaceAll(l, r.work, "$WORK")
		l = rpcSessionRe.ReplaceAllStringFunc(l, func(m string) string {
			return "$WORK/zuthome/sessions/" + name("file", m) + ".jsonl"
		})
		l = onlyFakeModels(l)
		l = strings.ReplaceAll(l, cwd, "$CWD")
		l = rpcClockRe.ReplaceAllString(l, "HH:MM:SS")
		out = append(out, l)
	}
	out = sortRuns(out, `{"type":"ext_chrome_clear"`)
	if r.sorted {
		sort.Strings(out)
	}
	return out
}

// onlyFakeModels keeps the models of the test provider in a get_models
// response, so that the transcript does not change with the catalog.
func onlyFakeModels(l string) string {
	if !strings.Contains(l, `"command":"get_models"`) || !strings.Contains(l, `"success":true`) {
		return l
	}
	var resp struct {
		Type    string          `json:"type"`
		ID      json.RawMessage `json:"id,omitempty"`
		Command string          `json:"command"`
		Success bool            `json:"success"`
		Data    struct {
			Models []json.RawMessage `json:"models"`
		} `json:"data"`
	}
	if err := json.Unmarshal([]byte(l), &resp); err != nil {
		return l
	}
	var kept []json.RawMessage
	for _, m := range resp.Data.Models {
		var p struct{ Provider string }
		if json.Unmarshal(m, &p) == nil && p.Provider == "fake" {
			kept = append(kept, m)
		}
	}
	resp.Data.Models = kept
	b, _ := json.Marshal(resp)
	return string(b)
}

// sortRuns sorts each run of consecutive lines with the given prefix:
// zut emits them concurrently (one per extension).
func sortRuns(lines []string, prefix string) []string {
	for i := 0; i < len(lines); {
		j := i
		for j < len(lines) && strings.HasPrefix(lines[j], prefix) {
			j++
		}
		if j > i {
			sort.Strings(lines[i:j])
			i = j
		} else {
			i++
		}
	}
	return lines
}
