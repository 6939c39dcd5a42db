package exttest

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// examplesDir is the repository's example extensions.
const examplesDir = "../../examples/extensions"

// exampleArgs are the --args the examples get: /note with text writes a
// note, so that context_prepare has something to inject.
var exampleArgs = map[string]map[string][]string{
	"context-notes": {"note": {"", "run go vet before committing"}},
	"hello":         {"echo": {"hi"}, "hello": {"", "Ana"}},
	"weather":       {"weather": {"Berlin"}},
	"todo":          {"todo": {"", "add write the report", "done 1"}},
}

// runtimes are what each non-Go example needs on PATH.
var runtimes = map[string]string{"python": "python3", "javascript": "node", "sh": "jq"}

// buildExamples copies every example into a temporary directory, building
// the Go ones there with one go build, and returns the directories by
// name, and for examples whose runtime is missing, why they cannot run.
func buildExamples(t *testing.T) (dirs, missing map[string]string) {
	t.Helper()
	ents, err := os.ReadDir(examplesDir)
	if err != nil {
		t.Fatalf("read %s: %v", examplesDir, err)
	}
	tmp := t.TempDir()
	dirs, missing = map[string]string{}, map[string]string{}
	var goPkgs []string
	for _, e := range ents {
		src := filepath.Join(examplesDir, e.Name())
		data, err := os.ReadFile(filepath.Join(src, "extension.json"))
		if !e.IsDir() || err != nil {
			continue
		}
		var m struct{ Exec, Language string }
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatalf("%s/extension.json: %v", e.Name(), err)
		}
		if m.Language != "go" {
			if rt := runtimes[m.Language]; rt != "" {
				if _, err := exec.LookPath(rt); err != nil {
					missing[e.Name()] = fmt.Sprintf("example %s needs %s, which is not on PATH; install it to test this example (jq: apt-get install -y jq)", e.Name(), rt)
					continue
				}
			}
			abs, _ := filepath.Abs(src)
			dirs[e.Name()] = abs
			continue
		}
		dst := filepath.Join(tmp, e.Name())
		if err := copyTree(src, dst); err != nil {
			t.Fatal(err)
		}
		dirs[e.Name()] = dst
		goPkgs = append(goPkgs, "./"+filepath.ToSlash(src))
	}
	if len(goPkgs) > 0 {
		bin := filepath.Join(tmp, "bin") + string(filepath.Separator)
		cmd := exec.Command(goTool(), append([]string{"build", "-o", bin}, goPkgs...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go build the Go examples: %v\n%s", err, out)
		}
		for _, p := range goPkgs {
			name := filepath.Base(p)
			var m struct{ Exec string }
			data, _ := os.ReadFile(filepath.Join(dirs[name], "extension.json"))
			json.Unmarshal(data, &m)
			if err := os.Rename(filepath.Join(bin, name), filepath.Join(dirs[name], m.Exec)); err != nil {
				t.Fatal(err)
			}
		}
	}
	return dirs, missing
}

// copyTree copies src to dst without Go sources.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if strings.HasSuffix(path, ".go") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
}

func goTool() string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	return filepath.Join(runtime.GOROOT(), "bin", "go")
}

// TestExamples runs every example through the tester: each must pass.
func TestExamples(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the Go examples; not in -short")
	}
	dirs, missing := buildExamples(t)
	names := make([]string, 0, len(dirs))
	for n := range dirs {
		names = append(names, n)
	}
	sort.Strings(names)
	for n, why := range missing {
		t.Run(n, func(t *testing.T) { t.Skip(why) })
	}
	reports := map[string]*Report{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	for _, n := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rep, err := Test(ctx, dirs[n], Options{Args: exampleArgs[n], Timeouts: generous(Timeouts{})})
			if err != nil {
				t.Errorf("Test(%s) error: %v", n, err)
				return
			}
			mu.Lock()
			reports[n] = rep
			mu.Unlock()
		}()
	}
	wg.Wait()
	for _, n := range names {
		t.Run(n, func(t *testing.T) {
			rep := reports[n]
			if rep == nil {
				t.Fatal("no report")
			}
			var text strings.Builder
			rep.WriteText(&text)
			t.Logf("%s took %v", n, rep.Duration)
			if rep.Verdict != Pass {
				t.Errorf("Test(%s).Verdict = %s, want pass; failed %q\n%s", n, rep.Verdict, rep.Failed(), text.String())
			}
			// The examples are what authors copy: they must not warn.
			if w := rep.Warned(); len(w) > 0 {
				t.Errorf("%s warns: %q\n%s", n, w, text.String())
			}
		})
	}
}
