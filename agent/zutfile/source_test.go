package zutfile

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// bareRepos makes base/owner/repo.git, a bare repository whose one
// commit holds files, and returns base as a file:// URL.
func bareRepos(t *testing.T, owner, repo string, files map[string]string, links map[string]string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	base := t.TempDir()
	bareRepo(t, base, owner, repo, files, links)
	return "file://" + base
}

// bareRepo makes base/owner/repo.git.
func bareRepo(t *testing.T, base, owner, repo string, files map[string]string, links map[string]string) {
	t.Helper()
	work := writeTree(t, files)
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(work, name)); err != nil {
			t.Fatal(err)
		}
	}
	bare := filepath.Join(base, owner, repo+".git")
	git := func(dir string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=zut", "-c", "user.email=zut@example.org", "-c", "init.defaultBranch=main"}, args...)...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	git(work, "init", "-q")
	git(work, "add", "-A")
	git(work, "commit", "-q", "-m", "agent")
	os.MkdirAll(filepath.Dir(bare), 0o755)
	git(base, "clone", "-q", "--bare", work, bare)
}

// TestLoadGit loads agents from a local bare repository through the
// base URL (option and environment variable), and checks the clone is
// removed by the cleanup unless kept.
func TestLoadGit(t *testing.T) {
	agent := map[string]string{"manifest.json": `{"zutfile":1,"name":"rev","permissions":{"bash":"none"}}`, "AGENT.md": "Review."}
	files := map[string]string{"README.md": "repo"}
	for p, b := range agent {
		files["agents/rev/"+p] = b
		files[p] = b
	}
	base := bareRepos(t, "acme", "agents", files, map[string]string{"out": "/etc", "agents/up": ".."})
	big := map[string]string{"noise": noise(200<<10, 7)}
	for p, b := range agent {
		big["rev/"+p] = b
		big[p] = b
	}
	bareRepo(t, strings.TrimPrefix(base, "file://"), "acme", "big", big, nil)
	dirDigest := func(files map[string]string) string {
		a, _, err := Load(context.Background(), writeTree(t, files), LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return a.Digest
	}
	tests := []struct {
		name, src string
		env       bool // the base through ZUT_ZUTFILE_GIT_BASE, not the option
		keep      bool
		lim       Limits
		err       string
		digest    string
	}{
		{name: "a path inside", src: "acme/agents/agents/rev", digest: dirDigest(agent)},
		{name: "through the environment", src: "acme/agents/agents/rev/", env: true, digest: dirDigest(agent)},
		{name: "kept", src: "acme/agents/agents/rev", keep: true, digest: dirDigest(agent)},
		{name: "the repository's root holds a link", src: "acme/agents", err: `archive entry "agents/up": a symbolic link (to ..)`},
		{name: "no such path", src: "acme/agents/agents/none", err: "the path agents/none in " + base + "/acme/agents: not a directory of the repository's head commit"},
		{name: "a link leading out", src: "acme/agents/out", err: "the path out in " + base + "/acme/agents: not a directory"},
		{name: "a link leading up", src: "acme/agents/agents/up", err: "the path agents/up in " + base + "/acme/agents: not a directory"},
		{name: "a file", src: "acme/agents/README.md", err: "the path README.md in " + base + "/acme/agents: not a directory"},
		{name: "no such repository", src: "acme/nothing", err: "git clone " + base + "/acme/nothing: "},
		{name: "a clone over its limit", src: "acme/big/rev", lim: Limits{Clone: 64 << 10}, err: "git clone " + base + "/acme/big: the repository takes more than 64 KiB, the limit of a clone"},
		{name: "an agent over the limits", src: "acme/big", lim: Limits{Entry: 64 << 10}, err: `archive entry "noise": 200 KiB, over the limit of 64 KiB per file`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tmp := t.TempDir()
			o := LoadOptions{TempDir: tmp, Keep: tc.keep, GitBase: base, Limits: tc.lim}
			if tc.env {
				o.GitBase = ""
				t.Setenv(GitBaseEnv, base)
			}
			a, cleanup, err := Load(context.Background(), tc.src, o)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("Load(%s) = %v, want an error with %q", tc.src, err, tc.err)
				}
				if left, _ := os.ReadDir(tmp); len(left) != 0 {
					t.Errorf("a failed Load left %d entries in the temp dir", len(left))
				}
				return
			}
			if err != nil {
				t.Fatalf("Load(%s) = %v", tc.src, err)
			}
			if a.Kind != "git" || a.Digest != tc.digest || a.Manifest.Name != "rev" || a.Instructions != "Review." {
				t.Errorf("Load(%s) = kind %s digest %s name %s; want git %s rev", tc.src, a.Kind, a.Digest, a.Manifest.Name, tc.digest)
			}
			if !strings.HasPrefix(a.Dir, tmp) {
				t.Errorf("the agent is at %s, not under the temp dir %s", a.Dir, tmp)
			}
			if err := cleanup(); err != nil {
				t.Fatal(err)
			}
			left, _ := os.ReadDir(tmp)
			switch {
			case tc.keep && (a.Kept == "" || len(left) != 1):
				t.Errorf("kept = %q with %d entries in the temp dir, want the clone kept", a.Kept, len(left))
			case !tc.keep && len(left) != 0:
				t.Errorf("the cleanup left %d entries in the temp dir", len(left))
			}
		})
	}
}

// TestSplitRepo reads the sources that name a repository, and those
// that do not.
func TestSplitRepo(t *testing.T) {
	tests := []struct {
		src              string
		owner, repo, sub string
		ok               bool
	}{
		{"acme/agents", "acme", "agents", "", true},
		{"acme/agents/a/b", "acme", "agents", "a/b", true},
		{"acme/agents/a/", "acme", "agents", "a", true},
		{"acme", "", "", "", false},
		{"./acme/agents", "", "", "", false},
		{"/acme/agents", "", "", "", false},
		{"~/agents/x", "", "", "", false},
		{"acme/agent.zut", "", "", "", false},
		{"acme/agents/../x", "", "", "", false},
		{"-x/agents", "", "", "", false},
		{"ac me/agents", "", "", "", false},
		{".hidden/agents", "", "", "", false},
	}
	for _, tc := range tests {
		owner, repo, sub, ok := splitRepo(tc.src)
		if owner != tc.owner || repo != tc.repo || sub != tc.sub || ok != tc.ok {
			t.Errorf("splitRepo(%q) = %q, %q, %q, %v; want %q, %q, %q, %v", tc.src, owner, repo, sub, ok, tc.owner, tc.repo, tc.sub, tc.ok)
		}
	}
}
