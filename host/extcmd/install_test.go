package extcmd

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// installedNames lists $ZUT_HOME/extensions, hidden entries included, so
// that a staging directory left behind shows.
func (c *extCLI) installedNames() string {
	c.t.Helper()
	des, err := os.ReadDir(filepath.Join(c.home, "extensions"))
	if err != nil && !os.IsNotExist(err) {
		c.t.Fatal(err)
	}
	var names []string
	for _, de := range des {
		names = append(names, de.Name())
	}
	return strings.Join(names, " ")
}

func TestExtInstallFromDirectory(t *testing.T) {
	c := newExtCLI(t)
	src := writeScriptExt(t, t.TempDir(), "source-dir", scriptExt{name: "tiny", version: "1.0.0", commands: []string{"t"}})
	os.MkdirAll(filepath.Join(src, "skills", "s"), 0o755)
	os.WriteFile(filepath.Join(src, "skills", "s", "SKILL.md"), []byte("---\nname: s\n---\n"), 0o644)
	os.Symlink("run.sh", filepath.Join(src, "start.sh"))
	c.subst = append(c.subst, [2]string{src, "$SRC"})

	out := c.mustRun("install", src)
	if got, want := c.normalize(out), "installed tiny 1.0.0 in $ZUT_HOME/extensions/tiny\ncheck that it loads with: zut ext doctor\n"; got != want {
		t.Errorf("zut ext install: stdout %q, want %q", got, want)
	}
	if got := c.installedNames(); got != "tiny" {
		t.Errorf("extensions directory holds %q, want only tiny", got)
	}
	dest := filepath.Join(c.home, "extensions", "tiny")
	fi, err := os.Stat(filepath.Join(dest, "run.sh"))
	if err != nil || fi.Mode().Perm()&0o111 == 0 {
		t.Errorf("installed run.sh: %v, mode %v; want an executable copy", err, fi.Mode())
	}
	if link, err := os.Readlink(filepath.Join(dest, "start.sh")); err != nil || link != "run.sh" {
		t.Errorf("installed start.sh = %q, %v; want the symlink kept", link, err)
	}
	if _, err := os.Stat(filepath.Join(dest, "skills", "s", "SKILL.md")); err != nil {
		t.Errorf("installed skills: %v", err)
	}

	// A second install of the same name is refused, then --force
	// replaces it.
	writeScriptExt(t, filepath.Dir(src), "source-dir", scriptExt{name: "tiny", version: "2.0.0"})
	_, errOut, status := c.run(nil, "install", src)
	if status != 1 || !strings.Contains(c.normalize(errOut), `install extension "tiny" from $SRC: already installed in $ZUT_HOME/extensions/tiny; remove it first (zut ext remove tiny) or pass --force`) {
		t.Errorf("second install: status %d, stderr %q; want an already-installed error", status, errOut)
	}
	if m, _ := os.ReadFile(filepath.Join(dest, "extension.json")); !strings.Contains(string(m), `"1.0.0"`) {
		t.Errorf("a refused install changed the installed manifest: %s", m)
	}
	out = c.mustRun("install", "--force", src)
	if !strings.Contains(out, "installed tiny 2.0.0") {
		t.Errorf("install --force: stdout %q", out)
	}
	if m, _ := os.ReadFile(filepath.Join(dest, "extension.json")); !strings.Contains(string(m), `"2.0.0"`) {
		t.Errorf("install --force left the old manifest: %s", m)
	}
	if got := c.installedNames(); got != "tiny" {
		t.Errorf("after --force the extensions directory holds %q, want only tiny", got)
	}
	if out := c.mustRun("doctor"); !strings.Contains(out, "tiny  ok") {
		t.Errorf("doctor after install:\n%s", out)
	}
}

