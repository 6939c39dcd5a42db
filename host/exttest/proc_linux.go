//go:build linux

package exttest

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"
)

// member is a process of an extension's process group.
type member struct {
	PID     int
	Command string
}

// procStat is what the tester reads from /proc/<pid>/stat.
type procStat struct {
	state byte
	pgrp  int
}

// readStat parses /proc/<pid>/stat (or a task's stat). The command name is
// in parentheses and may hold anything, so the fields are counted after
// the last ')'.
func readStat(path string) (procStat, bool) {
	b, err := os.ReadFile(path) //zut:open /proc, which the kernel writes
	if err != nil {
		return procStat{}, false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return procStat{}, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 3 || len(f[0]) != 1 {
		return procStat{}, false
	}
	pgrp, err := strconv.Atoi(f[2])
	if err != nil {
		return procStat{}, false
	}
	return procStat{state: f[0][0], pgrp: pgrp}, true
}

// groupPIDs lists the processes whose process group is pgid.
func groupPIDs(pgid int) []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st, ok := readStat(filepath.Join("/proc", e.Name(), "stat")); ok && st.pgrp == pgid {
			out = append(out, pid)
		}
	}
	return out
}

// groupMembers lists the live members of the process group pgid with
// their command lines.
func groupMembers(pgid int) []member {
	var out []member
	for _, pid := range groupPIDs(pgid) {
		cmd, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline")) //zut:open /proc, which the kernel writes
		c := strings.TrimSpace(strings.ReplaceAll(string(cmd), "\x00", " "))
		if c == "" {
			c = "(zombie)"
		}
		out = append(out, member{PID: pid, Command: c})
	}
	return out
}

// idleProbe tells whether an extension's process group is idle. It is
// used by one goroutine.
type idleProbe struct {
	pgid    int
	pids    []int
	scanned time.Time
}

func newIdleProbe(pgid int) *idleProbe { return &idleProbe{pgid: pgid} }

// idle reports whether every thread of every process in the group is
// asleep, or a zombie other than the leader: nothing of the extension is
// running. It walks the leader's descendants where the kernel lists
// children; elsewhere it scans /proc for the group at most every 25 ms
// and looks at those processes in between. known is false when /proc
// cannot tell.
func (ip *idleProbe) idle() (idle, known bool) {
	pids, ok := descendants(ip.pgid)
	if !ok {
		if time.Since(ip.scanned) > 25*time.Millisecond {
			ip.pids, ip.scanned = groupPIDs(ip.pgid), time.Now()
		}
		pids = ip.pids
	}
	if len(pids) == 0 {
		if _, err := os.Stat("/proc/self/stat"); err != nil {
			return false, false
		}
	}
	for _, pid := range pids {
		dir := filepath.Join("/proc", strconv.Itoa(pid), "task")
		tasks, err := os.ReadDir(dir)
		if err != nil {
			if pid == ip.pgid {
				// The leader is gone: it exited and was reaped, and the
				// session has not seen the exit yet. Not idle, so that
				// settle waits for the exit instead of calling it calm.
				return false, true
			}
			continue // gone meanwhile
		}
		for _, t := range tasks {
			st, ok := readStat(filepath.Join(dir, t.Name(), "stat"))
			if !ok || st.pgrp != ip.pgid {
				continue
			}
			switch {
			case st.state == 'Z' && pid == ip.pgid:
				return false, true // the extension is exiting
			case st.state == 'S', st.state == 'Z', st.state == 'X', st.state == 'T', st.state == 't', st.state == 'I':
			default: // R running or runnable, D in the kernel
				return false, true
			}
		}
	}
	return true, true
}

// descendants lists pid and the processes below it, from the children
// files of /proc/<pid>/task/<tid>. ok is false when the kernel has no
// such files.
func descendants(pid int) ([]int, bool) {
	out := []int{pid}
	for i := 0; i < len(out) && i < 4096; i++ {
		dir := filepath.Join("/proc", strconv.Itoa(out[i]), "task")
		tasks, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, t := range tasks {
			b, err := os.ReadFile(filepath.Join(dir, t.Name(), "children")) //zut:open /proc, which the kernel writes
			if err != nil {
				if i == 0 && os.IsNotExist(err) {
					return nil, false
				}
				continue
			}
			for _, f := range strings.Fields(string(b)) {
				if c, err := strconv.Atoi(f); err == nil {
					out = append(out, c)
				}
			}
		}
	}
	return out, true
}

// unread returns the number of bytes waiting in the pipe f, or -1 when it
// cannot be told. It works on either end of a Linux pipe.
func unread(f *os.File) int {
	sc, err := f.SyscallConn()
	if err != nil {
		return -1
	}
	n := int32(-1)
	cerr := sc.Control(func(fd uintptr) {
		if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TIOCINQ, uintptr(unsafe.Pointer(&n))); e != 0 {
			n = -1
		}
	})
	if cerr != nil {
		return -1
	}
	return int(n)
}

// sched sums the scheduler counters of process pid and the processes
// below it (a launcher such as a pyenv shim runs the extension as its
// descendant): the CPU time its threads used and the time they waited for
// a CPU so far (the two first fields of each thread's schedstat), and
// whether one of them is runnable now (state R). ok is false when the
// system does not say. A runnable thread waiting for a CPU has its
// current wait in no counter until it runs.
func sched(pid int) (cpu, wait time.Duration, run, ok bool) {
	pids, found := descendants(pid)
	if !found {
		pids = []int{pid}
	}
	for _, p := range pids {
		dir := filepath.Join("/proc", strconv.Itoa(p), "task")
		ents, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range ents {
			if st, sok := readStat(filepath.Join(dir, e.Name(), "stat")); sok && st.state == 'R' {
				run = true
			}
			b, err := os.ReadFile(filepath.Join(dir, e.Name(), "schedstat")) //zut:open /proc, which the kernel writes
			if err != nil {
				continue
			}
			f := strings.Fields(string(b))
			if len(f) < 2 {
				continue
			}
			c, err1 := strconv.ParseInt(f[0], 10, 64)
			w, err2 := strconv.ParseInt(f[1], 10, 64)
			if err1 != nil || err2 != nil {
				continue
			}
			cpu += time.Duration(c)
			wait += time.Duration(w)
			ok = true
		}
	}
	return cpu, wait, run, ok
}
