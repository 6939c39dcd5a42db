//go:build !linux

package exttest

import (
	"os"
	"time"
)

// member is a process of an extension's process group.
type member struct {
	PID     int
	Command string
}

// groupMembers cannot list processes here.
func groupMembers(pgid int) []member { return nil }

// idleProbe cannot tell here whether processes run.
type idleProbe struct{}

func newIdleProbe(pgid int) *idleProbe { return &idleProbe{} }

func (*idleProbe) idle() (idle, known bool) { return false, false }

// unread cannot tell here.
func unread(f *os.File) int { return -1 }

// sched cannot tell here how the scheduler treats a process.
func sched(pid int) (cpu, wait time.Duration, run, ok bool) { return 0, 0, false, false }
