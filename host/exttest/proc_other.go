//go:build !linux

package exttest

import "os"

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
