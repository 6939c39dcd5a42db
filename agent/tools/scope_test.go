package tools

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zut-go/zut/agent/skills"
)

// TestScope: with a Scope (a packaged agent's ceiling) every file tool
// refuses a path outside its trees before touching it, write and edit
// refuse one outside Write or in a ReadOnly tree (unless a deeper Write
// tree holds it), and a symbolic link (to a file, to a
// directory, dangling) inside a tree does not lead out of it; bash
// refuses what the command gate refuses, in Validate and in Run.
func TestScope(t *testing.T) {
	cfg := testConfig(t)
	root := filepath.Dir(cfg.CWD)
	ro := filepath.Join(root, "ro") // readable, not writable
	out := filepath.Join(root, "out")
	writeFiles(t, root, map[string]string{"work/zuthome/auth.json": "key-7781\n", "work/in.txt": "in\n", "ro/r.txt": "r\n", "out/secret.txt": "secret\n",
		"out/skill/SKILL.md": "---\nname: outside\ndescription: d\n---\nbody\n"})
	for _, l := range [][2]string{
		{filepath.Join(out, "secret.txt"), "work/file-link"},
		{out, "work/dir-link"},
		{filepath.Join(out, "new.txt"), "work/dangling"},
		{"../ro", "work/ro-link"},
	} {
		if err := os.Symlink(l[0], filepath.Join(root, l[1])); err != nil {
			t.Skip(err)
		}
	}
	zutHome := filepath.Join(cfg.CWD, "zuthome")
	cfg.Scope = &Scope{Read: []string{ro}, Write: []string{cfg.CWD, filepath.Join(zutHome, "data")}, ReadOnly: []string{zutHome}, Hidden: []string{filepath.Join(zutHome, "auth.json")}, Owner: "the agent t's permissions",
		Commands: func(c string) error {
			if strings.HasPrefix(c, "echo ") {
				return nil
			}
			return errors.New("only echo")
		}}
	cfg.Skills = skills.New(skills.Skill{Name: "outside", Path: filepath.Join(out, "skill", "SKILL.md"), Dir: filepath.Join(out, "skill")})
	edit := func(p string) map[string]any {
		return map[string]any{"path": p, "edits": []map[string]string{{"oldText": "secret", "newText": "x"}}}
	}
	tests := []struct {
		name string
		tool Tool
		args map[string]any
		want string // "" for success
	}{
		{"read inside the write tree", &readTool{cfg}, map[string]any{"path": "in.txt"}, ""},
		{"read inside the read tree", &readTool{cfg}, map[string]any{"path": filepath.Join(ro, "r.txt")}, ""},
		{"read through a link into the read tree", &readTool{cfg}, map[string]any{"path": "ro-link/r.txt"}, ""},
		{"read outside", &readTool{cfg}, map[string]any{"path": filepath.Join(out, "secret.txt")}, "is outside what the agent t's permissions may read"},
		{"read through a file link", &readTool{cfg}, map[string]any{"path": "file-link"}, "file-link (which is " + filepath.Join(out, "secret.txt") + ") is outside"},
		{"read through a directory link", &readTool{cfg}, map[string]any{"path": "dir-link/secret.txt"}, "is outside what the agent t's permissions may read"},
		{"list outside", &readTool{cfg}, map[string]any{"path": out}, "is outside"},
		{"grep outside", &grepTool{cfg}, map[string]any{"pattern": "secret", "path": out}, "grep: " + out + " is outside"},
		{"grep through a directory link", &grepTool{cfg}, map[string]any{"pattern": "secret", "path": "dir-link"}, "is outside"},
		{"write inside", &writeTool{cfg}, map[string]any{"path": "sub/dir/new.txt", "content": "x"}, ""},
		{"write in the read-only tree", &writeTool{cfg}, map[string]any{"path": filepath.Join(ro, "w.txt"), "content": "x"}, "is outside what the agent t's permissions may write (" + cfg.CWD + ", "},
		{"write in a read-only tree inside the write tree", &writeTool{cfg}, map[string]any{"path": "zuthome/consent.json", "content": "x"}, "zuthome/consent.json is in " + zutHome + ", which stays read-only to the agent t's permissions"},
		{"write in a write tree inside the read-only tree", &writeTool{cfg}, map[string]any{"path": "zuthome/data/notes.txt", "content": "x"}, ""},
		{"read in the read-only tree", &readTool{cfg}, map[string]any{"path": "zuthome/data/notes.txt"}, ""},
		{"read a hidden file", &readTool{cfg}, map[string]any{"path": "zuthome/auth.json"}, "zuthome/auth.json is in " + filepath.Join(zutHome, "auth.json") + ", which the agent t's permissions may not touch"},
		{"write through a dangling link", &writeTool{cfg}, map[string]any{"path": "dangling", "content": "x"}, "dangling (which is " + filepath.Join(out, "new.txt") + ") is outside"},
		{"write through a link to the read-only tree", &writeTool{cfg}, map[string]any{"path": "ro-link/w.txt", "content": "x"}, "is outside what the agent t's permissions may write"},
		{"edit through a file link", &editTool{cfg}, edit("file-link"), "edit: file-link (which is"},
		{"edit outside", &editTool{cfg}, edit(filepath.Join(out, "secret.txt")), "edit: " + filepath.Join(out, "secret.txt") + " is outside"},
		{"skill outside", &skillTool{index: cfg.Skills, cfg: cfg}, map[string]any{"name": "outside"}, "skill: " + filepath.Join(out, "skill", "SKILL.md") + " is outside"},
		{"bash the gate allows", &bashTool{cfg}, map[string]any{"command": "echo hi", "timeout": 30}, ""},
		{"bash the gate refuses", &bashTool{cfg}, map[string]any{"command": "cat in.txt", "timeout": 30}, "bash: only echo; the command was not run"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			raw, _ := json.Marshal(tc.args)
			var verr error
			if v, ok := tc.tool.(Validator); ok {
				verr = v.Validate(raw)
			}
			r := call(t, tc.tool, tc.args)
			if tc.want == "" {
				if r.IsError || verr != nil {
					t.Fatalf("refused: %s (Validate: %v)", r.Text(), verr)
				}
				return
			}
			if !r.IsError || !strings.Contains(r.Text(), tc.want) {
				t.Errorf("result %q (error %v), want an error with %q", r.Text(), r.IsError, tc.want)
			}
			if _, mutates := tc.tool.(*readTool); !mutates && tc.tool.Definition().Name != "grep" && tc.tool.Definition().Name != "skill" {
				if verr == nil || !strings.Contains(verr.Error(), tc.want) {
					t.Errorf("Validate = %v, want the refusal before anyone is asked", verr)
				}
			}
		})
	}
	if got := readFile(t, filepath.Join(out, "secret.txt")); got != "secret\n" {
		t.Errorf("the outside file became %q", got)
	}
	for _, p := range []string{filepath.Join(out, "new.txt"), filepath.Join(ro, "w.txt"), filepath.Join(zutHome, "consent.json")} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s was written", p)
		}
	}
	// grep leaves a hidden file out of a search of the tree holding it.
	if r := call(t, &grepTool{cfg}, map[string]any{"pattern": "key-77"}); strings.Contains(r.Text(), "key-7781") || !strings.Contains(r.Text(), "No matches") {
		t.Errorf("grep over a hidden file: %s", r.Text())
	}
	// Plan, which the confirmation shows, refuses too.
	if _, err := (&writeTool{cfg}).Plan(json.RawMessage(`{"path":"dangling","content":"x"}`)); err == nil || !strings.Contains(err.Error(), "is outside") {
		t.Errorf("write Plan through a dangling link: %v, want the refusal", err)
	}
}

