package worktree

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zut-go/zut/agent/internal/golden"

	"github.com/zut-go/zut/agent/tools"
)

var update = flag.Bool("update", false, "rewrite golden files")

// testRepo is a git repository with one commit on main, in a fresh
// directory, and the environment its git commands run with.
type testRepo struct {
	dir, home string
	env       []string
}

func newRepo(t *testing.T) *testRepo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed; the worktree tool needs it")
	}
	root := t.TempDir()
	r := &testRepo{dir: filepath.Join(root, "repo"), home: filepath.Join(root, "home")}
	os.MkdirAll(r.dir, 0o755)
	os.MkdirAll(r.home, 0o755)
	r.env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + r.home, "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=Test", "GIT_AUTHOR_EMAIL=test@example.com", "GIT_COMMITTER_NAME=Test", "GIT_COMMITTER_EMAIL=test@example.com",
		"GIT_AUTHOR_DATE=2024-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2024-01-01T00:00:00Z"}
	r.git(t, r.dir, "init", "--quiet", "-b", "main")
	r.write(t, "README.md", "hello\n")
	r.write(t, "src/main.go", "package main\n")
	r.write(t, ".gitignore", "*.log\n")
	r.git(t, r.dir, "add", ".")
	r.git(t, r.dir, "commit", "--quiet", "-m", "first")
	return r
}

// git runs git for the test itself (hooks allowed).
func (r *testRepo) git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env = dir, r.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func (r *testRepo) write(t *testing.T, rel, text string) {
	t.Helper()
	p := filepath.Join(r.dir, filepath.FromSlash(rel))
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte(text), 0o755); err != nil {
		t.Fatal(err)
	}
}

func (r *testRepo) tool() tools.Tool {
	return New(tools.Config{CWD: r.dir}, Config{Env: r.env})
}

func call(t *testing.T, tl tools.Tool, args map[string]any) (tools.Result, Details) {
	t.Helper()
	raw, _ := json.Marshal(args)
	res := tl.Run(context.Background(), raw, nil)
	var d Details
	if res.Details != nil {
		json.Unmarshal(res.Details, &d)
	}
	return res, d
}

// checkGolden compares got with testdata/name, rewriting it under -update.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	golden.Check(t, name, got, *update)
}

// TestToolSession runs the tool through create, list, dirty state, a
// refused and a forced remove, errors, and records the texts in
// testdata/session.golden.
func TestToolSession(t *testing.T) {
	r := newRepo(t)
	r.git(t, r.dir, "branch", "existing")
	tl := r.tool()
	dirty := func() { os.WriteFile(filepath.Join(r.dir, ".zut/worktrees/feat/notes.txt"), []byte("wip\n"), 0o644) }
	steps := []struct {
		args   map[string]any
		before func()
	}{
		{args: map[string]any{"action": "create", "branch": "feat"}},
		{args: map[string]any{"action": "create", "branch": "existing"}},
		{args: map[string]any{"action": "create", "branch": "other", "base": "existing", "path": "nested/other"}},
		{args: map[string]any{"action": "list"}},
		{args: map[string]any{"action": "list"}, before: dirty},
		{args: map[string]any{"action": "remove", "branch": "feat"}},
		{args: map[string]any{"action": "remove", "path": ".zut/worktrees/feat", "force": true}},
		{args: map[string]any{"action": "remove", "branch": "existing"}},
		{args: map[string]any{"action": "remove", "path": "."}},
		{args: map[string]any{"action": "remove", "branch": "nothing"}},
		{args: map[string]any{"action": "create", "branch": "bad..name"}},
		{args: map[string]any{"action": "create", "branch": "-x"}},
		{args: map[string]any{"action": "create", "branch": "has space"}},
		{args: map[string]any{"action": "create", "branch": "esc", "path": "../../escape"}},
		{args: map[string]any{"action": "create", "branch": "esc", "path": "/tmp/abs"}},
		{args: map[string]any{"action": "create", "branch": "existing", "base": "main"}},
		{args: map[string]any{"action": "create", "branch": "nb", "base": "no-such-ref"}},
		{args: map[string]any{"action": "create", "branch": "main"}},
		{args: map[string]any{"action": "create"}},
		{args: map[string]any{"action": "remove"}},
		{args: map[string]any{"action": "list", "force": true}},
		{args: map[string]any{"action": "prune"}},
		{args: map[string]any{"action": "list"}},
	}
	var b strings.Builder
	for i, s := range steps {
		if s.before != nil {
			s.before()
		}
		res, _ := call(t, tl, s.args)
		flag := ""
		if res.IsError {
			flag = " (error)"
		}
		raw, _ := json.Marshal(s.args)
		fmt.Fprintf(&b, "== %d %s%s\n%s\n", i+1, raw, flag, res.Text())
	}
	checkGolden(t, "session.golden", strings.ReplaceAll(b.String(), r.dir, "$REPO"))
	// zut's worktrees never show in the main worktree's status.
	if st := r.git(t, r.dir, "status", "--porcelain"); st != "" {
		t.Errorf("git status of the main worktree = %q, want clean (the worktree root ignores itself)", st)
	}
}

