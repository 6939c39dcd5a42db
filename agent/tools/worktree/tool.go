package worktree

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/zut-go/zut/agent/tools"
	"github.com/zut-go/zut/provider"
)

// Details is the Details of a worktree call: the worktree created or
// removed, or all of them for list.
type Details struct {
	Action    string     `json:"action"`
	Worktrees []Worktree `json:"worktrees"`
	// NewBranch is set when create made the branch.
	NewBranch bool `json:"new_branch,omitempty"`
}

// callTimeout bounds one call's git commands.
const callTimeout = 2 * time.Minute

// worktreeTool is the worktree tool.
type worktreeTool struct {
	cfg tools.Config
	c   Config
}

// New returns the worktree tool for the repository holding cfg.CWD. The
// repository is looked up on every call, so the tool can be offered before
// one exists.
func New(cfg tools.Config, c Config) tools.Tool {
	return &worktreeTool{cfg: cfg.WithDefaults(), c: c}
}

var actions = []string{"create", "list", "remove"}

func (t *worktreeTool) Definition() provider.Tool {
	return provider.Tool{Name: ToolName, Description: ToolDescription, Schema: json.RawMessage(ToolSchema)}
}

// What the model is told of the worktree tool: constant data, so that
// offering the tool runs no code of this package (TestToolDefinitions).
const (
	ToolName        = "worktree"
	ToolDescription = "Manage git worktrees: separate checkouts of the repository on their own branch, for work that must not disturb the current one. create: check out branch (an existing one, or a new one starting at base, default HEAD) under .zut/worktrees/<branch>, or <path> under that root. list: every worktree with its branch, commit and whether it has uncommitted changes. remove: delete a worktree given by path or branch; one with uncommitted changes is refused unless force is true (which discards them). The branch is kept. Git hooks are not run."
	ToolSchema      = `{"additionalProperties":false,"properties":{"action":{"description":"create, list or remove.","enum":["create","list","remove"],"type":"string"},"base":{"description":"create: the commit, branch or tag a new branch starts at; default HEAD.","type":"string"},"branch":{"description":"create: the branch to check out (created when missing); remove: the worktree with this branch.","type":"string"},"force":{"description":"remove: discard uncommitted changes and untracked files.","type":"boolean"},"path":{"description":"create: the directory under the worktree root (default: the branch name); remove: the worktree's path as list shows it.","type":"string"}},"required":["action"],"type":"object"}`
)

func (t *worktreeTool) args(raw json.RawMessage) (action, branch, path, base string, force bool, err error) {
	a, err := tools.ParseArgs("worktree", raw, "action", "branch", "path", "base", "force")
	if err != nil {
		return
	}
	if action, err = a.String("action", true); err != nil {
		return
	}
	if branch, err = a.String("branch", false); err != nil {
		return
	}
	if path, err = a.String("path", false); err != nil {
		return
	}
	if base, err = a.String("base", false); err != nil {
		return
	}
	force, err = a.Bool("force")
	return
}

func (t *worktreeTool) Preview(raw json.RawMessage) string {
	action, branch, path, base, force, err := t.args(raw)
	if err != nil {
		return "worktree (bad arguments)"
	}
	s := "worktree " + action
	for _, p := range []string{branch, path} {
		if p != "" {
			s += " " + tools.Clip(p, 60)
		}
	}
	if base != "" {
		s += " from " + tools.Clip(base, 40)
	}
	if force {
		s += " (force)"
	}
	return s
}

// Mutates is true for create and remove.
func (t *worktreeTool) Mutates(raw json.RawMessage) bool {
	action, _, _, _, _, err := t.args(raw)
	return err != nil || action != "list"
}

func (t *worktreeTool) Run(ctx context.Context, raw json.RawMessage, progress func(string)) tools.Result {
	action, branch, path, base, force, err := t.args(raw)
	if err != nil {
		return tools.ErrorResult("%v", err)
	}
	fail := func(format string, v ...any) tools.Result { return tools.ErrorResult(format, v...) }
	switch action {
	case "create":
		if force {
			return fail("worktree: force applies to remove only")
		}
	case "list":
		if branch != "" || path != "" || base != "" || force {
			return fail("worktree: list takes no other arguments")
		}
	case "remove":
		if base != "" {
			return fail("worktree: base applies to create only")
		}
		if branch == "" && path == "" {
			return fail("worktree: remove needs the path or the branch of the worktree; call worktree list to see them")
		}
	default:
		return fail("worktree: unknown action %q; use create, list or remove", action)
	}
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	r, err := Open(ctx, t.cfg.CWD, t.c)
	if err != nil {
		return t.failed(ctx, err)
	}
	switch action {
	case "create":
		return t.create(ctx, r, branch, path, base)
	case "list":
		return t.list(ctx, r)
	}
	return t.remove(ctx, r, branch, path, force)
}

