package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/zut-go/zut/provider"
)

// This file is the small kit that tools living in sub-packages of tools
// (web, lsp, syntax, python, worktree ...) build on, so that every tool
// parses arguments, words errors and cuts output the same way.

// Args is the decoded argument object of one call, with strict accessors
// whose errors are worded for the model ("lsp: line must be a positive
// integer, got -1"). A JSON null counts as absent.
type Args struct{ a *args }

// ParseArgs decodes raw as a JSON object whose keys must all be in allowed.
func ParseArgs(tool string, raw json.RawMessage, allowed ...string) (*Args, error) {
	a, err := parseArgs(tool, raw, allowed...)
	if err != nil {
		return nil, err
	}
	return &Args{a: a}, nil
}

// Present reports whether name was given with a non-null value.
func (a *Args) Present(name string) bool { return a.a.present(name) }

// String returns the string argument name; a required one that is absent
// is an error, an absent optional one is "".
func (a *Args) String(name string, required bool) (string, error) { return a.a.str(name, required) }

// Int returns the integer argument name, or def when absent. A fraction or
// a value outside [lo, hi] is an error reading "<name> must be <what>".
func (a *Args) Int(name string, def, lo, hi int, what string) (int, error) {
	return a.a.integer(name, def, lo, hi, what)
}

// Bool returns the boolean argument name, false when absent.
func (a *Args) Bool(name string) (bool, error) { return a.a.boolean(name) }

// Raw returns the undecoded value of name (nil when absent), for arguments
// that are arrays or objects.
func (a *Args) Raw(name string) json.RawMessage {
	if !a.a.present(name) {
		return nil
	}
	return a.a.fields[name]
}

// Errorf returns an argument error for this tool: "<tool>: <message>".
func (a *Args) Errorf(format string, v ...any) error { return badArg(a.a.tool, format, v...) }

// TextResult is a successful result holding one text block.
func TextResult(s string) Result { return textResult(s) }

// ErrorResult is a failed result holding one text block.
func ErrorResult(format string, v ...any) Result { return errorResult(format, v...) }

// WithDetails returns r with Details set to the JSON encoding of v (left
// unset when v does not encode).
func (r Result) WithDetails(v any) Result { return r.withDetails(v) }

// Define builds a tool definition from a schema written as Go values. It
// panics when the schema does not encode, which is a programming error.
func Define(name, description string, schema map[string]any) provider.Tool {
	return definition(name, description, schema)
}

// Resolve turns a path the model sent into an absolute, clean path: "~"
// expands to the home directory and relative paths resolve against CWD.
func (cfg Config) Resolve(p string) string { return cfg.resolve(p) }

// Display shows an absolute path as the model should see it: relative to
// CWD when inside it, else absolute.
func (cfg Config) Display(abs string) string { return cfg.display(abs) }

// WithDefaults returns cfg with its empty fields filled with their
// defaults (working directory, home, temp dir, environment); an empty
// Shell or Ripgrep stays empty and is looked up on PATH when bash or grep
// first needs it.
func (cfg Config) WithDefaults() Config { return cfg.withDefaults() }

// FormatSize prints a byte count for people: 812 B, 50.0 KiB, 3.2 MiB.
func FormatSize(n int64) string { return formatSize(n) }

// Plural returns "1 line" or "n lines" (also "matches", "entries").
func Plural(n int, word string) string { return plural(n, word) }

// Clip shortens s to at most n runes, marking the cut with "…".
func Clip(s string, n int) string { return clip(s, n) }

// WriteFile replaces the file at path with data the way the write and
// edit tools do: atomically, keeping its permission bits, through a
// symlink to its target (via, "" for no link), refusing a link owned by
// another user and anything but a regular file.
func WriteFile(path string, data []byte) (via string, err error) {
	_, via, err = Config{}.writeAtomic("write", path, data)
	return via, err
}

// UnwrapPath drops the operation and path of a *fs.PathError or
// *os.LinkError, for messages that name the path already.
func UnwrapPath(err error) error { return unwrapPath(err) }

// CapText keeps the head of text that fits maxLines lines and maxBytes
// bytes. When anything is cut it appends one line saying what was shown,
// what was left out, and hint (how to get the rest, for example "call
// web_open with line=201"). cut reports whether text was shortened.
func CapText(text string, maxLines, maxBytes int, hint string) (capped string, cut bool) {
	total := countLines([]byte(text))
	if len(text) <= maxBytes && total <= maxLines {
		return text, false
	}
	head := firstLines([]byte(text), maxLines, maxBytes)
	shown := countLines(head)
	var b strings.Builder
	b.Write(head)
	if len(head) > 0 && head[len(head)-1] != '\n' {
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "[output cut: showed %s of %d (%s of %s)", plural(shown, "line"), total,
		formatSize(int64(len(head))), formatSize(int64(len(text))))
	if hint != "" {
		b.WriteString("; " + hint)
	}
	b.WriteString("]")
	return b.String(), true
}

// FirstLine is the first line of s (trimmed), clipped to n runes, with " …"
// when anything was left out: the usual body of a Preview.
func FirstLine(s string, n int) string { return firstLine(s, n) }

// StatError words an error from os.Stat or os.Open of abs for the model:
// a missing file names similar files or the nearest existing parent.
func (cfg Config) StatError(tool, abs string, err error) Result { return cfg.statError(tool, abs, err) }

// WalkFiles calls visit with the absolute path of every regular file
// under the directory root, in name order, skipping the .git directory,
// symbolic links, and whatever the .gitignore, .ignore and .rgignore files
// (of root, its subdirectories and its parents up to the repository top)
// and .git/info/exclude ignore, as grep does. It stops when visit returns
// an error (fs.SkipAll stops it quietly; fs.SkipDir skips the rest of the
// current directory) or when ctx is done, and returns that error or
// ctx.Err(). Unreadable directories are skipped.
func WalkFiles(ctx context.Context, root string, visit func(path string) error) error {
	err := walkFiles(ctx, root, parentIgnores(root), visit)
	if err == fs.SkipAll || err == fs.SkipDir {
		return nil
	}
	return err
}

func walkFiles(ctx context.Context, dir string, stack ignoreStack, visit func(string) error) error {
	stack = append(stack[:len(stack):len(stack)], dirIgnores(dir)...)
	entries, _ := os.ReadDir(dir) // sorted by name; unreadable: skipped
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return err
		}
		typ := e.Type()
		if e.Name() == ".git" || typ&os.ModeSymlink != 0 || !e.IsDir() && !typ.IsRegular() {
			continue
		}
		child := filepath.Join(dir, e.Name())
		if stack.ignored(child, e.IsDir()) {
			continue
		}
		var err error
		if e.IsDir() {
			err = walkFiles(ctx, child, stack, visit)
		} else {
			err = visit(child)
		}
		if err == fs.SkipDir {
			return nil
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// SetProcessGroup makes cmd, before it starts, the leader of a new process
// group (on Unix), so that SignalGroup reaches its children too.
func SetProcessGroup(cmd *exec.Cmd) { setProcessGroup(cmd) }

// SignalGroup sends SIGTERM, or SIGKILL when kill is set, to the process
// group of a started cmd made with SetProcessGroup. Where process groups
// do not exist it kills the process itself.
func SignalGroup(cmd *exec.Cmd, kill bool) { signalGroup(cmd, kill) }

// GroupAlive reports whether any process of cmd's process group is alive.
func GroupAlive(cmd *exec.Cmd) bool { return groupAlive(cmd) }

// ExitSignal names the signal that ended a process ("SIGKILL"), or "".
func ExitSignal(ps *os.ProcessState) string { return exitSignal(ps) }
