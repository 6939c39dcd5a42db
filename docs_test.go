package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/zut-go/zut/agent/app"
	"github.com/zut-go/zut/proto"
	"github.com/zut-go/zut/provider"
	"github.com/zut-go/zut/provider/providertest"
)

// The docs test reads what the user-facing docs say zut has (flags,
// commands, slash commands, settings, environment variables, reasoning
// levels) and checks each against the code, so that the docs cannot
// drift from it again.

// userDocs are the files whose zut commands, flags and variables are
// checked: what a newcomer reads, and the references of the protocols,
// the SDKs and the code.
var userDocs = []string{"README.md", "docs/tui.md", "docs/providers.md", "docs/tools.md", "docs/features.md", "docs/sessions.md",
	"docs/mcp.md", "docs/telegram.md", "docs/security.md", "docs/rpc.md", "docs/protocol.md", "docs/kit-parity.md",
	"docs/architecture.md", "docs/themes.md", "docs/sdk-python.md", "docs/sdk-node.md", "docs/migrating.md", "docs/zutfiles.md"}

// foreignFlags are flags of other programs the docs mention in code
// spans of their own.
var foreignFlags = map[string]string{
	"--reasoning-format": "llama.cpp's option, in providers.md",
}

// codeSpans returns the inline code spans of a markdown file and the lines
// of its code blocks.
func codeSpans(t *testing.T, file string) (spans, blockLines []string) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	in := false
	var text strings.Builder
	for _, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			in = !in
			continue
		}
		if in {
			blockLines = append(blockLines, l)
			continue
		}
		text.WriteString(l + "\n")
	}
	for _, m := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(text.String(), -1) {
		spans = append(spans, strings.ReplaceAll(m[1], "\n", " "))
	}
	return spans, blockLines
}

// zutCommands are the pieces of docs that are zut command lines: code
// spans that start with "zut " and code block lines that hold "zut ".
func zutCommands(t *testing.T) []string {
	var out []string
	for _, f := range userDocs {
		spans, lines := codeSpans(t, f)
		for _, s := range spans {
			if strings.HasPrefix(s, "zut ") {
				out = append(out, s)
			}
		}
		for _, l := range lines {
			l = strings.TrimPrefix(strings.TrimSpace(l), "$ ")
			if i := strings.Index(l, " #"); i >= 0 {
				l = l[:i] // a comment
			}
			for _, sep := range []string{"| ", "&& ", "; "} {
				if i := strings.Index(l, sep+"zut "); i >= 0 {
					l = l[i+len(sep):]
				}
			}
			// "zut 0.1.0" is a header, "zut    extension" a diagram.
			if strings.HasPrefix(l, "zut ") && !regexp.MustCompile(`^zut (\d|  )`).MatchString(l) {
				out = append(out, l)
			}
		}
	}
	// A pipe or && ends the zut command line.
	for i, c := range out {
		for _, sep := range []string{" | ", " && ", "; "} {
			if j := strings.Index(c, sep); j >= 0 {
				c = c[:j]
			}
		}
		out[i] = c
	}
	return out
}

// notVariables are names in code spans that look like environment
// variables of zut and are not: flags, placeholders, and the variables
// only the tests read (README's "Running the tests").
var notVariables = map[string]bool{
	"O_APPEND": true, "O_EXCL": true, "O_NOFOLLOW": true, "O_NONBLOCK": true, "TOOL": true, "DELETE": true,
	"ZUT_GOPLS": true, "ZUT_MCP_SERVERS_DIR": true, "ZUT_CONFORMANCE_DIR": true, "ZUT_MCP_CONFORMANCE": true, "ZUT_TSC": true,
	// security.md's examples of credentials zut withholds from the
	// processes it starts without reading them itself.
	"ANTHROPIC_AUTH_TOKEN": true, "OPENROUTER_TOKEN": true, "GITHUB_TOKEN": true,
	// security.md's sandbox: the errors and ioctls the seccomp filter
	// names, and TMPDIR, which zut sets for confined commands.
	"EPERM": true, "ENOSYS": true, "TIOCSTI": true, "TIOCLINUX": true, "TMPDIR": true,
	// security.md's proxy network: the variables zut sets for a command
	// to reach its proxy (it does not read them).
	"HTTP_PROXY": true, "HTTPS_PROXY": true, "ALL_PROXY": true,
	// README's static build: a variable of the go command.
	"CGO_ENABLED": true,
	// protocol.md's placeholders of zut ext test --args CMD=ARGS.
	"CMD": true, "ARGS": true,
	// The Python and Node SDKs' capability constants.
	"HOST_REQUESTS": true, "EVENTS2": true, "INTERCEPTS2": true, "UI2": true,
	// migrating.md: a prompt template's placeholder, and the variable zut
	// sets for Claude Code's hooks (it does not read it).
	"ARGUMENTS": true, "CLAUDE_PROJECT_DIR": true,
}

