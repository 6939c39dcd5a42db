package session

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
)

// LockedError is returned when another zut process holds the session file.
// PID is that process, 0 when it could not be read.
type LockedError struct {
	Path string
	PID  int
}

func (e *LockedError) Error() string {
	who := "another zut process"
	if e.PID > 0 {
		who = "zut process " + strconv.Itoa(e.PID)
		if e.PID == os.Getpid() {
			who += " (this one)"
		}
	}
	return fmt.Sprintf("open session %s: %s is using it; quit that zut first, or start a new session", e.Path, who)
}

// lockPath is the lock file beside a session file. It holds the PID of
// the process that has the session open and exists only while it is open.
func lockPath(path string) string { return path + ".lock" }

// readPID parses the PID written in a lock file, 0 if there is none.
func readPID(b []byte) int {
	pid, err := strconv.Atoi(string(bytes.TrimSpace(b)))
	if err != nil || pid <= 0 {
		return 0
	}
	return pid
}

func pidLine() []byte { return []byte(strconv.Itoa(os.Getpid()) + "\n") }