// TestExtInstallRollback checks that every failing install leaves the
// extensions directory as it was.
func TestExtInstallRollback(t *testing.T) {
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "evil.sh"), []byte("#!/bin/sh\n"), 0o755)
	tests := []struct {
		name  string
		setup func(t *testing.T, dir string) // fills the source directory
		want  string
	}{
		{"manifest not JSON", func(t *testing.T, dir string) {
			writeScriptExt(t, filepath.Dir(dir), filepath.Base(dir), scriptExt{manifest: `{"name": "x",`})
		}, `install $SRC: manifest $SRC/extension.json: not a JSON object`},
		{"no manifest", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, "README"), []byte("hi"), 0o644)
		}, `install $SRC: manifest $SRC/extension.json: no such file; an extension directory needs an extension.json; nothing was installed`},
		{"exec missing", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, "extension.json"), []byte(`{"name":"x","exec":"./x"}`), 0o644)
		}, `field "exec": ./x does not exist in $SRC; build or copy the executable first; nothing was installed`},
		{"Go source not built", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, "extension.json"), []byte(`{"name":"x","exec":"./x","language":"go"}`), 0o644)
			os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\nfunc main() {}\n"), 0o644)
		}, `zut ext install never builds on its own; to build this Go extension, run: zut ext install --build=go $SRC; nothing was installed`},
		{"exec escapes through ..", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, "extension.json"), []byte(`{"name":"x","exec":"../evil.sh"}`), 0o644)
		}, `field "exec": ../evil.sh leaves the extension directory`},
		{"exec escapes through a symlink", func(t *testing.T, dir string) {
			os.Symlink(filepath.Join(outside, "evil.sh"), filepath.Join(dir, "run"))
			os.WriteFile(filepath.Join(dir, "extension.json"), []byte(`{"name":"x","exec":"./run"}`), 0o644)
		}, `field "exec": ./run resolves through a symlink to`},
		{"skills escape through a symlink", func(t *testing.T, dir string) {
			writeScriptExt(t, filepath.Dir(dir), filepath.Base(dir), scriptExt{name: "x", extra: `"skills":["sk"],`})
			os.Symlink(outside, filepath.Join(dir, "sk"))
		}, `field "skills": sk resolves through a symlink to`},
		{"bad name", func(t *testing.T, dir string) {
			writeScriptExt(t, filepath.Dir(dir), filepath.Base(dir), scriptExt{name: "../up"})
		}, `field "name": "../up" may use only letters`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newExtCLI(t)
			writeScriptExt(t, filepath.Join(c.home, "extensions"), "keep", scriptExt{name: "keep"})
			src := filepath.Join(realPath(t, t.TempDir()), "src")
			os.MkdirAll(src, 0o755)
			tc.setup(t, src)
			c.subst = append(c.subst, [2]string{src, "$SRC"})
			_, errOut, status := c.run(nil, "install", src)
			if status != 1 || !strings.Contains(c.normalize(errOut), tc.want) {
				t.Errorf("zut ext install: status %d, stderr:\n%s\nwant status 1 and %q", status, c.normalize(errOut), tc.want)
			}
			if got := c.installedNames(); got != "keep" {
				t.Errorf("after a failed install the extensions directory holds %q, want only keep", got)
			}
		})
	}
}

// gitRepo makes a git repository holding the extension s and returns its
// directory.
func gitRepo(t *testing.T, s scriptExt) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	parent := realPath(t, t.TempDir())
	dir := writeScriptExt(t, parent, "repo", s)
	for _, args := range [][]string{
		{"init", "-q"},
		{"add", "."},
		{"-c", "user.name=zut test", "-c", "user.email=test@example.invalid", "commit", "-q", "-m", "extension"},
	} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	return dir
}

func TestExtInstallFromGit(t *testing.T) {
	c := newExtCLI(t)
	repo := gitRepo(t, scriptExt{name: "cloned", version: "0.3.0", commands: []string{"cl"}})
	url := "file://" + repo
	out := c.mustRun("install", url)
	if !strings.Contains(out, "installed cloned 0.3.0 in "+filepath.Join(c.home, "extensions", "cloned")) {
		t.Errorf("install %s: stdout %q", url, out)
	}
	if _, err := os.Stat(filepath.Join(c.home, "extensions", "cloned", "run.sh")); err != nil {
		t.Errorf("the clone has no run.sh: %v", err)
	}
	if got := c.installedNames(); got != "cloned" {
		t.Errorf("extensions directory holds %q, want only cloned", got)
	}

	t.Run("bad URL", func(t *testing.T) {
		bad := "file://" + filepath.Join(repo, "missing")
		_, errOut, status := c.run(nil, "install", bad)
		if status != 1 || !strings.Contains(errOut, "install "+bad+": git clone: exit status 128:") || !strings.Contains(errOut, "nothing was installed") {
			t.Errorf("install %s: status %d, stderr %q", bad, status, errOut)
		}
		if got := c.installedNames(); got != "cloned" {
			t.Errorf("after a failed clone the extensions directory holds %q", got)
		}
	})
	t.Run("repository without a manifest", func(t *testing.T) {
		empty := gitRepo(t, scriptExt{name: "x", manifest: "{}"})
		os.Remove(filepath.Join(empty, "extension.json"))
		cmd := exec.Command("git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-qam", "rm")
		cmd.Dir = empty
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git commit: %v\n%s", err, out)
		}
		_, errOut, status := c.run(nil, "install", "file://"+empty)
		if status != 1 || !strings.Contains(errOut, "no such file; an extension directory needs an extension.json") {
			t.Errorf("install of a repository without extension.json: status %d, stderr %q", status, errOut)
		}
		if got := c.installedNames(); got != "cloned" {
			t.Errorf("after a failed install the extensions directory holds %q", got)
		}
	})
}