func TestDetailsShapes(t *testing.T) {
	r := newRepo(t)
	tl := r.tool()
	_, d := call(t, tl, map[string]any{"action": "create", "branch": "feat"})
	if d.Action != "create" || len(d.Worktrees) != 1 || !d.NewBranch {
		t.Fatalf("create Details = %+v", d)
	}
	w := d.Worktrees[0]
	head := strings.TrimSpace(r.git(t, r.dir, "rev-parse", "HEAD"))
	if w.Branch != "feat" || w.Head != head || w.Base != head || !w.Managed || w.Path != filepath.Join(r.dir, ".zut", "worktrees", "feat") {
		t.Errorf("created %+v, want branch feat at %s under .zut/worktrees", w, head)
	}
	if _, err := os.Stat(filepath.Join(w.Path, "src", "main.go")); err != nil {
		t.Errorf("the worktree has no checkout: %v", err)
	}
	os.WriteFile(filepath.Join(w.Path, "README.md"), []byte("changed\n"), 0o644)
	_, d = call(t, tl, map[string]any{"action": "list"})
	if len(d.Worktrees) != 2 || !d.Worktrees[0].Main || d.Worktrees[0].Dirty || !d.Worktrees[1].Dirty || d.Worktrees[1].Changes != 1 || d.Worktrees[1].Changed[0] != "README.md" || d.Worktrees[1].Base != head {
		t.Errorf("list Details = %+v, want a clean main and a dirty feat with README.md", d.Worktrees)
	}
	for _, tc := range []struct {
		args map[string]any
		want bool
	}{
		{map[string]any{"action": "list"}, false},
		{map[string]any{"action": "create", "branch": "x"}, true},
		{map[string]any{"action": "remove", "branch": "x"}, true},
	} {
		raw, _ := json.Marshal(tc.args)
		if got := tl.(tools.Mutator).Mutates(raw); got != tc.want {
			t.Errorf("Mutates(%s) = %v, want %v", raw, got, tc.want)
		}
	}
	if got := tl.(tools.Previewer).Preview(json.RawMessage(`{"action":"create","branch":"feat","base":"main"}`)); got != "worktree create feat from main" {
		t.Errorf("Preview = %q", got)
	}
}

