package extcmd

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestExtRemove(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		stdin      string
		wantStatus int
		wantOut    string // in stdout, or stderr when the status is not 0
		removed    bool
	}{
		{"--yes", []string{"remove", "--yes", "tiny"}, "", 0, "removed tiny ($ZUT_HOME/extensions/tiny)\n", true},
		{"-y after the name", []string{"remove", "tiny", "-y"}, "", 0, "removed tiny", true},
		{"no terminal to ask on", []string{"remove", "tiny"}, "y\n", 1,
			`zut: remove extension "tiny": refusing to delete $ZUT_HOME/extensions/tiny without confirmation, and stdin is not a terminal to ask on; pass --yes`, false},
		{"not installed", []string{"remove", "--yes", "other"}, "", 1,
			`zut: remove extension "other": not installed in $ZUT_HOME/extensions; zut ext list shows what is installed`, false},
		{"project-local", []string{"remove", "--yes", "local"}, "", 1,
			`zut: remove extension "local": it is project-local, in $CWD/.zut/extensions/local; zut ext remove deletes installed extensions only`, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newExtCLI(t)
			writeScriptExt(t, filepath.Join(c.home, "extensions"), "tiny", scriptExt{name: "tiny"})
			writeScriptExt(t, filepath.Join(".zut", "extensions"), "local", scriptExt{name: "local"})
			out, errOut, status := c.run(strings.NewReader(tc.stdin), tc.args...)
			got := out
			if status != 0 {
				got = errOut
			}
			if status != tc.wantStatus || !strings.Contains(c.normalize(got), tc.wantOut) {
				t.Errorf("zut ext %s: status %d, output %q; want status %d and %q", strings.Join(tc.args, " "), status, c.normalize(got), tc.wantStatus, tc.wantOut)
			}
			_, err := os.Stat(filepath.Join(c.home, "extensions", "tiny"))
			if removed := os.IsNotExist(err); removed != tc.removed {
				t.Errorf("zut ext %s: tiny removed = %v, want %v", strings.Join(tc.args, " "), removed, tc.removed)
			}
			want := "tiny"
			if tc.removed {
				want = ""
			}
			if got := c.installedNames(); got != want {
				t.Errorf("extensions directory holds %q, want %q", got, want)
			}
		})
	}
}

func TestExtEnableDisable(t *testing.T) {
	c := newExtCLI(t)
	dir := writeScriptExt(t, filepath.Join(c.home, "extensions"), "tiny", scriptExt{name: "tiny", version: "1.0.0",
		extra: `"x-custom":{"keep":[1,2]},"enabled":true,`})
	manifest := func() map[string]json.RawMessage {
		data, err := os.ReadFile(filepath.Join(dir, "extension.json"))
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatalf("manifest after rewrite is not JSON: %v\n%s", err, data)
		}
		return m
	}
	before := manifest()

	steps := []struct {
		args    []string
		wantOut string
		enabled string
		listed  string
	}{
		{[]string{"disable", "tiny"}, "disabled tiny (global, $ZUT_HOME/extensions/tiny)\n", "false", "disabled"},
		{[]string{"disable", "tiny"}, "tiny is already disabled ($ZUT_HOME/extensions/tiny)\n", "false", "disabled"},
		{[]string{"enable", "tiny"}, "enabled tiny (global, $ZUT_HOME/extensions/tiny)\n", "true", "enabled"},
		{[]string{"enable", "tiny"}, "tiny is already enabled ($ZUT_HOME/extensions/tiny)\n", "true", "enabled"},
	}
	for _, st := range steps {
		out := c.mustRun(st.args...)
		if c.normalize(out) != st.wantOut {
			t.Errorf("zut ext %s = %q, want %q", strings.Join(st.args, " "), c.normalize(out), st.wantOut)
		}
		m := manifest()
		if string(m["enabled"]) != st.enabled {
			t.Errorf("after zut ext %s: enabled = %s, want %s", strings.Join(st.args, " "), m["enabled"], st.enabled)
		}
		for k, v := range before {
			if k != "enabled" && !jsonEqual(v, m[k]) {
				t.Errorf("after zut ext %s: member %q = %s, want %s (kept)", strings.Join(st.args, " "), k, m[k], v)
			}
		}
		if list := c.mustRun("list"); !strings.Contains(list, "tiny  1.0.0    global  "+st.listed) {
			t.Errorf("zut ext list after zut ext %s:\n%s", strings.Join(st.args, " "), list)
		}
	}

	// A broken manifest can still be disabled, a missing one not.
	broken := writeScriptExt(t, filepath.Join(c.home, "extensions"), "broken", scriptExt{manifest: `{"name":"broken","exec":"./missing"}`})
	out := c.mustRun("disable", "broken")
	if !strings.Contains(out, "disabled broken") || !strings.Contains(out, "note: its manifest has a problem") {
		t.Errorf("zut ext disable broken = %q", out)
	}
	if data, _ := os.ReadFile(filepath.Join(broken, "extension.json")); !strings.Contains(string(data), `"enabled": false`) {
		t.Errorf("broken manifest after disable: %s", data)
	}
	_, errOut, status := c.run(nil, "enable", "nosuch")
	if status != 1 || !strings.Contains(c.normalize(errOut), `enable extension "nosuch": no extension of that name in $CWD/.zut/extensions or $ZUT_HOME/extensions`) {
		t.Errorf("zut ext enable nosuch: status %d, stderr %q", status, errOut)
	}
}

