package tools_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zut-go/zut/agent/tools"
	"github.com/zut-go/zut/agent/tools/syntax"
)

// TestScopeSwappedAST: the ast tool, which lives in its own package,
// checks the file it opened like the tools here (TestScopeSwapped): a link
// swapped for one out of scope between the check and the open is not
// read, for a file and for a file of a tree; a swap to another file in
// scope passes.
func TestScopeSwappedAST(t *testing.T) {
	if _, err := os.Readlink("/proc/self/fd/0"); err != nil {
		t.Skipf("the kernel does not name open files in /proc/self/fd (%v): the check before the open stands alone", err)
	}
	tests := []struct {
		name       string
		path, swap string // the path given; the link swapped in its place (in work)
		target     string // the link's new target (in the test root)
		want       string
		wantOK     bool
	}{
		{"a file, swapped out", "link.go", "link.go", "out/secret.go", "ast: link.go: was swapped for a file out of scope as it was opened, so it was not read", false},
		{"a file, swapped within the scope", "link.go", "link.go", "work/other.go", "Other", true},
		{"a file of a tree, swapped out", "tree", "tree/a.go", "out/secret.go", "was swapped for a file out of scope as it was opened", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			work := filepath.Join(root, "work")
			for p, s := range map[string]string{"work/in.go": "package p\n\nfunc Inside() {}\n", "work/other.go": "package p\n\nfunc Other() {}\n",
				"work/tree/a.go": "package p\n\nfunc TreeA() {}\n", "out/secret.go": "package p\n\nfunc Secret() {}\n"} {
				full := filepath.Join(root, p)
				if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.Symlink(filepath.Join(work, "in.go"), filepath.Join(work, "link.go")); err != nil {
				t.Skip(err)
			}
			cfg := tools.Config{CWD: work, Home: root, TempDir: root, Scope: &tools.Scope{Write: []string{work}}}
			swapped := false
			tools.SetScopeSwapHook(t, func(string) {
				if swapped {
					return
				}
				link := filepath.Join(work, tc.swap)
				if err := os.Remove(link); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(filepath.Join(root, tc.target), link); err != nil {
					t.Fatal(err)
				}
				swapped = true
			})
			raw, _ := json.Marshal(map[string]any{"action": "outline", "path": tc.path})
			r := syntax.New(cfg, syntax.Config{}).Run(context.Background(), raw, nil)
			if !swapped {
				t.Fatalf("the link was never swapped; result %q", r.Text())
			}
			if r.IsError == tc.wantOK || !strings.Contains(r.Text(), tc.want) {
				t.Errorf("result %q (error %v), want %q (error %v)", r.Text(), r.IsError, tc.want, !tc.wantOK)
			}
			if strings.Contains(r.Text(), "Secret") || strings.Contains(string(r.Details), "Secret") {
				t.Errorf("the outside file was read: %q %s", r.Text(), r.Details)
			}
		})
	}
}
