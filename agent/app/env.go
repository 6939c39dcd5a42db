package app

import (
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
)

// Version is the release Version; builds from a checkout add VCS details.
const Version = "0.1.0"

// Env carries the process's streams and environment so that no package-level
// state is needed and tests can run whole commands in-process.
type Env struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Getenv func(string) string
	// SandboxExe is the program that runs "internal sandbox-exec" for
	// the sandbox (agent/sandbox); empty means os.Executable. Tests set
	// it to a binary that dispatches to sandbox.Exec.
	SandboxExe string
}

func NewEnv(stdin io.Reader, stdout, stderr io.Writer) *Env {
	return &Env{Stdin: stdin, Stdout: stdout, Stderr: stderr, Getenv: os.Getenv}
}

// Home resolves $ZUT_HOME (C22): the variable itself, else
// $XDG_STATE_HOME/zut, else the platform's state directory.
func (e *Env) Home() string {
	if h := e.Getenv("ZUT_HOME"); h != "" {
		return h
	}
	if x := e.Getenv("XDG_STATE_HOME"); x != "" {
		return filepath.Join(x, "zut")
	}
	home := e.Getenv("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	switch runtime.GOOS {
	case "darwin":
		return filepath.Join(home, "Library", "Application Support", "zut")
	case "windows":
		if la := e.Getenv("LOCALAPPDATA"); la != "" {
			return filepath.Join(la, "zut")
		}
	}
	return filepath.Join(home, ".local", "state", "zut")
}

// FullVersion is the version plus the VCS revision when the binary has one.
func FullVersion() string {
	v := Version
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

func printVersion(e *Env) error {
	_, err := io.WriteString(e.Stdout, "zut "+FullVersion()+"\n")
	return err
}
