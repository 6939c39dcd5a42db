package tools

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
)

// Planner is implemented by tools that can say what a call would change
// without changing anything: write and edit. The confirmation dialog
// shows the change before the user allows it.
type Planner interface {
	// Plan returns the change the call would make. An error says why the
	// call would fail; nothing is written either way.
	Plan(args json.RawMessage) (FileChange, error)
}

// Plan is what the write would do: the file's text now (empty for a new
// file) and the content it would get.
func (t *writeTool) Plan(raw json.RawMessage) (FileChange, error) {
	a, err := parseArgs("write", raw, "path", "content")
	if err != nil {
		return FileChange{}, err
	}
	p, err := a.str("path", true)
	if err != nil {
		return FileChange{}, err
	}
	content, err := a.str("content", true)
	if err != nil {
		return FileChange{}, err
	}
	if p == "" {
		return FileChange{}, errors.New("write: path is empty")
	}
	abs := t.cfg.resolve(p)
	if err := t.cfg.CheckScope("write", abs, true); err != nil {
		return FileChange{}, err
	}
	old, tooBig, err := t.cfg.readForDiff("write", abs)
	if IsOpenedOutOfScope(err) {
		return FileChange{}, err
	}
	if err != nil {
		return FileChange{}, fmt.Errorf("write: %s: %v", t.cfg.display(abs), err)
	}
	_, statErr := os.Stat(abs)
	return newFileChange(t.cfg.display(abs), os.IsNotExist(statErr), old, content, tooBig), nil
}

// Plan is what the edit would do: the file's text now and after the
// edits, in the LF view the diff of the result shows too.
func (t *editTool) Plan(raw json.RawMessage) (FileChange, error) {
	a, err := parseArgs("edit", raw, "path", "edits")
	if err != nil {
		return FileChange{}, err
	}
	p, err := a.str("path", true)
	if err != nil {
		return FileChange{}, err
	}
	reps, err := parseEdits(a)
	if err != nil {
		return FileChange{}, err
	}
	abs := t.cfg.resolve(p)
	if err := t.cfg.CheckScope("edit", abs, true); err != nil {
		return FileChange{}, err
	}
	shown := t.cfg.display(abs)
	fi, err := os.Stat(abs)
	switch {
	case err != nil:
		return FileChange{}, fmt.Errorf("edit: %s: %v", shown, unwrapPath(err))
	case !fi.Mode().IsRegular():
		return FileChange{}, fmt.Errorf("edit: %s is not a regular file", shown)
	case fi.Size() > editMaxFile:
		return FileChange{}, fmt.Errorf("edit: %s is over the %s edit limit", shown, formatSize(editMaxFile))
	}
	data, err := t.cfg.readScoped("edit", abs, editMaxFile)
	if IsOpenedOutOfScope(err) {
		return FileChange{}, err
	}
	if err != nil {
		return FileChange{}, fmt.Errorf("edit: %s: %v", shown, unwrapPath(err))
	}
	if isBinary(data[:min(len(data), sniffLen)]) {
		return FileChange{}, fmt.Errorf("edit: %s is a binary file", shown)
	}
	doc := newDocument(data)
	if msg := doc.match(reps); msg != "" {
		return FileChange{}, fmt.Errorf("edit: %s: %s", shown, msg)
	}
	_, newNorm, _ := doc.apply(reps)
	return newFileChange(shown, false, doc.norm, newNorm, false), nil
}