// TestScopeOpened: a file opened in scope whose name the kernel reports
// out of scope (a link swapped between the check and the open) is
// refused; one in scope passes.
func TestScopeOpened(t *testing.T) {
	if _, err := os.Readlink("/proc/self/fd/0"); err != nil {
		t.Skipf("the kernel does not name open files in /proc/self/fd (%v): the check before the open stands alone", err)
	}
	cfg := testConfig(t)
	out := filepath.Join(filepath.Dir(cfg.CWD), "out.txt")
	in := filepath.Join(cfg.CWD, "in.txt")
	writeFiles(t, filepath.Dir(cfg.CWD), map[string]string{"out.txt": "secret\n", "work/in.txt": "in\n"})
	cfg.Scope = &Scope{Read: []string{cfg.CWD}}
	for _, tc := range []struct {
		opened, want string
	}{{in, ""}, {out, "in.txt was swapped for " + out + " as it was opened"}} {
		f, err := os.Open(tc.opened)
		if err != nil {
			t.Fatal(err)
		}
		err = cfg.checkOpened("read", in, f, "", false)
		f.Close()
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("checkOpened of %s = %v, want %q", tc.opened, err, tc.want)
		}
	}
}

// TestScopeNone: without a Scope nothing is refused for being elsewhere.
func TestScopeNone(t *testing.T) {
	cfg := testConfig(t)
	if err := cfg.CheckScope("read", "/", false); err != nil {
		t.Errorf("CheckScope without a scope: %v", err)
	}
	cfg.Scope = &Scope{}
	if err := cfg.CheckScope("write", cfg.CWD, true); err == nil || !strings.Contains(err.Error(), "it may write nothing") {
		t.Errorf("CheckScope with an empty scope: %v, want it may write nothing", err)
	}
}