func jsonEqual(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}

// lockedBuffer is a bytes.Buffer safe for concurrent use.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func TestExtLogs(t *testing.T) {
	c := newExtCLI(t)
	logs := filepath.Join(c.home, "logs")
	os.MkdirAll(logs, 0o755)
	path := filepath.Join(logs, "ext-tiny.log")
	os.WriteFile(path, []byte("line one\nline two\n"), 0o644)

	if out := c.mustRun("logs", "tiny"); out != "line one\nline two\n" {
		t.Errorf("zut ext logs tiny = %q", out)
	}
	_, errOut, status := c.run(nil, "logs", "other")
	if status != 1 || !strings.Contains(c.normalize(errOut), `logs of extension "other": it is not installed, so it has no log; zut ext list shows what is installed`) {
		t.Errorf("zut ext logs other: status %d, stderr %q", status, errOut)
	}
	quiet := filepath.Join(c.home, "extensions", "quiet")
	os.MkdirAll(quiet, 0o755)
	os.WriteFile(filepath.Join(quiet, "extension.json"), []byte(`{"name": "quiet", "version": "1.0.0", "exec": "./quiet"}`), 0o644)
	_, errOut, status = c.run(nil, "logs", "quiet")
	if status != 1 || !strings.Contains(c.normalize(errOut), `logs of extension "quiet": no log at $ZUT_HOME/logs/ext-quiet.log; it is written once the extension has run`) {
		t.Errorf("zut ext logs quiet (installed, never run): status %d, stderr %q", status, errOut)
	}

	t.Run("follow", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var out lockedBuffer
		e := &Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &out, Getenv: func(k string) string { return c.vars[k] }, Home: c.vars["ZUT_HOME"]}
		done := make(chan error, 1)
		go func() { done <- Run(ctx, e, []string{"logs", "-f", "tiny"}) }()
		waitFor := func(want string) {
			t.Helper()
			deadline := time.Now().Add(extWait)
			for out.String() != want {
				if time.Now().After(deadline) {
					t.Fatalf("zut ext logs -f printed %q, want %q", out.String(), want)
				}
				time.Sleep(10 * time.Millisecond)
			}
		}
		waitFor("line one\nline two\n")
		f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString("line three\n")
		f.Close()
		waitFor("line one\nline two\nline three\n")
		// A truncated log starts over.
		os.WriteFile(path, []byte("fresh\n"), 0o644)
		waitFor("line one\nline two\nline three\nfresh\n")
		cancel()
		if err := <-done; err != nil {
			t.Errorf("zut ext logs -f after an interrupt = %v, want nil", err)
		}
	})
}