var flagRE = regexp.MustCompile(`(?:^|[\s(\[|,])(--?[a-z][a-z0-9-]*)`)

// docFlags are the flags the docs name: in zut command lines, and code
// spans that are a flag alone.
func docFlags(t *testing.T) map[string]string {
	found := map[string]string{}
	for _, c := range zutCommands(t) {
		if i := strings.Index(c, " #"); i >= 0 {
			c = c[:i] // a comment
		}
		c = regexp.MustCompile(`'[^']*'|"[^"]*"`).ReplaceAllString(c, "''")
		for _, m := range flagRE.FindAllStringSubmatch(c, -1) {
			found[m[1]] = c
		}
	}
	for _, f := range userDocs {
		spans, _ := codeSpans(t, f)
		for _, s := range spans {
			if m := regexp.MustCompile(`^(--?[a-z][a-z0-9-]*)(?:[ =]\S+)?$`).FindStringSubmatch(s); m != nil {
				found[m[1]] = f + ": `" + s + "`"
			}
		}
	}
	return found
}

// mainFlags are the flags of the main command.
func mainFlags() map[string]bool {
	fs := flag.NewFlagSet("zut", flag.ContinueOnError)
	var o app.Options
	o.Register(fs)
	out := map[string]bool{}
	fs.VisitAll(func(f *flag.Flag) {
		if len(f.Name) == 1 {
			out["-"+f.Name] = true
		} else {
			out["--"+f.Name] = true
		}
	})
	return out
}

// runZut runs the binary in a fresh home and returns its output and
// status.
func runZut(t *testing.T, stdin string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(zutBinary, args...)
	dir := t.TempDir()
	cmd.Dir = dir
	cmd.Env = []string{"HOME=" + dir, "ZUT_HOME=" + filepath.Join(dir, "zut"), "PATH=" + os.Getenv("PATH"), "TERM=dumb"}
	cmd.Stdin = strings.NewReader(stdin)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.Run()
	return out.String(), cmd.ProcessState.ExitCode()
}

// subcommandLines are zut invocations that take flags of their own.
var subcommandLines = [][]string{
	{"sessions"}, {"ext", "list"}, {"ext", "doctor"}, {"ext", "install"}, {"ext", "remove"},
	{"ext", "enable"}, {"ext", "logs"}, {"ext", "init"}, {"ext", "test"},
	{"mcp", "list"}, {"mcp", "doctor"}, {"mcp", "add"}, {"mcp", "remove"},
	{"telegram", "setup"}, {"telegram", "logs"}, {"auth", "login"}, {"trust"},
	{"pack"}, {"inspect"}, {"verify"}, {"run"},
}

func TestDocsFlags(t *testing.T) {
	main := mainFlags()
	for f, where := range docFlags(t) {
		if main[f] || foreignFlags[f] != "" {
			continue
		}
		known := false
		for _, sub := range subcommandLines {
			out, _ := runZut(t, "", append(append([]string{}, sub...), f)...)
			if !strings.Contains(out, "unknown flag") && !strings.Contains(out, "flag provided but not defined") {
				known = true
				break
			}
		}
		if !known {
			t.Errorf("the docs name %s (%s), which no zut command has", f, where)
		}
	}
	// --help lists every flag of the main command.
	help, _ := runZut(t, "", "--help")
	for f := range main {
		if !regexp.MustCompile(`(^|[\s,(])` + regexp.QuoteMeta(f) + `\b`).MatchString(help) {
			t.Errorf("zut --help does not list %s", f)
		}
	}
}

