package host

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

func TestProcStat(t *testing.T) {
	dir := t.TempDir()
	file := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		name, path string
		state      byte
		pgrp       int
		ok         bool
	}{
		{"self", "/proc/self/stat", 0, syscall.Getpgrp(), true},
		{"missing", "/proc/0/stat", 0, 0, false},
		{"name with parentheses", file("paren", "42 (a) (b c) S 1 4242 4242 0 -1 4194560 97 0 0 0\n"), 'S', 4242, true},
		{"last field", file("last", "42 (sh) D 1 7\n"), 'D', 7, true},
		{"no group", file("short", "42 (sh) R 1\n"), 0, 0, false},
		{"long state", file("state", "42 (sh) RR 1 7 7\n"), 0, 0, false},
		{"group not a number", file("nan", "42 (sh) R 1 7x 7\n"), 0, 0, false},
		{"no name", file("noname", "42 sh R 1 7 7\n"), 0, 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			state, pgrp, ok := procStat(tc.path)
			if ok != tc.ok || pgrp != tc.pgrp || ok && state == 0 || tc.state != 0 && state != tc.state {
				t.Errorf("procStat(%q) = %q, %d, %v; want %q, pgrp %d, %v", tc.path, state, pgrp, ok, tc.state, tc.pgrp, tc.ok)
			}
		})
	}
}

// TestBusyProbe: a spinning process group is kept from finishing by the
// CPU it wants, a sleeping one is not.
func TestBusyProbe(t *testing.T) {
	tests := []struct {
		name   string
		script string
		want   bool
	}{
		{"spinning", "while :; do :; done", true},
		{"sleeping", "sleep 30", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command("sh", "-c", tc.script)
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); cmd.Wait() }()
			p := newBusyProbe(cmd.Process.Pid)
			// The state is sampled: ask until it shows, within a hang guard.
			deadline := time.Now().Add(60 * time.Second)
			for {
				time.Sleep(50 * time.Millisecond)
				if p.busy() == tc.want {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("busy() = %v for 60s, want %v", !tc.want, tc.want)
				}
			}
		})
	}
}

func TestSchedWait(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name, content string
		want          time.Duration
	}{
		{"fields", "1000 2500000 7\n", 2500 * time.Microsecond},
		{"short", "1000\n", 0},
		{"not a number", "1 x 2\n", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(dir, tc.name)
			os.WriteFile(p, []byte(tc.content), 0o600)
			if got := schedWait(p); got != tc.want {
				t.Errorf("schedWait(%q) = %v, want %v", tc.content, got, tc.want)
			}
		})
	}
	if got := schedWait(filepath.Join(dir, "missing")); got != 0 {
		t.Errorf("schedWait(missing) = %v, want 0", got)
	}
}
