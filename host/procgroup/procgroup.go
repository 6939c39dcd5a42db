// Package procgroup owns starting child processes in a process group of
// their own and killing the group: the extension host, its MCP clients
// and the extension tester start every child this way, so that a signal
// reaches the child and everything it started together, the terminal's
// Ctrl+C reaches none of them, and nothing a child left behind outlives
// it. Where process groups do not exist (not Unix) the functions act on
// the process itself.
package procgroup

import (
	"context"
	"os/exec"
	"time"
)

// waitDelay bounds Cmd.Wait after the group was killed: a grandchild
// outside the group may hold the child's pipes open.
const waitDelay = time.Second

// Command is exec.CommandContext for a child in a process group of its
// own: when ctx ends, Cmd.Cancel kills the whole group, and Cmd.Wait gives
// up on the child's output a second after that. The caller starts and
// reaps the command as usual.
func Command(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	Set(cmd)
	cmd.Cancel = func() error { return Kill(cmd.Process.Pid) }
	cmd.WaitDelay = waitDelay
	return cmd
}

// Set makes cmd, before it starts, the leader of a new process group of
// its own. Command does it for commands with a context; Set serves those
// made with exec.Command, which the caller kills with Kill.
func Set(cmd *exec.Cmd) { set(cmd) }

// Kill sends SIGKILL to the process group led by pid. A pid of 0 or less
// is no process: Kill does nothing.
func Kill(pid int) error { return signal(pid, true) }

// Terminate sends SIGTERM to the process group led by pid, asking it to
// exit. Where there is no SIGTERM it kills the process.
func Terminate(pid int) error { return signal(pid, false) }

// Alive reports whether the process group led by pid still has members
// (zombies included). Where there are no groups it reports false.
func Alive(pid int) bool { return alive(pid) }

// AwaitEmpty gives the group led by pid up to about d to lose its last
// member, looking every 2 ms, and reports whether it is empty. SIGKILL is
// delivered asynchronously: after Kill, AwaitEmpty lets callers rely on
// the group being gone.
func AwaitEmpty(pid int, d time.Duration) bool {
	const step = 2 * time.Millisecond
	for i := time.Duration(0); i < d/step; i++ {
		if !Alive(pid) {
			return true
		}
		time.Sleep(step)
	}
	return !Alive(pid)
}
