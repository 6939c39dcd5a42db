package printmode

import (
	"io"
	"os"
	"strings"
	"unicode/utf8"

	"golang.org/x/term"

	"github.com/zut-go/zut/agent"
	"github.com/zut-go/zut/agent/app"
	"github.com/zut-go/zut/agent/permissions"
)

// toolLine is the line print mode writes on stderr for each tool call, so
// that what a script's zut does is never silent: "› bash: seq 1 60".
func toolLine(ev agent.ToolCall, cwd string) string {
	_, subj := permissions.Subject(permissions.Call{Tool: ev.Name, Args: ev.Args, CWD: cwd})
	if subj == "" {
		subj = strings.TrimSpace(string(ev.Args))
	}
	subj = strings.Join(strings.Fields(subj), " ")
	const limit = 200
	if utf8.RuneCountInString(subj) > limit {
		subj = string([]rune(subj)[:limit-1]) + "…"
	}
	if subj == "" || subj == "{}" {
		return "› " + ev.Name
	}
	return "› " + ev.Name + ": " + subj
}

// dimmer writes lines dim on a terminal that takes colour, plain
// otherwise.
func dimmer(e *app.Env) func(w io.Writer, line string) {
	f, ok := e.Stderr.(*os.File)
	colour := ok && term.IsTerminal(int(f.Fd())) && e.Getenv("NO_COLOR") == "" && e.Getenv("TERM") != "dumb"
	return func(w io.Writer, line string) {
		if colour {
			io.WriteString(w, "\x1b[2m"+line+"\x1b[0m\n")
			return
		}
		io.WriteString(w, line+"\n")
	}
}
