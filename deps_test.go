package main

import (
	"bufio"
	"encoding/json"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// importPolicy is the package DAG of docs/architecture.md as data: for
// each package of the module (its path inside the module; "" is main),
// the packages of the module it may import. A package missing from the
// map, or an import outside its list, fails the test. Read top-down: main
// runs the modes and the subcommands; the modes (printmode, rpcmode,
// interactive) run the app and never import each other; the app
// assembles the agent, the host and the providers and imports no mode;
// below them proto, provider and the renderer tui import nothing of zut
// but proto/regular, the leaf that reads the files anyone can plant and
// writes the capped logs.
var importPolicy = map[string][]string{
	"": {"agent/app", "agent/sandbox", "agent/zutfile", "agent/printmode", "agent/rpcmode", "agent/botmode", "agent/bot/telegram/telegramcmd", "tui/interactive", "host/extcmd", "host/mcpcmd", "agent/zutfile/zutfilecmd", "provider", "provider/authcmd"},

	// The modes.
	"agent/printmode": {"agent/app", "agent", "agent/permissions", "proto"},
	"agent/rpcmode":   {"agent/app", "agent", "agent/session", "agent/tools", "host", "proto", "provider"},
	"agent/botmode":   {"agent/app", "agent", "agent/bot", "agent/bot/telegram/telegramcmd", "agent/session", "agent/tools", "provider"},
	"tui/interactive": {"agent/app", "agent", "agent/botmode", "agent/permissions", "agent/session", "agent/tools", "host", "proto", "provider", "provider/authcmd", "tui", "tui/ansi", "tui/markdown"},

	// The assembled app.
	"agent/app": {"agent", "agent/permissions", "agent/sandbox", "agent/session", "agent/skills", "agent/tools", "agent/tools/lsp", "agent/tools/python",
		"agent/tools/syntax", "agent/tools/web", "agent/tools/worktree", "host", "host/hooks", "host/mcp", "proto", "provider",
		"agent/plan", "agent/goal", "agent/schedule", "agent/subagent", "agent/zutfile"},

	// The agent and what it runs.
	"agent":                    {"agent/permissions", "agent/session", "agent/tools", "provider"},
	"agent/permissions":        {"agent/permissions/shell", "proto/regular"},
	"agent/permissions/shell":  {},
	"agent/session":            {"provider"},
	"agent/skills":             {"provider"},
	"agent/tools":              {"agent/sandbox", "agent/skills", "provider", "proto/regular"},
	"agent/sandbox":            {},
	"agent/zutfile":            {"proto/regular"},
	"agent/zutfile/zutfilecmd": {"agent/zutfile", "proto/regular"},

	// The work around the conversation: the plan, the goal and its
	// continuation, the schedule, resident subagents. Above the agent,
	// below the app.
	"agent/plan":     {"agent/session", "agent/tools", "provider"},
	"agent/goal":     {"agent", "agent/session", "agent/tools", "provider"},
	"agent/schedule": {"agent", "agent/session", "agent/tools", "provider"},
	"agent/subagent": {"agent", "agent/plan", "agent/session", "agent/tools", "agent/tools/worktree", "provider"},

	// The tools beyond the built-in six, each in a package of its own.
	"agent/tools/lsp":         {"agent/tools", "agent/tools/lsp/jsonrpc", "provider", "proto/regular"},
	"agent/tools/lsp/jsonrpc": {},
	"agent/tools/web":         {"agent/sandbox", "agent/tools", "agent/tools/web/html", "provider"},
	"agent/tools/web/html":    {},
	"agent/tools/syntax":      {"agent/tools", "provider"},
	"agent/tools/python":      {"agent/sandbox", "agent/tools", "provider"},
	"agent/tools/worktree":    {"agent/tools", "provider"},

	// The bot host: a runner that knows no chat service, the Telegram
	// adapter, zut telegram, and the fake Bot API server of the tests.
	"agent/bot":                       {"agent", "agent/tools", "provider"},
	"agent/bot/telegram":              {"agent/bot", "proto/regular"},
	"agent/bot/telegram/telegramcmd":  {"agent/bot", "agent/bot/telegram", "agent/tools", "proto/regular"},
	"agent/bot/telegram/telegramtest": {"agent", "agent/bot", "agent/tools"},

	// The extension host, the SDK and zut ext.
	"proto":                     {},
	"proto/regular":             {},
	"proto/loopback":            {},
	"ext":                       {"proto"},
	"host":                      {"host/internal/jsonfile", "host/procgroup", "proto", "proto/regular"},
	"host/extcmd":               {"host", "host/exttest", "host/extinit", "host/internal/cmdline", "host/internal/gobuild", "proto/regular"},
	"host/exttest":              {"host", "host/internal/cmdline", "host/internal/gobuild", "host/procgroup", "proto"},
	"host/extinit":              {"ext/python", "ext/node", "host", "host/internal/cmdline"},
	"host/mcp":                  {"host/internal/jsonfile", "host/procgroup", "proto/loopback", "proto/regular"},
	"host/hooks":                {"host/procgroup"},
	"host/mcpcmd":               {"host/mcp"},
	"host/procgroup":            {},
	"host/internal/cmdline":     {},
	"host/internal/gobuild":     {},
	"host/internal/jsonfile":    {},
	"agent/internal/golden":     {},
	"agent/internal/schematest": {},

	// The SDKs of other languages, embedded for zut ext init, and the
	// tests their packages share, which run them under the real host.
	"ext/python":           {},
	"ext/node":             {},
	"ext/internal/sdktest": {"host", "proto"},

	// Models.
	"provider":                            {"proto/regular"},
	"provider/authcmd":                    {"proto/loopback", "provider"},
	"provider/providertest":               {"provider"},
	"provider/providertest/cmd/fakemodel": {"provider/providertest"},

	// The renderer: styled text at the bottom, syntax colours and markdown
	// over it, the views (chat, editor, screen) on top.
	"tui":                    {"tui/ansi", "tui/markdown", "tui/internal/uniwidth", "proto/regular"},
	"tui/ansi":               {"tui/internal/uniwidth", "proto/regular"},
	"tui/highlight":          {"tui/ansi"},
	"tui/markdown":           {"tui/ansi", "tui/highlight"},
	"tui/internal/styletest": {"tui/ansi"},
	"tui/internal/txtar":     {},
	"tui/internal/uniwidth":  {},
	"tui/internal/widthgen":  {},
	"tui/vt":                 {"tui/internal/uniwidth"},

	// Examples use the SDK only.
	"examples/extensions":           {},
	"examples/extensions/guard":     {"ext"},
	"examples/extensions/hello":     {"ext"},
	"examples/extensions/phases":    {"ext"},
	"examples/extensions/plan-mode": {"ext"},
	"examples/extensions/todo":      {"ext"},
	"examples/extensions/weather":   {"ext"},
}

// forbiddenStd lists standard packages a package must never import.
var forbiddenStd = map[string][]string{
	"ext":   {"net/http"},
	"proto": {"net/http", "os/exec"},
}

// maxShare is the largest share of the module's non-test, non-generated
// lines one package may hold.
const maxShare = 0.25

// allowedModules are the only modules zut may require.
var allowedModules = map[string]bool{
	"golang.org/x/term": true,
	"golang.org/x/sys":  true,
}

const modulePath = "github.com/zut-go/zut"

type listedPackage struct {
	ImportPath   string
	Name         string
	Doc          string
	Dir          string
	GoFiles      []string
	Imports      []string
	TestImports  []string
	XTestImports []string
}

// listPackages runs go list on the module.
func listPackages(t *testing.T) []listedPackage {
	t.Helper()
	out, err := exec.Command("go", "list", "-json", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []listedPackage
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var p listedPackage
		if err := dec.Decode(&p); err != nil {
			t.Fatalf("decode go list output: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) == 0 {
		t.Fatal("go list returned no packages")
	}
	return pkgs
}

func TestImportPolicy(t *testing.T) {
	for _, p := range listPackages(t) {
		self := inModule(p.ImportPath)
		allowed, ok := importPolicy[self]
		if !ok {
			t.Errorf("package %s is not in the import policy; add it to importPolicy with the packages it may import (and to docs/architecture.md)", p.ImportPath)
			continue
		}
		for _, imp := range p.Imports {
			if !strings.HasPrefix(imp, modulePath) {
				checkExternal(t, p.ImportPath, imp)
				for _, bad := range forbiddenStd[self] {
					if imp == bad {
						t.Errorf("%s imports %s, which it must not use", p.ImportPath, imp)
					}
				}
				continue
			}
			if !slices.Contains(allowed, inModule(imp)) {
				t.Errorf("%s imports %s: the edge %q -> %q is not in the import policy", p.ImportPath, imp, self, inModule(imp))
			}
		}
		for _, imp := range append(p.TestImports, p.XTestImports...) {
			if !strings.HasPrefix(imp, modulePath) {
				checkExternal(t, p.ImportPath+" (tests)", imp)
			}
		}
	}
}

// TestPackageDocs checks that every package says what it owns.
func TestPackageDocs(t *testing.T) {
	for _, p := range listPackages(t) {
		if p.Doc == "" && len(p.GoFiles) > 0 {
			t.Errorf("package %s has no doc comment; say what it owns in a // Package %s ... comment", p.ImportPath, p.Name)
		}
	}
}

// TestRootHoldsOnlyMain checks the layout: the root's only Go source is
// main.go.
func TestRootHoldsOnlyMain(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if f != "main.go" && !strings.HasSuffix(f, "_test.go") {
			t.Errorf("%s is Go source at the root; the root holds main.go only, the rest belongs in a package (docs/architecture.md)", f)
		}
	}
}

func checkExternal(t *testing.T, from, imp string) {
	t.Helper()
	first, _, _ := strings.Cut(imp, "/")
	if !strings.Contains(first, ".") {
		return // standard library
	}
	for m := range allowedModules {
		if imp == m || strings.HasPrefix(imp, m+"/") {
			return
		}
	}
	t.Errorf("%s imports %s, outside the standard library and %v", from, imp, keys(allowedModules))
}

func TestGoModRequiresOnlyAllowedModules(t *testing.T) {
	f, err := os.Open("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var required []string
	inBlock := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if i := strings.Index(line, "//"); i >= 0 {
			line = strings.TrimSpace(line[:i])
		}
		switch {
		case line == "require (":
			inBlock = true
		case inBlock && line == ")":
			inBlock = false
		case inBlock && line != "":
			required = append(required, strings.Fields(line)[0])
		case strings.HasPrefix(line, "require "):
			required = append(required, strings.Fields(line)[1])
		case strings.HasPrefix(line, "replace ") || strings.HasPrefix(line, "tool "):
			t.Errorf("go.mod has %q; zut uses no replace or tool directives", line)
		}
	}
	if len(required) == 0 {
		t.Fatal("go.mod requires nothing; expected golang.org/x/term and golang.org/x/sys")
	}
	for _, m := range required {
		if !allowedModules[m] {
			t.Errorf("go.mod requires %s; only %v are allowed", m, keys(allowedModules))
		}
	}
}

// TestPackageShare checks that no package holds more than maxShare of the
// module's lines (tests and generated files not counted).
func TestPackageShare(t *testing.T) {
	lines := map[string]int{}
	total := 0
	for _, p := range listPackages(t) {
		for _, f := range p.GoFiles {
			b, err := os.ReadFile(filepath.Join(p.Dir, f))
			if err != nil {
				t.Fatal(err)
			}
			if generated.Match(b) {
				continue
			}
			n := strings.Count(string(b), "\n")
			lines[p.ImportPath] += n
			total += n
		}
	}
	for pkg, n := range lines {
		if share := float64(n) / float64(total); share > maxShare {
			t.Errorf("package %s holds %d of %d lines (%.1f%%), over %.0f%%: split it", pkg, n, total, 100*share, 100*maxShare)
		}
	}
}

// generated matches the marker of generated Go files.
var generated = regexp.MustCompile(`(?m)^// Code generated .* DO NOT EDIT\.$`)

// inModule is an import path of the module relative to the module ("" for
// the root).
func inModule(importPath string) string {
	return strings.TrimPrefix(strings.TrimPrefix(importPath, modulePath), "/")
}

func keys(m map[string]bool) []string { return slices.Sorted(maps.Keys(m)) }

// slowStd are standard packages the zut binary must not link, directly or
// through another package: text/template and html/template call
// reflect.Value.MethodByName, which makes the linker keep every exported
// method of every reachable type (megabytes of binary, slower starts).
var slowStd = []string{"text/template", "html/template"}

// bigStd are standard packages the zut binary does not link for their
// size, with what to do instead: go/format and go/printer are 300 KB of
// binary, and the only text zut formatted with them were its own scaffold
// templates; the image decoders are 150 KB and three initialisers at
// every start, and zut only read image sizes with them.
var bigStd = map[string]string{
	"go/format":  "write the text in gofmt's layout and check it in a test (host/extinit TestGoFormatted)",
	"go/printer": "write the text in gofmt's layout and check it in a test (host/extinit TestGoFormatted)",
	"image/png":  "read the size from the header (agent/tools ImageSize)",
	"image/jpeg": "read the size from the header (agent/tools ImageSize)",
	"image/gif":  "read the size from the header (agent/tools ImageSize)",
}

// TestNoReflectMethods fails when the binary links a package of slowStd
// or bigStd.
func TestNoReflectMethods(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if slices.Contains(slowStd, dep) {
			t.Errorf("the zut binary links %s; fill the text with plain substitution instead (see host/extinit/fill.go)", dep)
		}
		if instead, ok := bigStd[dep]; ok {
			t.Errorf("the zut binary links %s, which it keeps out for its size; %s", dep, instead)
		}
	}
}
