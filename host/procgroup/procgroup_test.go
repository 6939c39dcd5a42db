//go:build unix

package procgroup_test

import (
	"bufio"
	"context"
	"errors"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/zut-go/zut/host/procgroup"
)

// waitLimit guards waits for something that must happen; it is not a
// timing assertion.
const waitLimit = 30 * time.Second

// family is a shell that starts a grandchild in its group, prints the
// grandchild's pid, and waits for it.
const family = `sleep 300 & echo $!; wait`

// startFamily starts cmd (a shell running family) and returns the
// grandchild's pid once the shell printed it.
func startFamily(t *testing.T, cmd *exec.Cmd) int {
	t.Helper()
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		procgroup.Kill(cmd.Process.Pid)
		cmd.Wait()
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("read the grandchild's pid: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatalf("the shell printed %q, want a pid", line)
	}
	return pid
}

// waitExit reaps cmd and returns the signal that ended it.
func waitExit(t *testing.T, cmd *exec.Cmd) syscall.Signal {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			t.Fatalf("Wait() = %v, want the shell ended by a signal", err)
		}
		ws := ee.Sys().(syscall.WaitStatus)
		if !ws.Signaled() {
			t.Fatalf("Wait() = %v, want the shell ended by a signal", err)
		}
		return ws.Signal()
	case <-time.After(waitLimit):
		t.Fatal("the shell did not exit")
		return 0
	}
}

// awaitGone waits until the group led by pid is empty.
func awaitGone(t *testing.T, pid int) {
	t.Helper()
	if !procgroup.AwaitEmpty(pid, waitLimit) {
		t.Fatalf("the process group %d still has members", pid)
	}
}

// The tests run in parallel: the orphaned grandchild's zombie is reaped
// by the system's init, which may take it a while.

func TestSignals(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		stop func(pid int) error
		want syscall.Signal
	}{
		{"Kill", procgroup.Kill, syscall.SIGKILL},
		{"Terminate", procgroup.Terminate, syscall.SIGTERM},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command("sh", "-c", family)
			procgroup.Set(cmd)
			grandchild := startFamily(t, cmd)
			leader := cmd.Process.Pid
			if !procgroup.Alive(leader) {
				t.Fatalf("Alive(%d) = false for a running group", leader)
			}
			if pgid, err := syscall.Getpgid(grandchild); err != nil || pgid != leader {
				t.Fatalf("Getpgid(grandchild) = %d, %v; want the shell's group %d", pgid, err, leader)
			}
			if err := tc.stop(leader); err != nil {
				t.Fatalf("%s(%d) = %v", tc.name, leader, err)
			}
			if got := waitExit(t, cmd); got != tc.want {
				t.Errorf("after %s the shell ended by %v, want %v", tc.name, got, tc.want)
			}
			awaitGone(t, leader)
			if procgroup.Alive(leader) {
				t.Errorf("Alive(%d) = true after %s reached the whole group", leader, tc.name)
			}
		})
	}
}

// TestCommandCancel checks that ending the context of a Command kills its
// whole group, the grandchild too.
func TestCommandCancel(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cmd := procgroup.Command(ctx, "sh", "-c", family)
	startFamily(t, cmd)
	leader := cmd.Process.Pid
	cancel()
	if got := waitExit(t, cmd); got != syscall.SIGKILL {
		t.Errorf("after cancel the shell ended by %v, want SIGKILL", got)
	}
	awaitGone(t, leader)
}

// TestNoProcess checks that a pid of 0 or less names no process: nothing
// is signalled (kill(0) would reach the caller's own group).
func TestNoProcess(t *testing.T) {
	for _, pid := range []int{0, -1} {
		if err := procgroup.Kill(pid); err != nil {
			t.Errorf("Kill(%d) = %v, want nil", pid, err)
		}
		if err := procgroup.Terminate(pid); err != nil {
			t.Errorf("Terminate(%d) = %v, want nil", pid, err)
		}
		if procgroup.Alive(pid) {
			t.Errorf("Alive(%d) = true, want false", pid)
		}
		if !procgroup.AwaitEmpty(pid, time.Millisecond) {
			t.Errorf("AwaitEmpty(%d) = false, want true", pid)
		}
	}
}
