package host

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// noHang runs fn and fails if it has not returned within waitLimit.
func noHang(t *testing.T, what string, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); fn() }()
	select {
	case <-done:
	case <-time.After(waitLimit):
		t.Fatalf("%s did not return within %s: it blocks", what, waitLimit)
	}
}

// TestManifestNotRegular: an extension.json that is a FIFO, a directory,
// a link to a device or over 1 MiB is a ManifestError at once.
func TestManifestNotRegular(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Unix special files")
	}
	tests := []struct {
		name  string
		plant func(file string)
		want  string
	}{
		{"fifo", func(file string) { syscall.Mkfifo(file, 0o644) }, "it is a named pipe (FIFO), not a regular file"},
		{"directory", func(file string) { os.Mkdir(file, 0o755) }, "it is a directory, not a regular file"},
		{"link to /dev/zero", func(file string) { os.Symlink("/dev/zero", file) }, "it is a character device"},
		{"over 1 MiB", func(file string) {
			os.WriteFile(file, []byte(`{"name":"x","exec":"./x","pad":"`+strings.Repeat("a", MaxManifest)+`"}`), 0o644)
		}, "larger than the 1 MiB limit"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "ext")
			os.Mkdir(dir, 0o755)
			tc.plant(filepath.Join(dir, ManifestFile))
			var err error
			noHang(t, "ReadManifest", func() { _, err = ReadManifest(dir) })
			var me *ManifestError
			if !errors.As(err, &me) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), ManifestFile) {
				t.Fatalf("ReadManifest = %v, want a ManifestError naming %s and %q", err, ManifestFile, tc.want)
			}
			noHang(t, "SetEnabled", func() { err = SetEnabled(dir, false) })
			if err == nil {
				t.Errorf("SetEnabled on a %s manifest succeeded", tc.name)
			}
		})
	}
}

// TestExtensionLogPrivate: the extension log is created 0600 in a 0700
// directory, and an older 0644 log is narrowed.
func TestExtensionLogPrivate(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Unix permissions")
	}
	checkNoLeaks(t)
	f := newFixture(t)
	goExt(t, f.global(), "quiet", "-tools", "echo")
	goExt(t, f.global(), "old", "-tools", "echo2")
	old := LogPath(f.home, "old")
	os.MkdirAll(filepath.Dir(old), 0o755)
	os.WriteFile(old, []byte("from an older zut\n"), 0o644)
	os.Chmod(old, 0o644)
	h := f.start(t, f.config())
	if r := report(t, h.Diagnostics(), "quiet"); r.Status != StatusOK {
		t.Fatalf("status = %q, want ok: %+v", r.Status, r)
	}
	for _, p := range []string{LogPath(f.home, "quiet"), old} {
		fi, err := os.Stat(p)
		if err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("mode of %s = %v, %v; want 0600", p, fi.Mode().Perm(), err)
		}
	}
	// The logs directory existed (0755, made above) for "old"; a fresh
	// home gets 0700.
	f2 := newFixture(t)
	goExt(t, f2.global(), "quiet", "-tools", "echo")
	f2.start(t, f2.config())
	if fi, err := os.Stat(filepath.Dir(LogPath(f2.home, "quiet"))); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("mode of the logs directory = %v, %v; want 0700", fi.Mode().Perm(), err)
	}
}

// TestExtensionEnvWithholdsKeys: an extension started without Config.Env
// does not see model keys; with Config.Env it sees exactly that.
func TestExtensionEnvWithholdsKeys(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("shell script extension")
	}
	tests := []struct {
		name    string
		env     []string
		want    []string
		wantNot []string
	}{
		{name: "nil: this process's environment without keys",
			want:    []string{"ZUT_TEST_VISIBLE=yes"},
			wantNot: []string{"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ZUTCORE_RPC_TOKEN", "CORP_APIKEY"}},
		{name: "Config.Env is used as is", env: []string{"ONLY=this"},
			want: []string{"ONLY=this"}, wantNot: []string{"ZUT_TEST_VISIBLE"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("ANTHROPIC_API_KEY", "sk-ant-secret")
			t.Setenv("ANTHROPIC_AUTH_TOKEN", "tok-secret")
			t.Setenv("ZUTCORE_RPC_TOKEN", "rpc-secret")
			t.Setenv("CORP_APIKEY", "corp-secret")
			t.Setenv("ZUT_TEST_VISIBLE", "yes")
			f := newFixture(t)
			out := filepath.Join(t.TempDir(), "env.txt")
			dir := filepath.Join(f.global(), "envdump")
			writeScript(t, filepath.Join(dir, "run.sh"), "#!/bin/sh\nenv > '"+out+"'\n")
			writeManifest(t, dir, map[string]any{"name": "envdump", "exec": "./run.sh"})
			cfg := f.config()
			cfg.Env = tc.env
			h := f.start(t, cfg)
			report(t, h.Diagnostics(), "envdump") // it exits without a hello; the dump is written before
			data, err := os.ReadFile(out)
			if err != nil {
				t.Fatalf("the extension wrote no environment: %v", err)
			}
			env := string(data)
			for _, w := range tc.want {
				if !strings.Contains(env, w) {
					t.Errorf("extension environment lacks %q", w)
				}
			}
			for _, w := range tc.wantNot {
				if strings.Contains(env, w) {
					t.Errorf("extension environment has %q", w)
				}
			}
		})
	}
}
