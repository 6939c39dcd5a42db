package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"

	"github.com/zut-go/zut/provider"
)

// writeTool creates or replaces a whole file, atomically.
type writeTool struct{ cfg Config }

func (t *writeTool) Definition() provider.Tool {
	return provider.Tool{Name: "write", Description: WriteDescription, Schema: json.RawMessage(WriteSchema)}
}

// What the model is told of the write tool: constant data, so that offering
// the tool runs no code of this package (TestToolDefinitions).
const (
	WriteDescription = "Create a file or replace its whole content. Missing parent directories are created; an existing file keeps its permissions. The file is replaced atomically. To change part of a file, prefer edit."
	WriteSchema      = `{"additionalProperties":false,"properties":{"content":{"description":"The complete new content of the file.","type":"string"},"path":{"description":"File to write (relative to the working directory, absolute, or starting with ~/).","type":"string"}},"required":["path","content"],"type":"object"}`
)

func (t *writeTool) Preview(raw json.RawMessage) string {
	a, err := parseArgs("write", raw, "path", "content")
	if err != nil {
		return "write (bad arguments)"
	}
	p, _ := a.str("path", false)
	c, _ := a.str("content", false)
	return fmt.Sprintf("write %s (%s, %s)", p, plural(countLines([]byte(c)), "line"), formatSize(int64(len(c))))
}

func (t *writeTool) Mutates(json.RawMessage) bool { return true }

// Validate reports what Run would reject in the arguments.
func (t *writeTool) Validate(raw json.RawMessage) error {
	p, _, err := parseWrite(raw)
	if err != nil {
		return err
	}
	return t.cfg.CheckScope("write", t.cfg.resolve(p), true)
}

// parseWrite checks the arguments of a write call.
func parseWrite(raw json.RawMessage) (path, content string, err error) {
	a, err := parseArgs("write", raw, "path", "content")
	if err != nil {
		return "", "", err
	}
	if path, err = a.str("path", true); err != nil {
		return "", "", err
	}
	if content, err = a.str("content", true); err != nil {
		return "", "", err
	}
	if path == "" {
		return "", "", badArg("write", "path is empty; give the file to write")
	}
	return path, content, nil
}

func (t *writeTool) Run(ctx context.Context, raw json.RawMessage, progress func(string)) Result {
	p, content, err := parseWrite(raw)
	if err != nil {
		return errorResult("%v", err)
	}
	if ctx.Err() != nil {
		return errorResult("write: aborted before writing %s", p)
	}
	abs := t.cfg.resolve(p)
	if err := t.cfg.CheckScope("write", abs, true); err != nil {
		return errorResult("%v", err)
	}
	shown := t.cfg.display(abs)
	old, oldTooBig, err := t.cfg.readForDiff("write", abs)
	if err == nil {
		var created bool
		var via string
		if created, via, err = t.cfg.writeAtomic("write", abs, []byte(content)); err == nil {
			r := t.done(shown, created, old, content, oldTooBig)
			if via != "" {
				r.Content[0].Text += fmt.Sprintf(" through the symbolic link %s, which points to %s (the link itself is unchanged)", shown, t.cfg.display(via))
			}
			return r
		}
	}
	if IsOpenedOutOfScope(err) {
		return errorResult("%v", err)
	}
	if errors.Is(err, syscall.ENOTDIR) {
		return errorResult("write: %s: a parent of it is a file, not a directory; choose another path", shown)
	}
	return errorResult("write: %s: %v", shown, err)
}

func (t *writeTool) done(shown string, created bool, old, content string, oldTooBig bool) Result {
	verb := "wrote"
	if created {
		verb = "created"
	}
	msg := fmt.Sprintf("%s %s (%s, %s)", verb, shown, plural(countLines([]byte(content)), "line"), plural(len(content), "byte"))
	return textResult(msg).withDetails(newFileChange(shown, created, old, content, oldTooBig))
}

// readForDiff returns the current text of the file at abs for the Details
// of a write: "" when it does not exist; tooBig when it is over the Details
// bound. A directory is an error. The file is opened as OpenScoped does.
func (cfg Config) readForDiff(tool, abs string) (old string, tooBig bool, err error) {
	fi, err := os.Stat(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", false, unwrapPath(err)
	}
	if fi.IsDir() {
		return "", false, errors.New("is a directory; give a file path")
	}
	if !fi.Mode().IsRegular() {
		return "", false, fmt.Errorf("is %s, not a regular file; give a file path", provider.FileKind(fi.Mode()))
	}
	if fi.Size() > maxDetailText {
		return "", true, nil
	}
	f, err := cfg.OpenScoped(tool, abs)
	if IsOpenedOutOfScope(err) {
		return "", false, err
	}
	if err != nil {
		return "", false, unwrapPath(err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxDetailText+1))
	if err != nil {
		return "", false, unwrapPath(err)
	}
	return string(b), len(b) > maxDetailText, nil
}
