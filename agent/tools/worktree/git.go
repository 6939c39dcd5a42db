package worktree

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/zut-go/zut/agent/tools"
)

// Limits of one git command's output.
const (
	maxStdout = 64 << 20
	maxStderr = 64 << 10
)

// safety are the settings every git call runs with: no hooks (zut's own
// operations must not run code from the repository), no file-system
// monitor (a configured fsmonitor is a command too), no colour, no pager.
var safety = []string{"-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false", "-c", "color.ui=false", "--no-pager"}

// inherited are the variables a calling git (zut run from a hook) would
// set, which would point every command at the wrong repository.
var inherited = []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR", "GIT_OBJECT_DIRECTORY",
	"GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_PREFIX", "GIT_NAMESPACE", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT"}

// Error is a git command that failed.
type Error struct {
	Args     []string // the git arguments, without the safety settings
	ExitCode int      // -1 when git did not run to its end
	Stderr   string   // git's message, trimmed
}

func (e *Error) Error() string {
	msg := e.Stderr
	if msg == "" {
		msg = fmt.Sprintf("exit status %d", e.ExitCode)
	}
	return fmt.Sprintf("git %s: %s", strings.Join(e.Args[:min(len(e.Args), 2)], " "), msg)
}

// git runs git commands.
type git struct {
	path string
	env  []string
}

func newGit(path string, env []string) *git {
	if env == nil {
		env = os.Environ()
	}
	var clean []string
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if !contains(inherited, k) && !strings.HasPrefix(k, "GIT_CONFIG_KEY_") && !strings.HasPrefix(k, "GIT_CONFIG_VALUE_") {
			clean = append(clean, kv)
		}
	}
	clean = append(clean, "GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0", "LC_ALL=C", "LANGUAGE=C")
	return &git{path: path, env: clean}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// run runs "git args" in dir with extra environment variables and returns
// its standard output.
func (g *git) run(ctx context.Context, dir string, extraEnv []string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, g.path, append(append([]string(nil), safety...), args...)...)
	cmd.Dir = dir
	cmd.Env = append(append([]string(nil), g.env...), extraEnv...)
	var stdout, stderr limited
	stdout.max, stderr.max = maxStdout, maxStderr
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	tools.SetProcessGroup(cmd)
	cmd.Cancel = func() error { tools.SignalGroup(cmd, true); return nil }
	cmd.WaitDelay = 2 * time.Second
	err := cmd.Run()
	if err == nil && stdout.over {
		return "", fmt.Errorf("git %s: output over %s; narrow the request", args[0], tools.FormatSize(maxStdout))
	}
	if err != nil {
		if ctx.Err() != nil {
			return "", fmt.Errorf("git %s: %w", args[0], ctx.Err())
		}
		ge := &Error{Args: args, ExitCode: -1, Stderr: strings.TrimSpace(stderr.String())}
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			ge.ExitCode = ee.ExitCode()
		} else if ge.Stderr == "" {
			ge.Stderr = err.Error()
		}
		return stdout.String(), ge
	}
	return stdout.String(), nil
}

// exitCode is the exit status of a failed git command, or -1.
func exitCode(err error) int {
	var ge *Error
	if errors.As(err, &ge) {
		return ge.ExitCode
	}
	return -1
}

// limited is a buffer that keeps at most max bytes and notes the excess.
type limited struct {
	bytes.Buffer
	max  int
	over bool
}

func (l *limited) Write(p []byte) (int, error) {
	if room := l.max - l.Len(); room < len(p) {
		l.over = true
		if room > 0 {
			l.Buffer.Write(p[:room])
		}
		return len(p), nil
	}
	return l.Buffer.Write(p)
}
