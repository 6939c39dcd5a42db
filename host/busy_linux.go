package host

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"time"
)

// busyProbe tells whether an extension's process group was kept from
// running. On a loaded machine an extension may be slow to answer only
// because it was not given the CPU, or waited for the disk: the handshake
// deadlines (C1, C5) do not count that against it. The group counts as
// kept from running when one of its threads is runnable or in the kernel
// now (state R or D in /proc), or when its threads waited for a CPU for at
// least a tenth of the time since the last look (the run-queue wait of
// /proc/<pid>/task/<tid>/schedstat). An extension that is blocked on a
// read waits for nothing of the kind. A look reads at most a few thousand
// small files and happens only when a deadline expires.
type busyProbe struct {
	pgid int
	wait time.Duration // the group's run-queue wait at the last look
	at   time.Time
}

// newBusyProbe watches group pgid, made with the process that leads it a
// moment ago: such a group has waited for next to nothing yet, so the
// first look counts its wait from zero and the probe reads nothing now.
// (A look reads the stat file of every process of the machine: at every
// start of ten extensions on a busy machine that was megabytes of
// garbage and as many reads, for deadlines that rarely expire.)
func newBusyProbe(pgid int) *busyProbe {
	return &busyProbe{pgid: pgid, at: time.Now()}
}

// busy reports whether the group was kept from running since the last
// look (or since the probe was made).
func (p *busyProbe) busy() bool {
	if p.pgid <= 0 {
		return false
	}
	now := time.Now()
	wait, active := scanGroup(p.pgid)
	starved := wait-p.wait >= now.Sub(p.at)/10
	p.wait, p.at = wait, now
	return active || starved
}

// scanGroup sums the run-queue wait of every thread of group pgid and
// reports whether one of them is runnable or in the kernel.
func scanGroup(pgid int) (wait time.Duration, active bool) {
	dir, err := os.Open("/proc") //zut:open /proc, which the kernel writes
	if err != nil {
		return 0, false
	}
	names, _ := dir.Readdirnames(-1)
	dir.Close()
	for _, name := range names {
		if _, err := strconv.Atoi(name); err != nil {
			continue
		}
		_, group, ok := procStat("/proc/" + name + "/stat")
		if !ok || group != pgid {
			continue
		}
		w, a := scanThreads("/proc/" + name + "/task")
		wait += w
		active = active || a
	}
	return wait, active
}

// scanThreads does scanGroup's work for the threads of one process.
func scanThreads(taskDir string) (wait time.Duration, active bool) {
	dir, err := os.Open(taskDir) //zut:open /proc, which the kernel writes
	if err != nil {
		return 0, false
	}
	tids, _ := dir.Readdirnames(-1)
	dir.Close()
	for _, tid := range tids {
		if state, _, ok := procStat(taskDir + "/" + tid + "/stat"); ok && (state == 'R' || state == 'D') {
			active = true
		}
		wait += schedWait(taskDir + "/" + tid + "/schedstat")
	}
	return wait, active
}

// schedWait is the time a thread spent waiting on a run queue: the second
// field of its schedstat file (nanoseconds), 0 when the kernel has none.
func schedWait(path string) time.Duration {
	b, err := os.ReadFile(path) //zut:open /proc, which the kernel writes
	if err != nil || len(b) > 256 {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0
	}
	n, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		return 0
	}
	return time.Duration(n)
}

// procStat reads the state and the process group of a /proc stat file.
// The command name in parentheses may hold spaces and parentheses, so the
// fields are counted from the last ')'.
func procStat(path string) (state byte, pgrp int, ok bool) {
	b, err := os.ReadFile(path) //zut:open /proc, which the kernel writes
	if err != nil || len(b) > 4096 {
		return 0, 0, false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0, false
	}
	// After the name: state, parent, group; read in place (a scan reads
	// one such file per process of the machine).
	st, rest := field(b[i+1:])
	_, rest = field(rest)
	g, _ := field(rest)
	if len(st) != 1 || len(g) == 0 {
		return 0, 0, false
	}
	for _, c := range g {
		if c < '0' || c > '9' || pgrp > 1<<40 {
			return 0, 0, false
		}
		pgrp = pgrp*10 + int(c-'0')
	}
	return st[0], pgrp, true
}

// field splits the first field, separated by spaces, from b.
func field(b []byte) (f, rest []byte) {
	b = bytes.TrimLeft(b, " ")
	if i := bytes.IndexByte(b, ' '); i >= 0 {
		return b[:i], b[i:]
	}
	return bytes.TrimRight(b, "\n"), nil
}