// TestHooksNotRun installs hooks that fail and leave a mark, both in
// .git/hooks and through core.hooksPath, and checks that plain git runs
// them (so the test can fail) while zut's calls do not.
func TestHooksNotRun(t *testing.T) {
	r := newRepo(t)
	mark := filepath.Join(t.TempDir(), "hook-ran")
	hook := fmt.Sprintf("#!/bin/sh\necho ran >> %q\nexit 1\n", mark)
	for _, p := range []string{".git/hooks/post-checkout", "hooks/post-checkout"} {
		r.write(t, p, hook)
	}
	for _, hooksPath := range []string{"", filepath.Join(r.dir, "hooks")} {
		if hooksPath != "" {
			r.git(t, r.dir, "config", "core.hooksPath", hooksPath)
		}
		os.Remove(mark)
		// Plain git runs the hook.
		cmd := exec.Command("git", "worktree", "add", "-b", "plain"+fmt.Sprint(len(hooksPath)), filepath.Join(t.TempDir(), "plain"))
		cmd.Dir, cmd.Env = r.dir, r.env
		cmd.Run()
		if _, err := os.Stat(mark); err != nil {
			t.Fatalf("plain git worktree add did not run the post-checkout hook (hooksPath %q), so this test proves nothing: %v", hooksPath, err)
		}
		os.Remove(mark)
		res, _ := call(t, r.tool(), map[string]any{"action": "create", "branch": "zut" + fmt.Sprint(len(hooksPath))})
		if res.IsError {
			t.Fatalf("create with a failing hook installed: %s", res.Text())
		}
		if _, err := os.Stat(mark); err == nil {
			t.Errorf("zut's worktree create ran the post-checkout hook (hooksPath %q)", hooksPath)
		}
	}
}

func TestNoRepoNoGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "GIT_CEILING_DIRECTORIES=" + filepath.Dir(dir)}
	res, _ := call(t, New(tools.Config{CWD: dir}, Config{Env: env}), map[string]any{"action": "list"})
	want := "worktree: " + dir + " is not inside a git repository; worktrees need one (run git init, or work in a repository)"
	if !res.IsError || res.Text() != want {
		t.Errorf("outside a repository: %q, want %q", res.Text(), want)
	}
	t.Setenv("PATH", dir)
	res, _ = call(t, New(tools.Config{CWD: dir}, Config{}), map[string]any{"action": "list"})
	if !res.IsError || res.Text() != ErrNoGit.Error() {
		t.Errorf("without git: %q, want %q", res.Text(), ErrNoGit)
	}
	res, _ = call(t, New(tools.Config{CWD: dir}, Config{Git: filepath.Join(dir, "git")}), map[string]any{"action": "list"})
	if !res.IsError || !strings.Contains(res.Text(), "not found; install git or fix the configured path") {
		t.Errorf("with a missing configured git: %q", res.Text())
	}
}

