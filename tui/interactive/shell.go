package interactive

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/zut-go/zut/tui"
)

// maxShellOutput bounds what a !command keeps of its output: the first
// and last halves when it prints more.
const maxShellOutput = 64 << 10

// shell runs a !command in the background and offers its output as
// context for the next prompt.
func (u *ui) shell(cmdline string) {
	if u.job != nil {
		u.chat.AddNotice("warn", "", "another command runs; wait for it or press esc")
		return
	}
	ctx, cancel := context.WithCancel(u.ctx)
	u.job = &job{label: "Running !" + firstLine(cmdline), start: u.now(), cancel: cancel}
	id := fmt.Sprintf("shell-%d", time.Now().UnixNano())
	args, _ := json.Marshal(map[string]string{"command": cmdline})
	u.chat.SetToolArgs(id, "bash", string(args))
	u.chat.ToolRunning(id, u.now())
	dir := "."
	if u.app != nil {
		dir = u.app.CWD()
	}
	sh := u.env.Getenv("SHELL")
	if sh == "" {
		sh = "/bin/sh"
	}
	u.toolHeader(id, "bash", args)
	u.goJob(func() {
		defer cancel()
		if u.app != nil {
			// Extensions see the user's command like the model's (source
			// "user"): a guard may refuse it or rewrite it.
			run, err := u.app.CheckUserCommand(ctx, id, cmdline)
			if err != nil {
				u.inbox.post(func(u *ui) {
					u.job = nil
					u.dirty = true
					u.chat.ToolDone(id, "bash", "not run: "+err.Error(), true, nil, u.now())
					u.startQueued()
				})
				return
			}
			if run != cmdline {
				rewritten, _ := json.Marshal(map[string]string{"command": run})
				u.inbox.post(func(u *ui) {
					u.chat.SetToolArgs(id, "bash", string(rewritten))
					u.note(tui.Note{Level: "info", Text: "an extension changed the command to: " + run})
				})
				cmdline = run
			}
		}
		var confine confiner
		if u.app != nil {
			confine = func(cmd *exec.Cmd) (confined, error) {
				c, err := u.app.ConfineCommand(cmd)
				if c == nil || err != nil {
					return nil, err
				}
				return c, nil
			}
		}
		out, code, blocked, err := runShell(ctx, sh, cmdline, dir, confine)
		if len(blocked) > 0 {
			out = strings.TrimRight(out, "\n") + "\n" + strings.Join(blocked, "\n") + "\n"
			if u.app.UnconfinedAgain(ctx, cmdline, blocked) {
				again, code2, _, err2 := runShell(ctx, sh, cmdline, dir, nil)
				out = "[blocked by the sandbox; run again without it after you confirmed:]\n" + again
				code, err = code2, err2
			}
		}
		stopped := ctx.Err() != nil
		if u.app != nil {
			u.app.UserCommandDone(id, cmdline, out, err != nil || code != 0)
		}
		u.inbox.post(func(u *ui) {
			u.job = nil
			u.dirty = true
			failed := err != nil || code != 0
			text := out
			if err != nil {
				text = strings.TrimSpace(out + "\n" + err.Error())
			} else if code != 0 {
				text = strings.TrimSpace(out + fmt.Sprintf("\n(exit status %d)", code))
			}
			u.chat.ToolDone(id, "bash", text, failed, nil, u.now())
			u.toolLook(id, "bash", &text, failed)
			if stopped {
				u.startQueued()
				return
			}
			status := "succeeded"
			if failed {
				status = fmt.Sprintf("failed (exit status %d)", code)
			}
			u.shellCtx = append(u.shellCtx, fmt.Sprintf("I ran `%s` in the shell; it %s. Its output:\n```\n%s\n```", cmdline, status, strings.TrimRight(out, "\n")))
			u.note(tui.Note{Level: "info", Text: "the output goes with your next prompt"})
			u.startQueued()
		})
	})
}

// confiner puts a command in the sandbox in force (app.ConfineCommand)
// and returns what explains its refusals and is closed when the command
// has ended (nil: not confined); an error refuses the command.
type confiner func(*exec.Cmd) (confined, error)

// confined is a *sandbox.Confined.
type confined interface {
	Explain(output string) []string
	Close() error
}

