package printmode

import (
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/zut-go/zut/agent/app"
	"github.com/zut-go/zut/proto"
)

// stderrUI is the chrome of print and JSON modes: notes, displays and
// diagnostics become "[name] text" lines on stderr; everything that needs
// a screen (status, widgets, panels, bells, submit) is ignored.
type stderrUI struct {
	app.NopUI
	mu  sync.Mutex
	w   io.Writer
	run *run // takes app.send's prompts and app.exit; nil in tests
}

// QueuePrompt serves app.send: the text runs as its own prompt after the
// running one.
func (u *stderrUI) QueuePrompt(ext, text string) error {
	if u.run == nil {
		return app.ErrNoPromptQueue
	}
	u.run.enqueue(text)
	return nil
}

// Exit serves app.exit: the running prompt stops and zut exits.
func (u *stderrUI) Exit(ext string) {
	u.line(ext, "asked zut to exit")
	if u.run != nil {
		u.run.stop()
	}
}

func (u *stderrUI) line(ext, text string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	for _, l := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		fmt.Fprintf(u.w, "[%s] %s\n", ext, l)
	}
}

func (u *stderrUI) Notify(ext, level, message string) {
	if level != proto.LevelInfo && level != "" {
		message = level + ": " + message
	}
	u.line(ext, message)
}
func (u *stderrUI) Display(ext, text string) { u.line(ext, text) }

// Print writes the note's text (with its subtitle) as "[name] text"
// lines; renderers are not used without a screen.
func (u *stderrUI) Print(ext string, p proto.Print) {
	text := p.Text
	if p.Subtitle != "" {
		text = p.Subtitle + ": " + text
	}
	if p.Style == proto.PrintError {
		text = "error: " + text
	}
	u.line(ext, text)
}
func (u *stderrUI) Log(ext, msg string) { u.line(ext, msg) }
func (u *stderrUI) Exited(ext string, err error, logPath string) {
	u.line(ext, fmt.Sprintf("stopped: %v (log: %s)", err, logPath))
}