// TestDocsCommands checks every "zut WORD ..." line of the docs: WORD is
// a subcommand (or the line is a prompt in quotes or flags), and the verbs
// and topics after ext, auth and help exist.
func TestDocsCommands(t *testing.T) {
	subs := map[string]bool{}
	for _, c := range commands {
		subs[c] = true
	}
	seen := map[string]bool{}
	for _, c := range zutCommands(t) {
		words := strings.Fields(c)
		if len(words) < 2 {
			continue
		}
		w := words[1]
		if strings.HasPrefix(w, "-") || strings.HasPrefix(w, "'") || strings.HasPrefix(w, `"`) || strings.HasPrefix(w, "$") || strings.HasPrefix(w, "[") || strings.HasPrefix(w, "<") {
			continue
		}
		w = strings.Trim(w, "`|,.;:)")
		if !subs[w] {
			t.Errorf("the docs run %q: %q is no zut command (prompts go in quotes)", c, w)
			continue
		}
		if len(words) < 3 || seen[c] {
			continue
		}
		seen[c] = true
		arg := strings.Trim(words[2], "`|,.;:)")
		if strings.HasPrefix(arg, "-") || strings.HasPrefix(arg, "<") || strings.HasPrefix(arg, "[") || strings.ToUpper(arg) == arg {
			continue
		}
		var out string
		switch w {
		case "ext":
			out, _ = runZut(t, "", "ext", arg, "-h")
			if strings.Contains(out, "unknown zut ext verb") {
				t.Errorf("the docs run %q: zut ext has no verb %q", c, arg)
			}
		case "auth":
			out, _ = runZut(t, "", "auth", arg)
			if strings.Contains(out, "unknown zut auth verb") {
				t.Errorf("the docs run %q: zut auth has no verb %q", c, arg)
			}
		case "mcp", "telegram":
			out, _ = runZut(t, "", w, arg, "-h")
			if strings.Contains(out, "unknown command") {
				t.Errorf("the docs run %q: zut %s has no verb %q", c, w, arg)
			}
		case "help":
			if out, status := runZut(t, "", "help", arg); status != 0 {
				t.Errorf("the docs run %q, which fails: %s", c, out)
			}
		}
	}
}

// TestDocsSlashCommands: the slash command table of tui.md lists every
// built-in command and nothing else.
func TestDocsSlashCommands(t *testing.T) {
	data, _ := os.ReadFile("docs/tui.md")
	section := between(t, string(data), "## Slash commands", "\n## ")
	documented := map[string]bool{}
	for _, l := range strings.Split(section, "\n") {
		if !strings.HasPrefix(l, "| `/") {
			continue
		}
		cell := strings.Split(l, "|")[1]
		for _, m := range regexp.MustCompile("`/([a-z-]+)").FindAllStringSubmatch(cell, -1) {
			documented[m[1]] = true
		}
	}
	for name := range documented {
		if _, ok := app.LookupBuiltin(name); !ok {
			t.Errorf("docs/tui.md lists /%s, which is no built-in command", name)
		}
	}
	for _, b := range app.Builtins {
		if !documented[b.Name] {
			t.Errorf("docs/tui.md does not list /%s", b.Name)
		}
	}
}