// runShell runs cmdline with sh -c in dir, in its own process group that
// is killed when ctx ends, in the sandbox confine puts it in (nil: none),
// and returns its combined output and, when it failed in the sandbox,
// the sandbox's refusals read in that output.
func runShell(ctx context.Context, sh, cmdline, dir string, confine confiner) (string, int, []string, error) {
	cmd := exec.CommandContext(ctx, sh, "-c", cmdline)
	cmd.Dir = dir
	cmd.Stdin = nil
	var buf capped
	buf.max = maxShellOutput
	cmd.Stdout = &buf
	cmd.Stderr = &buf
	setProcessGroup(cmd)
	cmd.WaitDelay = time.Second
	var conf confined
	if confine != nil {
		var err error
		if conf, err = confine(cmd); err != nil {
			return "", -1, nil, err
		}
		if conf != nil {
			defer conf.Close() // its proxy, under a proxy network
		}
	}
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
		if ctx.Err() == nil {
			err = nil
		}
	}
	if ctx.Err() != nil {
		err = errors.New("interrupted")
	}
	var blocked []string
	if conf != nil && (code != 0 || err != nil) && ctx.Err() == nil {
		blocked = conf.Explain(buf.String())
	}
	return buf.String(), code, blocked, err
}

// capped keeps the first and last halves of what is written past max.
type capped struct {
	max     int
	head    []byte
	tail    []byte
	dropped int
}

func (c *capped) Write(p []byte) (int, error) {
	n := len(p)
	if room := c.max/2 - len(c.head); room > 0 {
		k := min(room, len(p))
		c.head = append(c.head, p[:k]...)
		p = p[k:]
	}
	c.tail = append(c.tail, p...)
	if over := len(c.tail) - c.max/2; over > 0 {
		c.dropped += over
		c.tail = append(c.tail[:0], c.tail[over:]...)
	}
	return n, nil
}

func (c *capped) String() string {
	if c.dropped == 0 {
		return string(c.head) + string(c.tail)
	}
	return fmt.Sprintf("%s\n… %d bytes left out …\n%s", c.head, c.dropped, c.tail)
}

// externalEditor edits the prompt in $VISUAL or $EDITOR (Ctrl+G).
func (u *ui) externalEditor() {
	editor := u.env.Getenv("VISUAL")
	if editor == "" {
		editor = u.env.Getenv("EDITOR")
	}
	if editor == "" {
		u.chat.AddNotice("warn", "", "ctrl+g opens $VISUAL or $EDITOR: set one, for example export EDITOR=vi")
		return
	}
	in, out, ok := u.ttyFiles()
	if !ok {
		u.chat.AddNotice("warn", "", "ctrl+g needs zut to run on a terminal")
		return
	}
	f, err := os.CreateTemp("", "zut-prompt-*.md")
	if err != nil {
		u.chat.AddNotice("error", "", "external editor: "+err.Error())
		return
	}
	path := f.Name()
	defer os.Remove(path)
	_, werr := f.WriteString(u.ed.Value())
	if err := errors.Join(werr, f.Close()); err != nil {
		u.chat.AddNotice("error", "", "external editor: "+err.Error())
		return
	}
	u.screen.Clear()
	held, _ := u.term.Release()
	cmd := exec.CommandContext(u.ctx, "/bin/sh", "-c", editor+` "$1"`, "sh", path)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = in, out, out
	runErr := cmd.Run()
	if err := u.term.Reacquire(); err != nil {
		u.chat.AddNotice("warn", "", err.Error())
	}
	u.screen.Invalidate()
	u.pending = append(u.pending, held...)
	u.dirty = true
	if runErr != nil {
		u.chat.AddNotice("error", "", fmt.Sprintf("external editor %q: %v; the prompt is unchanged", editor, runErr))
		return
	}
	data, err := os.ReadFile(path) //zut:open the temporary file zut created for the external editor
	if err != nil {
		u.chat.AddNotice("error", "", "external editor: "+err.Error())
		return
	}
	u.ed.SetText(strings.TrimRight(string(data), "\n"))
	for _, ev := range u.takePending() {
		u.input(ev)
	}
}

func (u *ui) takePending() []tui.Event {
	p := u.pending
	u.pending = nil
	return p
}

// clipboardTimeout bounds the clipboard helpers.
const clipboardTimeout = 3 * time.Second