// failed words an error, saying when the call was aborted or timed out.
func (t *worktreeTool) failed(ctx context.Context, err error) tools.Result {
	switch ctx.Err() {
	case context.Canceled:
		return tools.ErrorResult("worktree: aborted; git was stopped (a worktree being created may be left half made: check with worktree list)")
	case context.DeadlineExceeded:
		return tools.ErrorResult("worktree: git did not finish within %s and was stopped", callTimeout)
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, "worktree:") {
		msg = "worktree: " + msg
	}
	return tools.ErrorResult("%s", msg)
}

func (t *worktreeTool) create(ctx context.Context, r *Repo, branch, path, base string) tools.Result {
	_, err := r.git.run(ctx, r.Top, nil, "show-ref", "--verify", "--quiet", "refs/heads/"+branch)
	existed := err == nil
	w, err := r.Create(ctx, CreateOptions{Branch: branch, Base: base, Dir: path})
	if err != nil {
		return t.failed(ctx, err)
	}
	from := "existing branch " + w.Branch
	if !existed {
		b := base
		if b == "" {
			b = "HEAD"
		}
		from = fmt.Sprintf("new branch %s from %s", w.Branch, b)
	}
	text := fmt.Sprintf("created worktree %s on %s (%s); git hooks were not run\nwork in it with paths under %s, and remove it with worktree remove when done", t.cfg.Display(w.Path), from, short(w.Head), t.cfg.Display(w.Path))
	return tools.TextResult(text).WithDetails(Details{Action: "create", Worktrees: []Worktree{w}, NewBranch: !existed})
}

func (t *worktreeTool) list(ctx context.Context, r *Repo) tools.Result {
	list, err := r.List(ctx)
	if err != nil {
		return t.failed(ctx, err)
	}
	var b strings.Builder
	for _, w := range list {
		branch := w.Branch
		if w.Detached || branch == "" {
			branch = "(detached)"
		}
		state := "clean"
		switch {
		case w.Missing:
			state = "missing (its directory is gone; git worktree prune forgets it)"
		case w.Dirty:
			state = fmt.Sprintf("dirty: %s", plural(w.Changes, "change"))
		}
		fmt.Fprintf(&b, "%s  %s  %s  %s", t.cfg.Display(w.Path), branch, short(w.Head), state)
		var notes []string
		if w.Main {
			notes = append(notes, "main worktree")
		}
		if w.Base != "" && w.Base != w.Head {
			notes = append(notes, "base "+short(w.Base))
		}
		if w.Locked {
			notes = append(notes, "locked")
		}
		if len(notes) > 0 {
			b.WriteString("  (" + strings.Join(notes, ", ") + ")")
		}
		b.WriteByte('\n')
	}
	text, _ := tools.CapText(strings.TrimRight(b.String(), "\n"), 500, 50<<10, "")
	return tools.TextResult(text).WithDetails(Details{Action: "list", Worktrees: list})
}

func (t *worktreeTool) remove(ctx context.Context, r *Repo, branch, path string, force bool) tools.Result {
	if path != "" {
		path = t.cfg.Resolve(path)
	}
	w, err := r.Find(ctx, path, branch)
	if err != nil {
		return t.failed(ctx, err)
	}
	if err := r.RemoveWorktree(ctx, w, force); err != nil {
		return t.failed(ctx, err)
	}
	text := "removed worktree " + t.cfg.Display(w.Path)
	if w.Dirty {
		text += fmt.Sprintf(", discarding %s", plural(w.Changes, "uncommitted change"))
	}
	if w.Branch != "" {
		text += fmt.Sprintf("; branch %s is kept (delete it with git branch -D %s if it is not needed)", w.Branch, w.Branch)
	}
	return tools.TextResult(text).WithDetails(Details{Action: "remove", Worktrees: []Worktree{w}})
}

// short is a commit id cut to 7 characters.
func short(sha string) string {
	if len(sha) > 7 {
		return sha[:7]
	}
	return sha
}