// BenchmarkCheckScope is the cost a Scope adds to each file tool call:
// the links of the path and of the trees resolved, for a file five
// directories deep in a workspace beside two other trees, with the
// fifteen hidden members of zut's home an agent's scope has.
func BenchmarkCheckScope(b *testing.B) {
	dir := b.TempDir()
	deep := filepath.Join(dir, "work", "a", "b", "c", "d")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		b.Fatal(err)
	}
	file := filepath.Join(deep, "f.go")
	os.WriteFile(file, []byte("package f\n"), 0o644)
	cfg := Config{CWD: filepath.Join(dir, "work"), Scope: &Scope{Read: []string{filepath.Join(dir, "ro"), filepath.Join(dir, "other")},
		Write: []string{filepath.Join(dir, "work")}, ReadOnly: []string{filepath.Join(dir, "zuthome")}}}
	for i := range 15 {
		cfg.Scope.Hidden = append(cfg.Scope.Hidden, filepath.Join(dir, "zuthome", fmt.Sprint("member", i)))
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := cfg.CheckScope("write", file, true); err != nil {
			b.Fatal(err)
		}
	}
}

// TestScopeSwapped: a link swapped between a scoped tool's check and its
// open (scopeSwapHook plays the race at the swapAt-th open) does not lead
// the call out of the scope: read, edit (as it reads and as it writes),
// write (the directory it writes in, the old text it shows), skill and
// grep's Go backend refuse or skip the file, and rg searches the
// directory that was checked; a swap to another file in scope passes.
func TestScopeSwapped(t *testing.T) {
	if _, err := os.Readlink("/proc/self/fd/0"); err != nil {
		t.Skipf("the kernel does not name open files in /proc/self/fd (%v): the check before the open stands alone", err)
	}
	skill := "---\nname: s\ndescription: d\n---\n"
	tests := []struct {
		name   string
		tool   func(cfg Config) Tool
		args   map[string]any
		rg     bool      // search with rg, not the Go backend
		swapAt int       // the open (1-based) before which the link is swapped
		swap   [2]string // the link (in work) and its new target (in the test root)
		want   string    // in the result
		wantOK bool      // the result is no error
		absent string    // a file (in the test root) the call must not make
	}{
		{name: "read, swapped out", tool: func(c Config) Tool { return &readTool{c} }, args: map[string]any{"path": "link"},
			swapAt: 1, swap: [2]string{"link", "out/secret.txt"}, want: "read: link was swapped for {root}/out/secret.txt as it was opened, which is out of scope"},
		{name: "read, swapped to another file in scope", tool: func(c Config) Tool { return &readTool{c} }, args: map[string]any{"path": "link"},
			swapAt: 1, swap: [2]string{"link", "work/other.txt"}, want: "other", wantOK: true},
		{name: "edit, swapped as it reads", tool: func(c Config) Tool { return &editTool{c} }, args: swapEditArgs("link"),
			swapAt: 1, swap: [2]string{"link", "out/secret.txt"}, want: "edit: link was swapped for {root}/out/secret.txt"},
		{name: "edit, directory swapped as it writes", tool: func(c Config) Tool { return &editTool{c} }, args: swapEditArgs("dlink/a.txt"),
			swapAt: 2, swap: [2]string{"dlink", "out"}, want: "edit: dlink/a.txt was swapped for {root}/out/a.txt as it was opened, which is out of scope; the call was not run; the file was not changed", absent: "out/a.txt"},
		{name: "write, directory swapped", tool: func(c Config) Tool { return &writeTool{c} }, args: map[string]any{"path": "dlink/new.txt", "content": "x"},
			swapAt: 1, swap: [2]string{"dlink", "out"}, want: "write: dlink/new.txt was swapped for {root}/out/new.txt", absent: "out/new.txt"},
		{name: "write, directory swapped within the scope", tool: func(c Config) Tool { return &writeTool{c} }, args: map[string]any{"path": "dlink/new.txt", "content": "x"},
			swapAt: 1, swap: [2]string{"dlink", "work/sub2"}, want: "created dlink/new.txt", wantOK: true},
		{name: "write, the old text swapped", tool: func(c Config) Tool { return &writeTool{c} }, args: map[string]any{"path": "link", "content": "x"},
			swapAt: 1, swap: [2]string{"link", "out/secret.txt"}, want: "write: link was swapped for {root}/out/secret.txt"},
		{name: "skill, swapped", tool: func(c Config) Tool { return &skillTool{index: c.Skills, cfg: c} }, args: map[string]any{"name": "s"},
			swapAt: 1, swap: [2]string{"skill.md", "out/SKILL.md"}, want: "skill: skill.md was swapped for {root}/out/SKILL.md"},
		{name: "grep, root swapped", tool: func(c Config) Tool { return &grepTool{c} }, args: map[string]any{"pattern": "inside|secret", "path": "dlink"},
			swapAt: 1, swap: [2]string{"dlink", "out"}, want: "grep: dlink was swapped for {root}/out as it was opened"},
		{name: "grep, a file of the tree swapped", tool: func(c Config) Tool { return &grepTool{c} }, args: map[string]any{"pattern": "inside|secret", "path": "tree"},
			swapAt: 2, swap: [2]string{"tree/f.txt", "out/secret.txt"}, want: "was swapped for a file out of scope as it was opened, so it was not searched", wantOK: true},
		{name: "grep with rg, root swapped after the check", tool: func(c Config) Tool { return &grepTool{c} }, args: map[string]any{"pattern": "inside|secret", "path": "dlink"},
			rg: true, swapAt: 2, swap: [2]string{"dlink", "out"}, want: "dlink/a.txt:1:inside", wantOK: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig(t)
			if tc.rg {
				if cfg.Ripgrep = ripgrepPath(); cfg.Ripgrep == "" {
					t.Skip("rg is not installed")
				}
				cfg.NoRipgrep = false
			}
			root := filepath.Dir(cfg.CWD)
			writeFiles(t, root, map[string]string{"work/in.txt": "inside\n", "work/other.txt": "other\n", "work/sub/a.txt": "inside\n",
				"work/sub2/keep": "", "work/tree/f.txt": "inside\n", "work/skills/SKILL.md": skill + "inside\n",
				"out/secret.txt": "secret\n", "out/SKILL.md": skill + "secret\n"})
			for _, l := range [][2]string{{"in.txt", "link"}, {"sub", "dlink"}, {"skills/SKILL.md", "skill.md"}} {
				if err := os.Symlink(filepath.Join(cfg.CWD, l[0]), filepath.Join(cfg.CWD, l[1])); err != nil {
					t.Skip(err)
				}
			}
			cfg.Scope = &Scope{Write: []string{cfg.CWD}}
			cfg.Skills = skills.New(skills.Skill{Name: "s", Path: filepath.Join(cfg.CWD, "skill.md"), Dir: cfg.CWD})
			opens, swapped := 0, false
			scopeSwapHook = func(string) {
				if opens++; opens != tc.swapAt {
					return
				}
				link := filepath.Join(cfg.CWD, tc.swap[0])
				if err := os.Remove(link); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(filepath.Join(root, tc.swap[1]), link); err != nil {
					t.Fatal(err)
				}
				swapped = true
			}
			t.Cleanup(func() { scopeSwapHook = nil })
			r := call(t, tc.tool(cfg), tc.args)
			want := strings.ReplaceAll(tc.want, "{root}", root)
			if !swapped {
				t.Fatalf("the link was never swapped (%d opens); result %q", opens, r.Text())
			}
			if r.IsError == tc.wantOK || !strings.Contains(r.Text(), want) {
				t.Errorf("result %q (error %v), want %q (error %v)", r.Text(), r.IsError, want, !tc.wantOK)
			}
			if strings.Contains(r.Text(), "secret\n") || strings.Contains(r.Text(), ":secret") {
				t.Errorf("the outside text leaked: %q", r.Text())
			}
			if got := readFile(t, filepath.Join(root, "out", "secret.txt")); got != "secret\n" {
				t.Errorf("the outside file became %q", got)
			}
			if tc.absent != "" {
				if _, err := os.Lstat(filepath.Join(root, tc.absent)); err == nil {
					t.Errorf("%s was written", tc.absent)
				}
			}
		})
	}
}

// swapEditArgs replaces "inside" in the file at p.
func swapEditArgs(p string) map[string]any {
	return map[string]any{"path": p, "edits": []map[string]string{{"oldText": "inside", "newText": "x"}}}
}
