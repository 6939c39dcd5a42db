package tools

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/zut-go/zut/agent/internal/golden"

	"github.com/zut-go/zut/agent/skills"
)

var update = flag.Bool("update", false, "rewrite golden files")

// testConfig is a Config rooted in a fresh temporary directory.
func testConfig(t *testing.T) Config {
	t.Helper()
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	cwd := filepath.Join(dir, "work")
	for _, d := range []string{home, cwd} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return Config{CWD: cwd, Home: home, TempDir: dir, NoRipgrep: true}.withDefaults()
}

// writeFiles creates files under root from slash paths to contents.
func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for p, text := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// call runs tool with args given as a Go value (encoded to JSON) or a
// string holding raw JSON.
func call(t *testing.T, tool Tool, args any) Result {
	t.Helper()
	var raw json.RawMessage
	switch a := args.(type) {
	case string:
		raw = json.RawMessage(a)
	default:
		b, err := json.Marshal(a)
		if err != nil {
			t.Fatal(err)
		}
		raw = b
	}
	return tool.Run(context.Background(), raw, nil)
}

// goldenCase is one tool output recorded in a golden file.
type goldenCase struct {
	name   string
	result Result
}

// checkGolden compares the text of each case with testdata/name, a file of
// "== name" sections, rewriting it under -update.
// Each pair of replace (old, new) is applied to the text first, to hide
// temporary paths.
func checkGolden(t *testing.T, name string, cases []goldenCase, replace ...string) {
	t.Helper()
	var b strings.Builder
	for _, c := range cases {
		b.WriteString("== " + c.name)
		if c.result.IsError {
			b.WriteString(" (error)")
		}
		b.WriteString("\n" + c.result.Text() + "\n")
	}
	golden.Check(t, name, strings.NewReplacer(replace...).Replace(b.String()), *update)
}

func TestBuiltins(t *testing.T) {
	cfg := testConfig(t)
	names := func(ts []Tool) []string {
		var out []string
		for _, tl := range ts {
			out = append(out, tl.Definition().Name)
		}
		return out
	}
	if got, want := names(Builtins(cfg)), []string{"read", "write", "edit", "bash", "grep"}; !slices.Equal(got, want) {
		t.Errorf("Builtins(no skills) = %v, want %v", got, want)
	}
	cfg.Skills = skills.New()
	ts := Builtins(cfg)
	if got, want := names(ts), []string{"read", "write", "edit", "bash", "grep", "skill"}; !slices.Equal(got, want) {
		t.Errorf("Builtins(skills) = %v, want %v", got, want)
	}
	for _, tl := range ts {
		d := tl.Definition()
		var schema map[string]any
		if err := json.Unmarshal(d.Schema, &schema); err != nil || schema["type"] != "object" {
			t.Errorf("%s: schema %s is not a JSON object schema: %v", d.Name, d.Schema, err)
		}
		if d.Description == "" {
			t.Errorf("%s: no description", d.Name)
		}
		if wantRes := d.Name == "grep"; IsReserved(d.Name) != wantRes {
			t.Errorf("IsReserved(%q) = %v, want %v (the spec reserves grep alone of these)", d.Name, !wantRes, wantRes)
		}
		if _, ok := tl.(Previewer); !ok {
			t.Errorf("%s does not implement Previewer", d.Name)
		}
		m, ok := tl.(Mutator)
		if !ok {
			t.Errorf("%s does not implement Mutator", d.Name)
			continue
		}
		wantMut := d.Name == "write" || d.Name == "edit" || d.Name == "bash"
		if got := m.Mutates(json.RawMessage(`{}`)); got != wantMut {
			t.Errorf("%s.Mutates() = %v, want %v", d.Name, got, wantMut)
		}
	}
}

func TestIsReserved(t *testing.T) {
	tests := []struct {
		name string
		want bool
	}{
		{"python", true}, {"ast", true}, {"grep", true}, {"schedule", true}, {"update_goal", true}, {"plan", true},
		{"web_search", true}, {"web_open", true}, {"web_find", true}, {"web_click", true}, {"web_anything", true},
		// Built-ins the spec does not reserve shadow only while offered.
		{"read", false}, {"bash", false}, {"skill", false}, {"worktree", false}, {"lsp", false},
		{"subagent_spawn", false}, {"subagent_status", false}, {"subagent_stop", false}, {"subagent_resume", false}, {"subagent", false},
		{"weather", false}, {"Read", false}, {"web", false}, {"webfetch", false}, {"", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := IsReserved(tc.name); got != tc.want {
				t.Errorf("IsReserved(%q) = %v, want %v", tc.name, got, tc.want)
			}
		})
	}
}

func TestPreview(t *testing.T) {
	cfg := testConfig(t)
	cfg.Skills = skills.New()
	byName := map[string]Tool{}
	for _, tl := range Builtins(cfg) {
		byName[tl.Definition().Name] = tl
	}
	tests := []struct {
		tool, args, want string
	}{
		{"read", `{"path":"a.go"}`, "read a.go"},
		{"read", `{"path":"a.go","offset":40}`, "read a.go from line 40"},
		{"write", `{"path":"b.txt","content":"x\ny\n"}`, "write b.txt (2 lines, 4 B)"},
		{"edit", `{"path":"c.go","edits":[{"oldText":"a","newText":"b"},{"oldText":"c","newText":"d"}]}`, "edit c.go (2 edits)"},
		{"bash", `{"command":"go test ./...\necho done","timeout":60}`, "$ go test ./... …"},
		{"grep", `{"pattern":"TODO","path":"src","glob":"*.go"}`, "grep TODO in src (*.go)"},
		{"skill", `{"name":"pdf"}`, "skill pdf"},
		{"bash", `[1]`, "bash (bad arguments)"},
	}
	for _, tc := range tests {
		t.Run(tc.tool, func(t *testing.T) {
			if got := byName[tc.tool].(Previewer).Preview(json.RawMessage(tc.args)); got != tc.want {
				t.Errorf("%s.Preview(%s) = %q, want %q", tc.tool, tc.args, got, tc.want)
			}
		})
	}
}

