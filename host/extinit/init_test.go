package extinit

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"go/format"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zut-go/zut/ext/node"
	"github.com/zut-go/zut/ext/python"
	"github.com/zut-go/zut/host"
	"github.com/zut-go/zut/proto"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

var allLangs = []string{LangGo, LangPython, LangNode, LangSh}

// sdkFiles are the files Init copies from the SDK packages.
var sdkFiles = map[string][]byte{
	python.FileName:          python.Source(),
	node.FileName:            node.Source(),
	node.TypesFileName:       node.Types(),
	node.ModuleTypesFileName: node.ModuleTypes(),
}

// TestGolden compares the scaffold of every language, with every
// feature, with testdata/golden/<lang>; the SDK copies are compared with
// the SDKs.
func TestGolden(t *testing.T) {
	for _, lang := range allLangs {
		t.Run(lang, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "demo")
			if err := Init(dir, "demo", Options{Lang: lang, Command: true, Tool: true, Panel: true}); err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", "golden", lang)
			entries, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			if *update {
				os.RemoveAll(golden)
				os.MkdirAll(golden, 0o755)
			}
			var names []string
			for _, e := range entries {
				names = append(names, e.Name())
				got, _ := os.ReadFile(filepath.Join(dir, e.Name()))
				info, _ := e.Info()
				exe := info.Mode().Perm()&0o100 != 0
				if want, ok := sdkFiles[e.Name()]; ok {
					if !bytes.Equal(got, want) || exe {
						t.Errorf("%s is not the SDK file as it is", e.Name())
					}
					continue
				}
				if wantExe := e.Name() == "main.py" || e.Name() == "main.mjs" || e.Name() == "main.sh" || e.Name() == "test.sh"; exe != wantExe {
					t.Errorf("%s: executable %v, want %v", e.Name(), exe, wantExe)
				}
				path := filepath.Join(golden, e.Name())
				if *update {
					if err := os.WriteFile(path, got, 0o644); err != nil {
						t.Fatal(err)
					}
					continue
				}
				want, err := os.ReadFile(path)
				if err != nil || !bytes.Equal(got, want) {
					t.Errorf("%s differs from %s (%v); review and run go test ./host/extinit -update\n--- got\n%s", e.Name(), path, err, got)
				}
			}
			if golden, _ := os.ReadDir(golden); !*update && len(golden)+countSDK(names) != len(names) {
				t.Errorf("scaffold has %v; the golden directory has %d files", names, len(golden))
			}
		})
	}
}

func countSDK(names []string) int {
	n := 0
	for _, name := range names {
		if _, ok := sdkFiles[name]; ok {
			n++
		}
	}
	return n
}

// TestScaffoldsLoad loads scaffolds of every language through the real
// host and uses what they registered, then runs the test each scaffold
// ships for its author.
func TestScaffoldsLoad(t *testing.T) {
	combos := []struct {
		name string
		opts Options
	}{
		{"default", Options{}},
		{"tool", Options{Tool: true}},
		{"all", Options{Command: true, Tool: true, Panel: true}},
	}
	for _, lang := range allLangs {
		for _, c := range combos {
			t.Run(lang+"/"+c.name, func(t *testing.T) {
				t.Parallel() // each its own directory and host; mostly waiting on builds and processes
				needRuntime(t, lang)
				name := "x." + lang + "-" + c.name
				dir := scaffoldDir(t, lang, name)
				opts := c.opts
				opts.Lang = lang
				if err := Init(dir, name, opts); err != nil {
					t.Fatal(err)
				}
				if lang == LangGo {
					goCmd(t, dir, "build", "-o", name, ".")
				}
				if _, err := host.ReadManifest(dir); err != nil {
					t.Fatalf("ReadManifest: %v", err)
				}
				exercise(t, dir, name, opts)
				if c.name == "all" {
					authorTest(t, dir, lang)
				}
			})
		}
	}
}

func needRuntime(t *testing.T, lang string) {
	t.Helper()
	tools := map[string][]string{LangGo: {"go"}, LangPython: {"python3"}, LangNode: {"node"}, LangSh: {"jq"}}[lang]
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil && !(tool == "go" && goTool() != "") {
			t.Skipf("%s is not on PATH; the %s scaffold needs it", tool, lang)
		}
	}
}

