package main

import (
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
)

// version is the release version; builds from a checkout add VCS details.
const version = "0.1.0"

// env carries the process's streams and environment so that no package-level
// state is needed and tests can run whole commands in-process.
type env struct {
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	getenv func(string) string
}

func newEnv(stdin io.Reader, stdout, stderr io.Writer) *env {
	return &env{stdin: stdin, stdout: stdout, stderr: stderr, getenv: os.Getenv}
}

// zutHome resolves $ZUT_HOME (C22): the variable itself, else
// $XDG_STATE_HOME/zut, else the platform's state directory.
func (e *env) zutHome() string {
	if h := e.getenv("ZUT_HOME"); h != "" {
		return h
	}
	if x := e.getenv("XDG_STATE_HOME"); x != "" {
		return filepath.Join(x, "zut")
	}
	home := e.getenv("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	switch runtime.GOOS {
	case "darwin":
		return filepath.Join(home, "Library", "Application Support", "zut")
	case "windows":
		if la := e.getenv("LOCALAPPDATA"); la != "" {
			return filepath.Join(la, "zut")
		}
	}
	return filepath.Join(home, ".local", "state", "zut")
}

// fullVersion is the version plus the VCS revision when the binary has one.
func fullVersion() string {
	v := version
	if bi, ok := debug.ReadBuildInfo(); ok {
		var rev, dirty string
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				if s.Value == "true" {
					dirty = "+dirty"
				}
			}
		}
		if len(rev) > 12 {
			rev = rev[:12]
		}
		if rev != "" {
			v += " (" + rev + dirty + ")"
		}
	}
	return v
}

func printVersion(e *env) error {
	_, err := io.WriteString(e.stdout, "zut "+fullVersion()+"\n")
	return err
}
