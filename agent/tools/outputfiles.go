package tools

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// The bash tool saves the full output of a command whose output was cut
// to a file the model may read: <Config.TempDir>/zut-bash-<session>-*.log,
// created 0600 in a 0700 directory, at most MaxSavedOutput bytes (past
// that, only the last part is kept, after a marker line). The app passes
// a directory of its own as TempDir (the session's directory or one under
// $ZUT_HOME) and calls CleanOutput when a session ends and at start.

// MaxSavedOutput bounds one saved output file: 64 MiB.
const MaxSavedOutput = 64 << 20

// OutputMaxAge is the age past which CleanOutput deletes any saved output.
const OutputMaxAge = 24 * time.Hour

const (
	outputPrefix = "zut-bash-"
	outputSuffix = ".log"
)

// fileTag makes a session ID safe in a file name ("" gives "nosession").
func fileTag(session string) string {
	var b strings.Builder
	for _, r := range session {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			b.WriteRune(r)
		}
		if b.Len() >= 64 {
			break
		}
	}
	if b.Len() == 0 {
		return "nosession"
	}
	return b.String()
}

// CleanOutput deletes the saved bash outputs in dir that belong to the
// session ended (its ID; "" deletes none by session) and every saved
// output older than OutputMaxAge, whatever its session. It touches only
// regular files named like saved outputs. A missing dir is not an error;
// the first deletion that fails is returned after trying the rest.
func CleanOutput(dir, ended string, now time.Time) error {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	mine := ""
	if ended != "" {
		mine = outputPrefix + fileTag(ended) + "-"
	}
	var first error
	for _, e := range ents {
		name := e.Name()
		if !strings.HasPrefix(name, outputPrefix) || !strings.HasSuffix(name, outputSuffix) || !e.Type().IsRegular() {
			continue
		}
		old := false
		if fi, err := e.Info(); err == nil && now.Sub(fi.ModTime()) > OutputMaxAge {
			old = true
		}
		if !old && (mine == "" || !strings.HasPrefix(name, mine)) {
			continue
		}
		if err := os.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) && first == nil {
			first = err
		}
	}
	return first
}

// SaveOutput saves text, a tool's whole output that was cut for the
// model, to a file named like the bash tool's saved outputs in
// cfg.TempDir (0600 in a 0700 directory; CleanOutput deletes it with the
// session), at most MaxSavedOutput bytes of it, and returns its path.
func SaveOutput(cfg Config, text string) (string, error) {
	if len(text) > MaxSavedOutput {
		text = text[:MaxSavedOutput]
	}
	dir := cfg.TempDir
	if dir == "" {
		dir = os.TempDir()
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	f, err := os.CreateTemp(dir, outputPrefix+fileTag(cfg.SessionID)+"-*"+outputSuffix)
	if err != nil {
		return "", err
	}
	if _, err := f.WriteString(text); err != nil {
		f.Close()
		os.Remove(f.Name())
		return "", err
	}
	return f.Name(), f.Close()
}
