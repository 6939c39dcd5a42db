package host

import (
	"os"
	"strconv"
	"strings"
)

// groupRunnable reports whether a process of group pgid has a thread that
// is running or waiting for a CPU (state R in /proc). On a loaded machine
// an extension may be slow to answer only because it has not been given
// the CPU: the handshake deadlines (C1, C5) do not count that time
// against it. It reads at most a few thousand small files and is called
// only when a deadline expires.
func groupRunnable(pgid int) bool {
	if pgid <= 0 {
		return false
	}
	dir, err := os.Open("/proc")
	if err != nil {
		return false
	}
	names, _ := dir.Readdirnames(-1)
	dir.Close()
	for _, name := range names {
		pid, err := strconv.Atoi(name)
		if err != nil {
			continue
		}
		state, group, ok := procStat("/proc/" + name + "/stat")
		if !ok || group != pgid {
			continue
		}
		if state == 'R' || threadRunnable(pid) {
			return true
		}
	}
	return false
}

// threadRunnable reports whether a thread of process pid is runnable.
func threadRunnable(pid int) bool {
	dir, err := os.Open("/proc/" + strconv.Itoa(pid) + "/task")
	if err != nil {
		return false
	}
	tids, _ := dir.Readdirnames(-1)
	dir.Close()
	for _, tid := range tids {
		if state, _, ok := procStat("/proc/" + strconv.Itoa(pid) + "/task/" + tid + "/stat"); ok && state == 'R' {
			return true
		}
	}
	return false
}

// procStat reads the state and the process group of a /proc stat file.
// The command name in parentheses may hold spaces and parentheses, so the
// fields are counted from the last ')'.
func procStat(path string) (state byte, pgrp int, ok bool) {
	b, err := os.ReadFile(path)
	if err != nil || len(b) > 4096 {
		return 0, 0, false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, 0, false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 3 || len(f[0]) != 1 {
		return 0, 0, false
	}
	g, err := strconv.Atoi(f[2])
	if err != nil {
		return 0, 0, false
	}
	return f[0][0], g, true
}