// TestTaskAPI is the host's subagent flow: create a worktree for a task,
// change it every way, take the diff against the base, check that it
// applies to the base, remove the worktree and its branch.
func TestTaskAPI(t *testing.T) {
	r := newRepo(t)
	ctx := context.Background()
	repo, err := Open(ctx, r.dir, Config{Env: r.env, Root: filepath.Join(t.TempDir(), "tasks")})
	if err != nil {
		t.Fatal(err)
	}
	w, err := repo.Create(ctx, CreateOptions{Branch: "task/1"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(w.Path, filepath.Join("tasks", "task", "1")) {
		t.Errorf("task worktree at %s, want under the configured root", w.Path)
	}
	// A commit, an unstaged change, a staged new file, an untracked file,
	// a deletion, an ignored file and a binary file.
	os.WriteFile(filepath.Join(w.Path, "committed.txt"), []byte("committed\n"), 0o644)
	r.git(t, w.Path, "add", "committed.txt")
	r.git(t, w.Path, "commit", "--quiet", "-m", "task work")
	os.WriteFile(filepath.Join(w.Path, "README.md"), []byte("hello\nmore\n"), 0o644)
	os.WriteFile(filepath.Join(w.Path, "staged.txt"), []byte("staged\n"), 0o644)
	r.git(t, w.Path, "add", "staged.txt")
	os.WriteFile(filepath.Join(w.Path, "untracked.txt"), []byte("untracked\n"), 0o644)
	os.Remove(filepath.Join(w.Path, "src", "main.go"))
	os.WriteFile(filepath.Join(w.Path, "debug.log"), []byte("ignored\n"), 0o644)
	os.WriteFile(filepath.Join(w.Path, "blob.bin"), []byte{0, 1, 2, 255}, 0o644)
	statusBefore := r.git(t, w.Path, "status", "--porcelain")

	patch, err := repo.Diff(ctx, w.Path, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"committed.txt", "+more", "staged.txt", "untracked.txt", "deleted file mode", "src/main.go", "GIT binary patch"} {
		if !strings.Contains(patch, want) {
			t.Errorf("diff lacks %q:\n%s", want, patch)
		}
	}
	if strings.Contains(patch, "debug.log") {
		t.Errorf("diff holds the ignored debug.log:\n%s", patch)
	}
	if st := r.git(t, w.Path, "status", "--porcelain"); st != statusBefore {
		t.Errorf("Diff changed the worktree's index: status %q, was %q", st, statusBefore)
	}
	// The patch applies to the base, in the main worktree.
	pf := filepath.Join(t.TempDir(), "task.patch")
	os.WriteFile(pf, []byte(patch), 0o644)
	r.git(t, r.dir, "apply", "--check", pf)

	if err := repo.Remove(ctx, w.Path, false); err == nil || !strings.Contains(err.Error(), "uncommitted changes") {
		t.Errorf("Remove of a dirty task worktree = %v, want a refusal", err)
	}
	if err := repo.Remove(ctx, w.Path, true); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(w.Path); !os.IsNotExist(err) {
		t.Errorf("worktree directory after Remove: %v, want gone", err)
	}
	if err := repo.DeleteBranch(ctx, "task/1", false); err == nil {
		t.Error("DeleteBranch of an unmerged branch without force succeeded")
	}
	if err := repo.DeleteBranch(ctx, "task/1", true); err != nil {
		t.Fatal(err)
	}
	if out := r.git(t, r.dir, "branch", "--list", "task/1"); out != "" {
		t.Errorf("branch after DeleteBranch: %q", out)
	}
	if _, err := repo.Diff(ctx, r.dir, ""); err == nil || !strings.Contains(err.Error(), "no recorded base commit") {
		t.Errorf("Diff of the main worktree without base = %v, want the no-base error", err)
	}
}

func TestCancelled(t *testing.T) {
	r := newRepo(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res := r.tool().Run(ctx, json.RawMessage(`{"action":"list"}`), nil)
	if !res.IsError || !strings.HasPrefix(res.Text(), "worktree: aborted") {
		t.Errorf("cancelled list = %q, want the abort message", res.Text())
	}
}

// TestPlantedRoot checks that a repository shipping .zut/worktrees, or
// .zut itself, as a symbolic link (or as a file) cannot send a worktree
// outside it: create refuses with the reason and writes nothing there.
func TestPlantedRoot(t *testing.T) {
	tests := []struct {
		name  string
		plant func(r *testRepo, outside string) error
		want  string
	}{
		{"worktrees is a link", func(r *testRepo, outside string) error {
			os.MkdirAll(filepath.Join(r.dir, ".zut"), 0o755)
			return os.Symlink(outside, filepath.Join(r.dir, ".zut", "worktrees"))
		}, ".zut/worktrees is a symbolic link (to "},
		{".zut is a link", func(r *testRepo, outside string) error {
			return os.Symlink(outside, filepath.Join(r.dir, ".zut"))
		}, ".zut is a symbolic link (to "},
		{"worktrees is a file", func(r *testRepo, outside string) error {
			os.MkdirAll(filepath.Join(r.dir, ".zut"), 0o755)
			return os.WriteFile(filepath.Join(r.dir, ".zut", "worktrees"), nil, 0o644)
		}, "is a regular file, not a directory"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newRepo(t)
			outside := t.TempDir()
			if err := tc.plant(r, outside); err != nil {
				t.Fatal(err)
			}
			res, _ := call(t, r.tool(), map[string]any{"action": "create", "branch": "feat"})
			if !res.IsError || !strings.Contains(res.Text(), tc.want) {
				t.Errorf("create with %s = %q, want an error saying %q", tc.name, res.Text(), tc.want)
			}
			if entries, _ := os.ReadDir(outside); len(entries) != 0 {
				t.Errorf("create with %s wrote %d entries outside the repository", tc.name, len(entries))
			}
		})
	}
}