// scaffoldDir returns where to write the scaffold name. A Go scaffold
// goes inside this module, under testdata, so that it builds with the
// module's go.mod, as in the zut repository.
func scaffoldDir(t *testing.T, lang, name string) string {
	t.Helper()
	if lang != LangGo {
		return filepath.Join(t.TempDir(), name)
	}
	tmp, err := os.MkdirTemp("testdata", "scaffold-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	abs, err := filepath.Abs(filepath.Join(tmp, name))
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

func goTool() string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	if p := filepath.Join(runtime.GOROOT(), "bin", "go"); fileExists(p) {
		return p
	}
	return ""
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func goCmd(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command(goTool(), args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go %s in %s: %v\n%s", strings.Join(args, " "), dir, err, out)
	}
}

// exercise starts a host on the scaffold and uses each feature.
func exercise(t *testing.T, dir, name string, opts Options) {
	t.Helper()
	var mu sync.Mutex
	var notes []string
	noted := make(chan struct{}, 16)
	cb := host.Callbacks{Notify: func(ext, level, msg string) {
		mu.Lock()
		notes = append(notes, msg)
		mu.Unlock()
		noted <- struct{}{}
	}}
	home := t.TempDir()
	h, err := host.Start(context.Background(), host.Config{Home: home, CWD: t.TempDir(), ExtDirs: []string{dir}, Callbacks: cb})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		h.Close(context.Background())
		log, _ := os.ReadFile(host.LogPath(home, name))
		if !strings.Contains(string(log), "shutdown acknowledged") || strings.Contains(string(log), "no exit within") {
			t.Errorf("the scaffold did not acknowledge shutdown and exit in time; log:\n%s", log)
		}
	}()
	r := h.Diagnostics()[0]
	if r.Status != host.StatusOK || len(r.Warnings) != 0 {
		log, _ := os.ReadFile(r.Log)
		t.Fatalf("status %s, warnings %q, error %s; log:\n%s", r.Status, r.Warnings, r.Error, log)
	}
	ctx := context.Background()
	if opts.Command || !opts.Tool && !opts.Panel {
		resp, err := h.InvokeCommand(ctx, name, "hi")
		if err != nil || resp.Display != name+": hi" {
			t.Errorf("/%s hi = %+v, %v", name, resp, err)
		}
	}
	if opts.Tool {
		tool := strings.ReplaceAll(name, ".", "_")
		res, err := h.CallTool(ctx, tool, json.RawMessage(`{"text":"hi"}`))
		if err != nil || res.IsError || len(res.Content) != 1 || res.Content[0].Text != "HI" {
			t.Errorf("%s(hi) = %+v, %v", tool, res, err)
		}
		res, err = h.CallTool(ctx, tool, json.RawMessage(`{}`))
		if err != nil || !res.IsError {
			t.Errorf("%s({}) = %+v, %v; want an error result", tool, res, err)
		}
	}
	if opts.Panel {
		resp, err := h.InvokeCommand(ctx, name+"-panel", "")
		if err != nil || resp.Action != proto.ActionOpenPanel || resp.OpenPanel == nil || resp.OpenPanel.Lines[0] != "› first item" {
			t.Fatalf("/%s-panel = %+v, %v", name, resp, err)
		}
		h.PanelKey(name+"-panel", "down", "")
		h.PanelKey(name+"-panel", "enter", "")
		timeout := time.After(30 * time.Second)
		for {
			mu.Lock()
			got := strings.Join(notes, "|")
			mu.Unlock()
			if got == "picked second item" {
				break
			}
			select {
			case <-noted:
			case <-timeout:
				t.Fatalf("notes = %q, want the item picked in the panel", got)
			}
		}
		if _, id := h.Panel(); id != "" {
			t.Errorf("panel %s still open after enter", id)
		}
	}
}

// authorTest runs the test the scaffold ships, as its README says.
func authorTest(t *testing.T, dir, lang string) {
	t.Helper()
	if testing.Short() && lang == LangGo {
		t.Log("-short: not running the Go scaffold's go test")
		return
	}
	var cmd *exec.Cmd
	switch lang {
	case LangGo:
		cmd = exec.Command(goTool(), "test", "-count=1", ".")
	case LangPython:
		cmd = exec.Command("python3", "-m", "unittest")
	case LangNode:
		cmd = exec.Command("node", "--test")
	case LangSh:
		cmd = exec.Command("sh", "test.sh")
	}
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the scaffold's own test (%s) failed: %v\n%s", strings.Join(cmd.Args, " "), err, out)
	}
}

