package tools

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/zut-go/zut/provider"
)

// TestSpillKeepsTail: past maxSaved the saved file holds a marker and
// exactly the last part of the stream, whatever the write sizes.
func TestSpillKeepsTail(t *testing.T) {
	var stream []byte
	for i := range 4000 {
		stream = fmt.Appendf(stream, "line %d\n", i)
	}
	for _, chunk := range []int{1, 7, 100, 999, 5000, len(stream)} {
		t.Run(fmt.Sprint("chunks of ", chunk), func(t *testing.T) {
			c := newCapture(10, 100, t.TempDir(), "s1")
			c.maxSaved = 2000
			for p := stream; len(p) > 0; {
				n := min(chunk, len(p))
				c.Write(p[:n])
				p = p[n:]
			}
			text, saved := c.finish()
			data, err := os.ReadFile(saved)
			if err != nil {
				t.Fatal(err)
			}
			mark, rest, ok := bytes.Cut(data, []byte("\n"))
			if !ok || !bytes.HasPrefix(mark, []byte("[zut: the first")) || !bytes.Contains(mark, []byte("dropped")) {
				t.Fatalf("saved file starts %q, want the dropped marker", data[:min(len(data), 120)])
			}
			if len(data) > int(c.maxSaved)+len(mark)+1 || !bytes.HasSuffix(stream, rest) || len(rest) < int(c.maxSaved)/2 {
				t.Fatalf("saved file holds %d bytes after the marker, want the stream's last %d..%d", len(rest), c.maxSaved/2, c.maxSaved)
			}
			var dropped int64
			fmt.Sscanf(strings.TrimPrefix(string(mark), "[zut: the first"), "%d", &dropped)
			if dropped != int64(len(stream)-len(rest)) {
				t.Errorf("marker says %d bytes dropped, want %d", dropped, len(stream)-len(rest))
			}
			if !strings.Contains(text, "too much to keep: its last") {
				t.Errorf("rendered output does not say only the last part was saved:\n%s", text)
			}
		})
	}
}

// TestBashOutputCapped: an endless-looking command leaves at most
// MaxSavedOutput bytes (plus the marker) in a 0600 file inside a 0700
// TempDir it created.
func TestBashOutputCapped(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 96 MiB")
	}
	cfg := testConfig(t)
	cfg.TempDir = filepath.Join(t.TempDir(), "outputs")
	cfg.SessionID = "sess-1"
	r, d := bash(t, cfg, "yes | head -c 100663296", 60)
	if d.FullOutput == "" {
		t.Fatalf("no saved output: %s", r.Text())
	}
	fi, err := os.Stat(d.FullOutput)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() > MaxSavedOutput+200 {
		t.Errorf("saved output is %d bytes, want at most %d plus the marker", fi.Size(), MaxSavedOutput)
	}
	if !strings.HasPrefix(filepath.Base(d.FullOutput), "zut-bash-sess-1-") {
		t.Errorf("saved output %s is not named after the session", d.FullOutput)
	}
	if runtime.GOOS != "windows" {
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("mode of the saved output = %04o, want 0600", fi.Mode().Perm())
		}
		if di, _ := os.Stat(cfg.TempDir); di.Mode().Perm() != 0o700 {
			t.Errorf("mode of TempDir = %04o, want 0700", di.Mode().Perm())
		}
	}
}

func TestCleanOutput(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	files := []struct {
		name string
		age  time.Duration
		gone bool
	}{
		{"zut-bash-ended-1.log", time.Minute, true},
		{"zut-bash-other-2.log", time.Minute, false},
		{"zut-bash-other-3.log", 25 * time.Hour, true},
		{"zut-bash-endedx-4.log", time.Minute, false}, // another session whose ID starts alike
		{"notes.log", 48 * time.Hour, false},
	}
	for _, f := range files {
		p := filepath.Join(dir, f.name)
		os.WriteFile(p, []byte("x"), 0o600)
		os.Chtimes(p, now.Add(-f.age), now.Add(-f.age))
	}
	if err := CleanOutput(dir, "ended", now); err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		_, err := os.Stat(filepath.Join(dir, f.name))
		if gone := os.IsNotExist(err); gone != f.gone {
			t.Errorf("%s: gone = %v, want %v", f.name, gone, f.gone)
		}
	}
	if err := CleanOutput(filepath.Join(dir, "missing"), "x", now); err != nil {
		t.Errorf("CleanOutput(missing dir) = %v, want nil", err)
	}
}

// TestBashEnvWithholdsKeys: commands do not see model keys unless the
// app passes an environment that has them.
func TestBashEnvWithholdsKeys(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-secret")
	t.Setenv("ZUTCORE_RPC_TOKEN", "rpc-secret")
	t.Setenv("ZUT_TEST_VISIBLE", "yes")
	t.Setenv(provider.PassKeysEnv, "")
	cfg := testConfig(t) // Env nil → withDefaults scrubs
	r, _ := bash(t, cfg, "env", 30)
	if out := r.Text(); strings.Contains(out, "secret") || !strings.Contains(out, "ZUT_TEST_VISIBLE=yes") {
		t.Errorf("bash env shows keys or lost the rest:\n%s", out)
	}
	t.Setenv(provider.PassKeysEnv, "1")
	cfg = testConfig(t)
	if r, _ := bash(t, cfg, "echo $ANTHROPIC_API_KEY", 30); !strings.Contains(r.Text(), "sk-ant-secret") {
		t.Errorf("with %s=1 the key did not pass: %q", provider.PassKeysEnv, r.Text())
	}
}