// TestDocsRPCCommands: the command table of rpc.md lists the commands
// hello reports (proto.RPCCommandTypes) and nothing else, each with a
// section of its own, and its slash command section names every built-in
// command, as a row or among the refused ones.
func TestDocsRPCCommands(t *testing.T) {
	data, err := os.ReadFile("docs/rpc.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	table := between(t, text, "| command | members | data on success |", "\n\n")
	var documented []string
	for _, m := range regexp.MustCompile("(?m)^\\| \\[`([a-z_]+)`\\]").FindAllStringSubmatch(table, -1) {
		documented = append(documented, m[1])
	}
	if got, want := slices.Sorted(slices.Values(documented)), slices.Sorted(slices.Values(proto.RPCCommandTypes)); !slices.Equal(got, want) {
		t.Errorf("docs/rpc.md's command table lists %v; hello reports %v", got, want)
	}
	for _, c := range proto.RPCCommandTypes {
		if !strings.Contains(text, "\n### "+c+"\n") && !regexp.MustCompile("\n### [a-z_ ]*\\b"+c+"\\b").MatchString(text) {
			t.Errorf("docs/rpc.md has no section for %s", c)
		}
	}
	slash := between(t, text, "## Slash commands", "\n## ")
	for _, b := range app.Builtins {
		if !regexp.MustCompile("`" + regexp.QuoteMeta(b.Name) + "[` ]").MatchString(slash) {
			t.Errorf("docs/rpc.md's slash commands do not say what /%s does in RPC mode", b.Name)
		}
	}
}

// TestDocsSettings: the settings table of tui.md lists the members of
// config.json, and says which of them /settings changes.
func TestDocsSettings(t *testing.T) {
	data, _ := os.ReadFile("docs/tui.md")
	section := between(t, string(data), "## Settings", "\n## ")
	var all, inUI []string
	for _, l := range strings.Split(section, "\n") {
		if !strings.HasPrefix(l, "| `") {
			continue
		}
		cells := strings.Split(l, "|")
		keys := regexp.MustCompile("`([a-z_]+)`").FindAllStringSubmatch(cells[1], -1)
		ui := strings.TrimSpace(cells[len(cells)-2])
		for _, k := range keys {
			all = append(all, k[1])
			if ui == "yes" {
				inUI = append(inUI, k[1])
			}
		}
	}
	slices.Sort(all)
	slices.Sort(inUI)
	want, wantUI := slices.Sorted(slices.Values(app.SettingsMembers)), slices.Sorted(slices.Values(app.UISettings))
	if !slices.Equal(all, want) {
		t.Errorf("docs/tui.md settings = %v, config.json holds %v", all, want)
	}
	if !slices.Equal(inUI, wantUI) {
		t.Errorf("docs/tui.md says /settings changes %v; it changes %v", inUI, wantUI)
	}
}

// readVars are the environment variables the code reads: literal names
// in Getenv calls, names of variables read through constants, and the
// catalog's key and base URL variables.
func readVars(t *testing.T) map[string]bool {
	re := regexp.MustCompile(`(?:Getenv|getenv|LookupEnv)\("([A-Z][A-Z0-9_]*)"\)|needsEnv:\s*"([A-Z][A-Z0-9_]*)"|[A-Za-z]+Env\s*=\s*"([A-Z][A-Z0-9_]*)"|"(ZUT_OPT_)"`)
	out := map[string]bool{}
	filepath.WalkDir(".", func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "examples" || d.Name() == "telegramtest") {
			if d != nil && d.IsDir() && p != "." {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		data, _ := os.ReadFile(p)
		for _, m := range re.FindAllStringSubmatch(string(data), -1) {
			for _, g := range m[1:] {
				if g != "" {
					out[g] = true
				}
			}
		}
		return nil
	})
	for _, p := range provider.BuiltinProviders() {
		for _, v := range append(append([]string{}, p.KeyEnv...), p.BaseURLEnv...) {
			out[v] = true
		}
	}
	for _, l := range provider.LimitSettings {
		out[l.Env] = true
	}
	return out
}

// TestDocsEnvironment: zut help env lists every variable the code reads,
// and every variable the docs name is one the code reads.
func TestDocsEnvironment(t *testing.T) {
	vars := readVars(t)
	if len(vars) < 20 {
		t.Fatalf("found only %d variables in the code: the scan is broken", len(vars))
	}
	help, _ := runZut(t, "", "help", "env")
	for v := range vars {
		if !strings.Contains(help, v) {
			t.Errorf("zut help env does not list %s, which zut reads", v)
		}
	}
	varRE := regexp.MustCompile(`^\$?([A-Z][A-Z0-9_]{2,})(?:=\S*)?$`)
	for _, f := range userDocs {
		spans, _ := codeSpans(t, f)
		for _, s := range spans {
			m := varRE.FindStringSubmatch(s)
			if m == nil || vars[m[1]] || strings.HasPrefix(m[1], "ZUT_OPT_") || notVariables[m[1]] || helpOnly(m[1]) {
				continue
			}
			t.Errorf("%s names the variable %s, which zut does not read", f, m[1])
		}
	}
}

// helpOnly reports whether zut help env lists v although the code reads
// it only through the standard library (PATH: exec.LookPath).
func helpOnly(v string) bool {
	for _, e := range app.EnvVars {
		if e.Name == v {
			return true
		}
	}
	return false
}

// levelWords are words that name reasoning levels.
var levelWords = []string{"off", "none", "minimal", "low", "medium", "high", "xhigh", "max", "adaptive"}

// TestDocsReasoningLevels: every list of reasoning levels (--help, /help,
// the README, providers.md, tui.md) is provider.ReasoningLevels.
func TestDocsReasoningLevels(t *testing.T) {
	help, _ := runZut(t, "", "--help")
	sources := map[string]string{}
	for _, l := range strings.Split(help, "\n") {
		if strings.Contains(l, "--reasoning") {
			sources["zut --help"] = l
		}
	}
	if b, ok := app.LookupBuiltin("reasoning"); ok {
		sources["/help"] = b.Help
	}
	for _, f := range []string{"README.md", "docs/providers.md", "docs/tui.md"} {
		data, _ := os.ReadFile(f)
		for i, l := range strings.Split(string(data), "\n") {
			if (strings.Contains(l, "--reasoning") || strings.Contains(l, "/reasoning")) && strings.Contains(l, "off") && strings.Contains(l, "high") {
				sources[fmt.Sprintf("%s:%d", f, i+1)] = l
			}
		}
	}
	if len(sources) < 5 {
		t.Fatalf("found %d lists of reasoning levels, want one in each of --help, /help, README.md, providers.md and tui.md: %v", len(sources), sources)
	}
	for where, l := range sources {
		var got []string
		for _, w := range regexp.MustCompile(`[a-z]+`).FindAllString(l, -1) {
			if slices.Contains(levelWords, w) && !slices.Contains(got, w) {
				got = append(got, w)
			}
		}
		if !slices.Equal(got, provider.ReasoningLevels) {
			t.Errorf("%s lists the reasoning levels %v, want %v:\n%s", where, got, provider.ReasoningLevels, l)
		}
	}
}

// TestDocsArchitecture: the import table of architecture.md is
// importPolicy (deps_test.go) written out: every package of the policy
// has one row, with the same packages it may import, and the tree above
// the table lists each package below the packages that import it.
func TestDocsArchitecture(t *testing.T) {
	data, err := os.ReadFile("docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	section := between(t, text, "| package | may import (inside the module) |", "\n\n")
	documented := map[string][]string{}
	cellNames := func(cell string) []string {
		cell = regexp.MustCompile(`\([^)]*\)`).ReplaceAllString(cell, "")
		var out []string
		for _, n := range strings.Split(cell, ",") {
			n = strings.Trim(strings.TrimSpace(n), "`")
			switch n {
			case "", "nothing":
				continue
			case "main":
				n = ""
			}
			out = append(out, n)
		}
		return out
	}
	for _, l := range strings.Split(section, "\n") {
		cells := strings.Split(l, "|")
		if len(cells) != 4 || strings.HasPrefix(strings.TrimSpace(cells[1]), "---") {
			continue
		}
		imports := cellNames(cells[2])
		slices.Sort(imports)
		for _, p := range cellNames(cells[1]) {
			if _, dup := documented[p]; dup {
				t.Errorf("docs/architecture.md lists %q in two rows", p)
			}
			documented[p] = imports
		}
	}
	if len(documented) < 20 {
		t.Fatalf("found %d packages in the table of docs/architecture.md: the parse is broken", len(documented))
	}
	for p, allowed := range importPolicy {
		want := slices.Sorted(slices.Values(allowed))
		got, ok := documented[p]
		switch {
		case !ok:
			t.Errorf("docs/architecture.md has no row for %q, which importPolicy lists", p)
		case !slices.Equal(got, want):
			t.Errorf("docs/architecture.md says %q may import %v; importPolicy says %v", p, got, want)
		}
	}
	for p := range documented {
		if _, ok := importPolicy[p]; !ok {
			t.Errorf("docs/architecture.md lists %q, which importPolicy does not", p)
		}
	}

	// The tree: a package's first mention comes after every package that
	// may import it (groups on one entry excepted).
	tree := between(t, text, "## The package map", "| package |")
	tree = between(t, tree, "```\n", "```")
	first := map[string]int{"": 0}
	nameRE := regexp.MustCompile(`[a-z][a-z0-9-]*(?:/[a-z][a-z0-9-]*)+|\b(?:agent|host|ext|provider|tui|proto)\b`)
	for i, l := range strings.Split(tree, "\n") {
		// The name column: after the tree's lines, up to the gap before
		// the description. A line whose text starts far right holds
		// description only.
		rest := strings.TrimLeft(l, "│├└─ ")
		if utf8.RuneCountInString(l)-utf8.RuneCountInString(rest) >= 20 {
			continue
		}
		if j := strings.Index(rest, "   "); j >= 0 {
			rest = rest[:j]
		}
		for _, m := range nameRE.FindAllString(rest, -1) {
			if _, ok := first[m]; !ok {
				first[m] = i
			}
		}
	}
	for p, allowed := range importPolicy {
		if strings.HasPrefix(p, "examples/") {
			continue
		}
		at, ok := first[p]
		if !ok {
			t.Errorf("the package map of docs/architecture.md does not name %q", p)
			continue
		}
		for _, imp := range allowed {
			if j, ok := first[imp]; ok && j < at {
				t.Errorf("the package map of docs/architecture.md lists %q above %q, which imports it", imp, p)
			}
		}
	}
}

// between returns the text of s from start up to the next end after it.
func between(t *testing.T, s, start, end string) string {
	t.Helper()
	i := strings.Index(s, start)
	if i < 0 {
		t.Fatalf("no %q in the file", start)
	}
	s = s[i+len(start):]
	if j := strings.Index(s, end); j >= 0 {
		s = s[:j]
	}
	return s
}

// TestReadmeJSONExample runs the README's JSON mode example against the
// scripted model server with docs/demo-model.json, as the README says,
// and compares the events with those printed (times masked).
func TestReadmeJSONExample(t *testing.T) {
	data, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	block := between(t, string(data), "```\n$ zut --mode json", "```")
	lines := strings.Split(strings.TrimSpace("$ zut --mode json"+block), "\n")
	script, err := os.ReadFile("docs/demo-model.json")
	if err != nil {
		t.Fatal(err)
	}
	replies, err := providertest.ParseScript(script)
	if err != nil {
		t.Fatalf("docs/demo-model.json: %v", err)
	}
	srv := providertest.NewServer(replies...)
	defer srv.Close()
	cmdline := strings.TrimPrefix(lines[0], "$ zut ")
	cmdline = strings.ReplaceAll(cmdline, `"$(head -1 /tmp/fakemodel.url)"`, srv.URL)
	var args []string
	for _, m := range regexp.MustCompile(`"([^"]*)"|(\S+)`).FindAllStringSubmatch(cmdline, -1) {
		args = append(args, m[1]+m[2])
	}
	home := t.TempDir()
	cmd := exec.Command(zutBinary, args...)
	cmd.Env = []string{"HOME=" + home, "ZUT_HOME=" + filepath.Join(home, "zut"), "PATH=" + os.Getenv("PATH")}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("zut %v: %v\n%s", args, err, stderr.String())
	}
	mask := regexp.MustCompile(`"time":"[^"]*"`)
	got := mask.ReplaceAllString(strings.TrimSpace(string(out)), `"time":"…"`)
	want := strings.Join(lines[1:], "\n")
	if got != want {
		t.Errorf("the README's JSON example prints, as run now:\n%s\n\nthe README shows:\n%s", got, want)
	}
}

// TestSecurityDocTests: every test docs/security.md names as holding a
// promise exists: a `pkg.TestName` (or FuzzName) is a function of a test
// file in a package directory called pkg, and a `path.txtar` is a file.
func TestSecurityDocTests(t *testing.T) {
	spans, _ := codeSpans(t, "docs/security.md")
	funcs := map[string]bool{} // "pkg.TestName"
	filepath.WalkDir(".", func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, "_test.go") {
			return nil
		}
		data, _ := os.ReadFile(p)
		pkg := filepath.Base(filepath.Dir(p))
		if pkg == "." {
			pkg = "main" // the root's tests: main.TestHostileFiles
		}
		for _, m := range regexp.MustCompile(`(?m)^func ((?:Test|Fuzz)\w+)\(`).FindAllStringSubmatch(string(data), -1) {
			funcs[pkg+"."+m[1]] = true
		}
		return nil
	})
	testRE := regexp.MustCompile(`^[a-z]+\.(Test|Fuzz)\w+$`)
	named := 0
	for _, s := range spans {
		switch {
		case testRE.MatchString(s):
			named++
			if !funcs[s] {
				t.Errorf("docs/security.md names the test %s, which does not exist", s)
			}
		case regexp.MustCompile(`^(Test|Fuzz)\w+$`).MatchString(s) && s != "TestScripts" && s != "TestSecurityDocTests":
			t.Errorf("docs/security.md names the test %s without its package; write pkg.%s", s, s)
		case strings.HasSuffix(s, ".txtar"):
			named++
			if _, err := os.Stat(s); err != nil {
				t.Errorf("docs/security.md names the test script %s: %v", s, err)
			}
		}
	}
	if named < 30 {
		t.Errorf("docs/security.md names %d tests; the scan is broken or the doc lost its tests", named)
	}
}