func TestArgs(t *testing.T) {
	cfg := testConfig(t)
	tests := []struct {
		name string
		tool Tool
		args string
		want string
	}{
		{"not object", &readTool{cfg}, `["a"]`, "read: arguments must be a JSON object, got an array"},
		{"bad json", &readTool{cfg}, `{"path":`, "read: arguments are not valid JSON"},
		{"unknown", &readTool{cfg}, `{"path":"a","lines":3}`, `read: unknown argument "lines" (allowed: path, offset, limit)`},
		{"missing", &readTool{cfg}, `{}`, "read: path is required"},
		{"null is absent", &readTool{cfg}, `{"path":null}`, "read: path is required"},
		{"wrong type", &readTool{cfg}, `{"path":3}`, "read: path must be a string, got a number"},
		{"fraction", &readTool{cfg}, `{"path":"a","offset":1.5}`, "read: offset must be a line number counting from 1, got 1.5"},
		{"zero", &readTool{cfg}, `{"path":"a","limit":0}`, "read: limit must be a positive number of lines, got 0"},
		{"string number", &readTool{cfg}, `{"path":"a","offset":"3"}`, `read: offset must be a line number counting from 1, got "3"`},
		{"timeout missing", &bashTool{cfg}, `{"command":"true"}`, "bash: timeout is required"},
		{"timeout zero", &bashTool{cfg}, `{"command":"true","timeout":0}`, "bash: timeout must be a positive integer number of seconds (at most 86400), got 0"},
		{"timeout string", &bashTool{cfg}, `{"command":"true","timeout":"5"}`, "bash: timeout must be a positive integer number of seconds"},
		{"timeout fraction", &bashTool{cfg}, `{"command":"true","timeout":0.5}`, "bash: timeout must be a positive integer number of seconds"},
		{"command empty", &bashTool{cfg}, `{"command":"  ","timeout":5}`, "bash: command is empty"},
		{"edits missing", &editTool{cfg}, `{"path":"a"}`, "edit: edits is required"},
		{"edits object", &editTool{cfg}, `{"path":"a","edits":{"oldText":"a","newText":"b"}}`, "edit: edits must be an array of {\"oldText\", \"newText\"} objects, got an object"},
		{"edits empty", &editTool{cfg}, `{"path":"a","edits":[]}`, "edit: edits is empty"},
		{"edit item", &editTool{cfg}, `{"path":"a","edits":["x"]}`, "edit: edits[0] must be an object"},
		{"oldText missing", &editTool{cfg}, `{"path":"a","edits":[{"oldText":"a","newText":"b"},{"newText":"c"}]}`, "edit: edits[1].oldText is required"},
		{"newText type", &editTool{cfg}, `{"path":"a","edits":[{"oldText":"a","newText":1}]}`, "edit: edits[0].newText must be a string, got a number"},
		{"edit field", &editTool{cfg}, `{"path":"a","edits":[{"oldText":"a","newText":"b","all":true}]}`, `edit: edits[0] has unknown field "all" (allowed: oldText, newText)`},
		{"flat edit", &editTool{cfg}, `{"path":"a","oldText":"a","newText":"b"}`, `edit: unknown argument "oldText"; put replacements in edits`},
		{"grep bool", &grepTool{cfg}, `{"pattern":"a","ignore_case":"yes"}`, `grep: ignore_case must be true or false, got "yes"`},
		{"grep context", &grepTool{cfg}, `{"pattern":"a","context":9}`, "grep: context must be an integer from 0 to 5, got 9"},
		{"grep regex", &grepTool{cfg}, `{"pattern":"a("}`, `grep: pattern "a(" is not a valid regular expression: missing closing ): `},
		{"grep newline", &grepTool{cfg}, `{"pattern":"a\\nb"}`, "grep: pattern \"a\\\\nb\" contains a newline"},
		{"grep glob", &grepTool{cfg}, `{"pattern":"a","glob":"[x"}`, ""},
		{"write content", &writeTool{cfg}, `{"path":"a"}`, "write: content is required"},
		{"skill name", &skillTool{index: skills.New()}, `{}`, "skill: name is required"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := call(t, tc.tool, tc.args)
			if tc.want == "" {
				return // only must not panic
			}
			if !r.IsError || !strings.HasPrefix(r.Text(), tc.want) {
				t.Errorf("Run(%s) = %q (error %v), want an error starting %q", tc.args, r.Text(), r.IsError, tc.want)
			}
		})
	}
}

func TestResolve(t *testing.T) {
	cfg := Config{CWD: "/work/proj", Home: "/home/u"}
	tests := []struct{ in, want, shown string }{
		{"a.go", "/work/proj/a.go", "a.go"},
		{"./sub/../b.go", "/work/proj/b.go", "b.go"},
		{"~", "/home/u", "/home/u"},
		{"~/notes.md", "/home/u/notes.md", "/home/u/notes.md"},
		{"~user/x", "/work/proj/~user/x", "~user/x"},
		{"/etc/hosts", "/etc/hosts", "/etc/hosts"},
		{"../other", "/work/other", "/work/other"},
		{"", "/work/proj", "."},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got := cfg.resolve(tc.in)
			if got != tc.want {
				t.Errorf("resolve(%q) = %q, want %q", tc.in, got, tc.want)
			}
			if s := cfg.display(got); s != tc.shown {
				t.Errorf("display(%q) = %q, want %q", got, s, tc.shown)
			}
		})
	}
}
