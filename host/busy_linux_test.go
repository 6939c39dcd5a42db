package host

import (
	"os/exec"
	"syscall"
	"testing"
	"time"
)

func TestProcStat(t *testing.T) {
	tests := []struct {
		name, path string
		pgrp       int
		ok         bool
	}{
		{"self", "/proc/self/stat", syscall.Getpgrp(), true},
		{"missing", "/proc/0/stat", 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			state, pgrp, ok := procStat(tc.path)
			if ok != tc.ok || pgrp != tc.pgrp || ok && state == 0 {
				t.Errorf("procStat(%q) = %q, %d, %v; want pgrp %d, %v", tc.path, state, pgrp, ok, tc.pgrp, tc.ok)
			}
		})
	}
}

// TestGroupRunnable: a spinning process group is runnable, a sleeping one
// is not.
func TestGroupRunnable(t *testing.T) {
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
			// The state is sampled: ask until it shows, within a hang guard.
			deadline := time.Now().Add(60 * time.Second)
			for groupRunnable(cmd.Process.Pid) != tc.want {
				if time.Now().After(deadline) {
					t.Fatalf("groupRunnable = %v for 10s, want %v", !tc.want, tc.want)
				}
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
}