// pasteClipboard pastes the clipboard (Ctrl+V): an image becomes a file
// whose path is inserted, text is pasted as with a bracketed paste.
func (u *ui) pasteClipboard() {
	ctx, cancel := context.WithTimeout(u.ctx, clipboardTimeout)
	defer cancel()
	text, img, err := readClipboard(ctx, u.env.Getenv)
	switch {
	case err != nil:
		u.note(tui.Note{Level: "warn", Text: "ctrl+v: " + err.Error()})
	case img != nil:
		path := filepath.Join(os.TempDir(), fmt.Sprintf("zut-clipboard-%d.png", time.Now().UnixNano()))
		if err := os.WriteFile(path, img, 0o600); err != nil {
			u.note(tui.Note{Level: "error", Text: "ctrl+v: save the image: " + err.Error()})
			return
		}
		u.ed.Insert(path)
	case text != "":
		u.ed.Paste(text)
	}
}

// clipTool is a clipboard program and how to call it.
type clipTool struct {
	name       string
	text       []string // args printing the text
	types      []string // args listing the content types, or nil
	image      []string // args printing a PNG
	copy       []string // args reading text to copy from stdin
	needsEnv   string
	darwinOnly bool
}

var clipTools = []clipTool{
	{name: "wl-paste", text: []string{"--no-newline"}, types: []string{"--list-types"}, image: []string{"--type", "image/png"}, needsEnv: "WAYLAND_DISPLAY"},
	{name: "xclip", text: []string{"-selection", "clipboard", "-o"}, types: []string{"-selection", "clipboard", "-t", "TARGETS", "-o"}, image: []string{"-selection", "clipboard", "-t", "image/png", "-o"}, needsEnv: "DISPLAY"},
	{name: "pbpaste", text: nil, darwinOnly: true},
}

var copyTools = []clipTool{
	{name: "wl-copy", needsEnv: "WAYLAND_DISPLAY"},
	{name: "xclip", copy: []string{"-selection", "clipboard", "-i"}, needsEnv: "DISPLAY"},
	{name: "pbcopy", darwinOnly: true},
}

func usable(t clipTool, getenv func(string) string) bool {
	if t.darwinOnly && runtime.GOOS != "darwin" {
		return false
	}
	if t.needsEnv != "" && getenv(t.needsEnv) == "" {
		return false
	}
	_, err := exec.LookPath(t.name)
	return err == nil
}

// readClipboard returns the clipboard's image (PNG) or text.
func readClipboard(ctx context.Context, getenv func(string) string) (string, []byte, error) {
	for _, t := range clipTools {
		if !usable(t, getenv) {
			continue
		}
		if t.types != nil {
			if types, err := exec.CommandContext(ctx, t.name, t.types...).Output(); err == nil && bytes.Contains(types, []byte("image/png")) {
				img, err := exec.CommandContext(ctx, t.name, t.image...).Output()
				if err == nil && len(img) > 0 {
					return "", img, nil
				}
			}
		}
		out, err := exec.CommandContext(ctx, t.name, t.text...).Output()
		if err != nil {
			return "", nil, fmt.Errorf("%s: %v", t.name, err)
		}
		return string(out), nil, nil
	}
	return "", nil, errors.New("no clipboard program found (wl-paste, xclip or pbpaste); paste with your terminal's paste key instead")
}

// copyAnswer copies the last answer to the clipboard: with a clipboard
// program when there is one, else with OSC 52, which most terminals pass
// to the system clipboard.
func (u *ui) copyAnswer() {
	if u.answer == "" {
		u.chat.AddNotice("info", "", "nothing to copy yet")
		return
	}
	for _, t := range copyTools {
		if !usable(t, u.env.Getenv) {
			continue
		}
		ctx, cancel := context.WithTimeout(u.ctx, clipboardTimeout)
		cmd := exec.CommandContext(ctx, t.name, t.copy...)
		cmd.Stdin = strings.NewReader(u.answer)
		err := cmd.Run()
		cancel()
		if err == nil {
			u.chat.AddNotice("success", "", "copied the last answer")
			return
		}
	}
	if !u.plain {
		io.WriteString(u.cfg.out, "\x1b]52;c;"+base64.StdEncoding.EncodeToString([]byte(u.answer))+"\a")
		u.chat.AddNotice("success", "", "copied the last answer (through the terminal)")
		return
	}
	u.chat.AddNotice("warn", "", "no clipboard program found (wl-copy, xclip or pbcopy)")
}