func TestInitErrors(t *testing.T) {
	tmp := t.TempDir()
	full := filepath.Join(tmp, "full")
	os.MkdirAll(full, 0o755)
	os.WriteFile(filepath.Join(full, "keep"), []byte("x"), 0o644)
	file := filepath.Join(tmp, "file")
	os.WriteFile(file, []byte("x"), 0o644)
	tests := []struct {
		name, dir, ext string
		opts           Options
		want           string
	}{
		{"bad name", filepath.Join(tmp, "a"), "-x", Options{}, `init extension: name "-x" may use only letters`},
		{"empty name", filepath.Join(tmp, "b"), "", Options{}, "init extension: name is empty"},
		{"long name", filepath.Join(tmp, "c"), strings.Repeat("n", 65), Options{}, "is longer than 64 bytes"},
		{"slash", filepath.Join(tmp, "d"), "a/b", Options{}, `"a/b" may use only`},
		{"language", filepath.Join(tmp, "e"), "x", Options{Lang: "cobol"}, `init extension "x": unknown language "cobol"; use go, python, node or sh`},
		{"not empty", full, "x", Options{}, "already exists and is not empty; choose another directory (--dir) or remove it"},
		{"a file", file, "x", Options{}, "is not a directory zut can write into"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := Init(tc.dir, tc.ext, tc.opts)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Init(%q, %q) = %v, want %q", tc.dir, tc.ext, err, tc.want)
			}
		})
	}
	entries, _ := os.ReadDir(tmp)
	if len(entries) != 2 {
		t.Errorf("%s holds %d entries after the failures, want the 2 it had", tmp, len(entries))
	}
	if entries, _ := os.ReadDir(full); len(entries) != 1 {
		t.Errorf("Init wrote into a non-empty directory: %v", entries)
	}
}

func TestRun(t *testing.T) {
	tmp := t.TempDir()
	tests := []struct {
		name  string
		args  []string
		usage bool   // a *UsageError
		out   string // part of stdout
		err   string // part of the error
		files []string
	}{
		{"flags after the name", []string{"my-ext", "--lang", "node", "--tool", "--dir", filepath.Join(tmp, "n")}, false,
			"created " + filepath.Join(tmp, "n") + ": a node extension named my-ext", "", []string{"main.mjs", "zut_ext.mjs"}},
		{"default python", []string{"--dir", filepath.Join(tmp, "p"), "py"}, false, "python3 -m unittest", "", []string{"main.py", "zut_ext.py"}},
		{"go", []string{"g", "--lang=go", "--panel", "--dir", filepath.Join(tmp, "g")}, false, "zut ext install --build=go .", "", []string{"main.go", ".gitignore"}},
		{"help", []string{"-h"}, false, "usage: zut ext init <name>", "", nil},
		{"no name", nil, true, "", "give the extension's name", nil},
		{"two names", []string{"a", "b"}, true, "", `one name only, got ["a" "b"]`, nil},
		{"unknown flag", []string{"a", "--colour"}, true, "", "flag provided but not defined: -colour", nil},
		{"bad language", []string{"a", "--lang", "cobol", "--dir", filepath.Join(tmp, "c")}, false, "", `unknown language "cobol"`, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := Run(context.Background(), tc.args, &stdout, &stderr)
			var ue *UsageError
			if errors.As(err, &ue) != tc.usage {
				t.Errorf("Run(%q) = %v, want a usage error: %v", tc.args, err, tc.usage)
			}
			if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
				t.Errorf("Run(%q) = %v, want %q", tc.args, err, tc.err)
			}
			if !strings.Contains(stdout.String(), tc.out) {
				t.Errorf("Run(%q) stdout = %q, want %q in it", tc.args, stdout.String(), tc.out)
			}
			if tc.usage && !strings.Contains(stderr.String(), "usage: zut ext init") {
				t.Errorf("Run(%q) stderr = %q, want the usage", tc.args, stderr.String())
			}
			if len(tc.files) > 0 {
				dir := tc.args[len(tc.args)-1]
				for i, a := range tc.args {
					if a == "--dir" {
						dir = tc.args[i+1]
					}
				}
				for _, f := range tc.files {
					if !fileExists(filepath.Join(dir, f)) {
						t.Errorf("Run(%q) wrote no %s", tc.args, f)
					}
				}
			}
		})
	}
}

// TestGoFormatted renders the Go templates for every choice of parts and
// names of different lengths, and checks that gofmt would change nothing:
// render does not format them.
func TestGoFormatted(t *testing.T) {
	for _, name := range []string{"x", "demo", "a-much-longer-name"} {
		for parts := range 8 {
			d := data{Name: name, ToolName: strings.ReplaceAll(name, "-", "_"), PanelCommand: name + "-pick", Lang: LangGo,
				Command: parts&1 != 0, Tool: parts&2 != 0, Panel: parts&4 != 0}
			for _, tmpl := range []string{"go/main.go.tmpl", "go/main_test.go.tmpl"} {
				out, err := render(tmpl, d)
				if err != nil {
					t.Fatalf("render(%s, %+v): %v", tmpl, d, err)
				}
				want, err := format.Source(out)
				if err != nil {
					t.Fatalf("render(%s, %+v) is not Go: %v\n%s", tmpl, d, err, out)
				}
				if string(out) != string(want) {
					t.Errorf("render(%s, %+v) is not gofmt's layout:\n%s\ngofmt:\n%s", tmpl, d, out, want)
				}
			}
		}
	}
}