// tinyGoExtension is a whole extension in the standard library only, for
// --build=go.
const tinyGoExtension = `package main

import (
	"bufio"
	"fmt"
	"os"
	"strings"
)

func main() {
	fmt.Println(` + "`" + `{"type":"hello","protocol_version":2,"name":"tinygo","version":"0.1.0"}` + "`" + `)
	in := bufio.NewScanner(os.Stdin)
	in.Scan()
	fmt.Println(` + "`" + `{"type":"register_command","name":"tiny"}` + "`" + `)
	fmt.Println(` + "`" + `{"type":"ready"}` + "`" + `)
	for in.Scan() {
		if strings.Contains(in.Text(), ` + "`" + `"shutdown"` + "`" + `) {
			fmt.Println(` + "`" + `{"type":"shutdown_ack"}` + "`" + `)
			return
		}
	}
}
`

func TestExtInstallBuildGo(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not on PATH")
	}
	c := newExtCLI(t)
	src := realPath(t, t.TempDir())
	os.WriteFile(filepath.Join(src, "go.mod"), []byte("module example.com/tinygo\n\ngo 1.26\n"), 0o644)
	os.WriteFile(filepath.Join(src, "main.go"), []byte(tinyGoExtension), 0o644)
	os.WriteFile(filepath.Join(src, "extension.json"), []byte(`{"name":"tinygo","version":"0.1.0","exec":"./bin/tinygo","language":"go"}`), 0o644)

	_, errOut, status := c.run(nil, "install", src)
	if status != 1 || !strings.Contains(errOut, "install --build=go") {
		t.Errorf("install without --build=go: status %d, stderr %q; want the hint to build", status, errOut)
	}
	out := c.mustRun("install", "--build=go", src)
	if !strings.Contains(out, "installed tinygo 0.1.0") {
		t.Errorf("install --build=go: stdout %q", out)
	}
	if _, err := os.Stat(filepath.Join(src, "bin")); err == nil {
		t.Errorf("--build=go wrote into the source directory; it must build into the staged copy")
	}
	if out := c.mustRun("doctor"); !strings.Contains(out, "tinygo  ok") || !strings.Contains(out, "commands  tiny") {
		t.Errorf("doctor after install --build=go:\n%s", out)
	}

	tests := []struct {
		name, manifest, mainGo, want string
	}{
		{"bare exec", `{"name":"b","exec":"node"}`, tinyGoExtension, `--build=go: exec "node" is a command looked up on PATH; --build=go needs a relative path such as ./node`},
		{"exec outside", `{"name":"b","exec":"../b"}`, tinyGoExtension, `--build=go: exec "../b" leaves the extension directory`},
		{"compile error", `{"name":"b","exec":"./b"}`, "package main\nfunc main() { undefined() }\n", "go build in $SRC: exit status 1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := realPath(t, t.TempDir())
			c.subst = append(c.subst, [2]string{dir, "$SRC"})
			os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/b\n\ngo 1.26\n"), 0o644)
			os.WriteFile(filepath.Join(dir, "main.go"), []byte(tc.mainGo), 0o644)
			os.WriteFile(filepath.Join(dir, "extension.json"), []byte(tc.manifest), 0o644)
			_, errOut, status := c.run(nil, "install", "--build=go", dir)
			if status != 1 || !strings.Contains(c.normalize(errOut), tc.want) {
				t.Errorf("install --build=go: status %d, stderr:\n%s\nwant %q", status, c.normalize(errOut), tc.want)
			}
			if got := c.installedNames(); got != "tinygo" {
				t.Errorf("after a failed build the extensions directory holds %q", got)
			}
		})
	}
}
