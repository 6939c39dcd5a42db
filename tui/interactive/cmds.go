package interactive

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/zut-go/zut/agent/app"
	"github.com/zut-go/zut/tui/ansi"

	"github.com/zut-go/zut/agent"
	"github.com/zut-go/zut/host"
	"github.com/zut-go/zut/provider"
	"github.com/zut-go/zut/tui"
)

// reloadStatusFor is how long the /reload-ext status line stays.
const reloadStatusFor = 5 * time.Second

// command runs a slash command line ("/name args").
func (u *ui) command(line string) {
	name, args := app.ParseCommand(line)
	lname := strings.ToLower(name)
	if u.app == nil {
		return
	}
	needIdle := func() bool {
		if u.busy || u.job != nil {
			u.chat.AddNotice("warn", "", "/"+lname+" waits for the running turn: press esc to interrupt it, or try again when it ends")
			return false
		}
		return true
	}
	switch lname {
	case "help":
		u.showHelp()
	case "hotkeys":
		u.showKeys()
	case "exit", "quit":
		u.exit()
	case "clear":
		if needIdle() {
			u.clearAll()
		}
	case "new":
		if needIdle() {
			u.newConversation()
		}
	case "model":
		if args == "" {
			u.openModels()
		} else if needIdle() {
			u.setModel(args)
		}
	case "reasoning":
		if args == "" {
			u.openReasoning()
		} else {
			u.setReasoning(args)
		}
	case "settings":
		u.openSettings()
	case "permissions":
		u.openPermissions()
	case "sandbox":
		u.sandboxCommand(args)
	case "login":
		u.login(args)
	case "theme":
		if args == "" {
			u.openThemes()
		} else {
			u.setTheme(args, true)
		}
	case "compact":
		if needIdle() {
			u.compact(args)
		}
	case "fork":
		if needIdle() {
			u.openFork()
		}
	case "tree":
		if needIdle() {
			u.openTree()
		}
	case "sessions", "resume":
		if !needIdle() {
			return
		}
		if args != "" {
			u.resumeSession(args)
		} else {
			u.openSessions(false)
		}
	case "reload-ext":
		if needIdle() {
			u.reloadExt()
		}
	case "skills":
		u.showSkills()
	case "mcp":
		u.mcpCommand(args)
	case "telegram":
		u.telegramCommand(args)
	case "skill":
		u.chat.AddNotice("warn", "", "use /skill:<name> [what to do]; /skills lists the names")
	case "btw":
		u.askBTW(args)
	case "copy":
		u.copyAnswer()
	case "session":
		u.showSession()
	case "config":
		u.chat.AddNotice("info", "", strings.TrimRight(u.app.ConfigReport(), "\n"))
	case "name":
		u.nameSession(args)
	case "plan", "goal", "schedule", "subagents":
		u.workCommand(lname, args)
	default:
		if strings.HasPrefix(lname, "skill:") {
			u.runSkill(name[len("skill:"):], args)
			return
		}
		u.extensionCommand(name, args)
	}
	u.dirty = true
}

// extensionCommand runs an extension's command on a goroutine; its
// response comes back through the inbox.
func (u *ui) extensionCommand(name, args string) {
	u.extCommands++
	u.goJob(func() {
		ctx, cancel := context.WithTimeout(u.ctx, 35*time.Second)
		defer cancel()
		r, err := u.app.InvokeExtension(ctx, name, args)
		u.inbox.post(func(u *ui) {
			u.extCommands--
			u.commandResult(name, r, err)
			if u.extCommands == 0 && u.reloadAfter {
				u.reloadAfter = false
				u.reloadExt()
			}
		})
	})
}

// commandResult applies an extension command's response.
func (u *ui) commandResult(name string, r app.CommandResult, err error) {
	u.dirty = true
	switch {
	case errors.Is(err, app.ErrNoSuchCommand):
		u.chat.AddNotice("warn", "", fmt.Sprintf("unknown command /%s; /help lists the commands", name))
		return
	case err != nil:
		if u.ctx.Err() == nil {
			u.chat.AddNotice("error", "", fmt.Sprintf("/%s: %v", name, err))
		}
		return
	}
	if r.Error != "" {
		u.note(tui.Note{Source: r.Extension, Level: "error", Text: r.Error})
	}
	switch r.Action {
	case "prompt":
		if strings.TrimSpace(r.Prompt) != "" {
			u.submitPrompt(r.Prompt, "extension")
		}
	case "insert":
		u.ed.Insert(r.Insert)
	case "display":
		if r.Display != "" {
			// The answer to the user's command goes into the transcript:
			// it is not chrome, and it stays when the extension reloads.
			u.chat.AddPrint(tui.Print{Source: r.Extension, Text: r.Display})
		}
	}
}

// runSkill sends a skill's instructions with the user's request.
func (u *ui) runSkill(name, args string) {
	if u.reloading {
		u.chat.AddNotice("warn", "", "the skills are being reloaded; try again in a moment")
		return
	}
	text, err := u.app.SkillPrompt(name, args)
	if err != nil {
		level := "error"
		if u.app.Skills() == nil {
			level = "warn"
		}
		u.chat.AddNotice(level, "", err.Error())
		return
	}
	u.submitPrompt(text, "interactive")
}

// clearAll starts a new conversation on a clean screen, unless an
// extension cancels the switch.
func (u *ui) clearAll() {
	u.askExtensions("/clear", func(ctx context.Context) error { return u.app.AllowSessionSwitch(ctx, "clear") }, (*ui).clearNow)
}

func (u *ui) clearNow() {
	if err := u.app.NewSession(); err != nil {
		u.chat.AddNotice("error", "", err.Error())
		return
	}
	u.chat.Clear()
	u.queue = nil
	u.syncQueue()
	u.shellCtx = nil
	u.answer = ""
	u.turn = turnStats{}
	u.costBase = 0
	u.closeBTW()
	if !u.plain {
		u.screen.Clear()
		// Clear the screen and the scrollback, then draw from the top.
		u.cfg.out.Write([]byte("\x1b[H\x1b[2J\x1b[3J"))
		u.screen.Invalidate()
	}
	u.showHeader()
}

// newConversation starts a new conversation below the old one, unless
// an extension cancels the switch.
func (u *ui) newConversation() {
	u.askExtensions("/new", func(ctx context.Context) error { return u.app.AllowSessionSwitch(ctx, "new") }, (*ui).newNow)
}

func (u *ui) newNow() {
	if err := u.app.NewSession(); err != nil {
		u.chat.AddNotice("error", "", err.Error())
		return
	}
	u.chat.Clear()
	u.turn = turnStats{}
	u.costBase = 0
	u.answer = ""
	u.chat.AddNotice("info", "", "new conversation")
}

// setModel switches the model.
func (u *ui) setModel(spec string) {
	res, err := u.app.SetModel(u.ctx, spec)
	if err != nil {
		u.chat.AddNotice("error", "", "/model "+spec+": "+err.Error())
		return
	}
	// The choice is the model of the next start too, as /settings' model
	// row would save it (the demo model stays a choice of one run).
	saved := ""
	if res.Provider.Name != provider.DemoProvider {
		u.st.Model = res.Provider.Name + "/" + res.Model.ID
		u.saveSettings()
		saved = " (the default from now on; /settings changes it)"
	}
	u.chat.AddNotice("success", "", "model: "+res.Display+saved)
	u.turn.ctxTokens = 0
}

// setReasoning changes the reasoning level.
func (u *ui) setReasoning(level string) {
	r, err := u.app.SetReasoning(level)
	if err != nil {
		u.chat.AddNotice("error", "", "/reasoning: "+err.Error())
		return
	}
	shown := r.Effort
	if r.BudgetTokens > 0 {
		shown = fmt.Sprintf("%d tokens", r.BudgetTokens)
	}
	if shown == "" {
		shown = "the model's default"
	}
	u.chat.AddNotice("success", "", "reasoning: "+shown)
}

// compact summarises the conversation in the background.
func (u *ui) compact(instructions string) {
	ctx, cancel := context.WithCancel(u.ctx)
	u.job = &job{label: "Compacting", start: u.now(), cancel: cancel}
	u.goJob(func() {
		defer cancel()
		summary, err := u.app.Compact(ctx, instructions)
		stopped := ctx.Err() != nil
		u.inbox.post(func(u *ui) {
			u.job = nil
			u.dirty = true
			switch {
			case errors.Is(err, agent.ErrNothingToCompact):
				u.chat.AddNotice("info", "", err.Error())
			case err != nil && stopped:
				u.chat.AddNotice("warn", "", "compaction cancelled")
			case err != nil:
				u.chat.AddNotice("error", "", "compact: "+err.Error())
			default:
				u.chat.AddNotice("success", "", fmt.Sprintf("compacted: the conversation continues from a %d-line summary", strings.Count(summary, "\n")+1))
			}
			u.startQueued()
		})
	})
}

// startQueued starts the next queued prompt when nothing runs.
func (u *ui) startQueued() {
	if u.busy || u.job != nil || len(u.queue) == 0 || u.quit {
		return
	}
	u.startInput(u.popQueued())
}

// reloadExt restarts the extensions and shows what happened: a status
// line for five seconds with each load error in red, and the failures in
// the chat.
func (u *ui) reloadExt() {
	if u.app.Host() == nil {
		u.chat.AddNotice("warn", "", "extensions are off (--no-extensions)")
		return
	}
	ctx, cancel := context.WithCancel(u.ctx)
	u.job = &job{label: "Reloading extensions", start: u.now(), cancel: cancel}
	// The reload replaces the app's skills and tools on its goroutine:
	// nothing here reads them until it is done.
	u.reloading = true
	u.goJob(func() {
		defer cancel()
		reports, err := u.app.Reload(ctx)
		u.inbox.post(func(u *ui) {
			u.job = nil
			u.reloading = false
			u.dirty = true
			u.reloaded(reports, err)
			u.askTrust() // the reload found the project code changed since it was trusted
			u.startQueued()
		})
	})
}

func (u *ui) reloaded(reports []host.Report, err error) {
	u.loadThemes(true)
	u.applyTheme()
	u.refreshCommands()
	var lines []tui.Note
	if err != nil {
		lines = append(lines, tui.Note{Level: "error", Text: "reload extensions: " + err.Error()})
	}
	failures := app.LoadErrors(reports)
	loaded := 0
	for _, r := range reports {
		if r.Status == host.StatusOK || r.Status == host.StatusAutoReady {
			loaded++
		}
	}
	summary := fmt.Sprintf("extensions reloaded: %d loaded", loaded)
	if len(failures) > 0 {
		summary += fmt.Sprintf(", %d failed", len(failures))
	}
	lines = append([]tui.Note{{Level: "success", Text: summary}}, lines...)
	if len(failures) > 0 {
		lines[0].Level = "warn"
	}
	for _, f := range failures {
		lines = append(lines, tui.Note{Level: "error", Text: f})
		u.chat.AddNotice("error", "", f)
	}
	u.flash(reloadStatusFor, lines...)
}

// showSkills lists the skills.
func (u *ui) showSkills() {
	if u.reloading {
		u.chat.AddNotice("warn", "", "the skills are being reloaded; try again in a moment")
		return
	}
	if u.app.Skills() == nil || len(u.app.Skills().List()) == 0 {
		u.chat.AddNotice("info", "", "no skills found; put <name>/SKILL.md under .zut/skills or $ZUT_HOME/skills")
		return
	}
	var b strings.Builder
	b.WriteString("**Skills** (use one with `/skill:<name>`)\n\n")
	for _, s := range u.app.Skills().List() {
		fmt.Fprintf(&b, "- `%s` %s\n", s.Name, s.Description)
	}
	u.chat.AddMarkdown(b.String(), ansi.RoleText)
}

// showSession shows where the session is kept. The file's path goes on
// lines of its own with no indent and no mark, so that it can be copied
// whole: it is cut at the width only when it is wider than the terminal.
func (u *ui) showSession() {
	s := u.app.Session()
	id := u.app.SessionIdentity()
	title := s.Title()
	if title == "" {
		title = "(untitled)"
	}
	u.chat.AddNotice("info", "", fmt.Sprintf("session %s\ntitle: %s\nbranch: %s\nmessages: %d\nresume with: zut -r %s", s.ID(), title, id.ID, len(s.Messages()), s.ID()))
	path := s.Path()
	if path == "" {
		u.chat.AddNotice("info", "", "file: none (--no-session keeps it in memory)")
		return
	}
	t := u.theme
	p := u.chat.Options().Profile
	u.chat.AddBlock(func(width int) []string {
		// The path is one line that the terminal wraps, so that it is
		// copied from the scrollback in one piece.
		return []string{
			ansi.RenderSpans([]ansi.Span{{Text: "file:", Style: t.Style(ansi.RoleMuted)}}, p, false),
			tui.Unwrapped(ansi.RenderSpans([]ansi.Span{{Text: path, Style: t.Style(ansi.RoleText)}}, p, false)),
		}
	})
}

// nameSession sets the session's title.
func (u *ui) nameSession(title string) {
	if title == "" {
		u.chat.AddNotice("warn", "", "/name needs a title: /name fix the parser")
		return
	}
	if err := u.app.Session().SetTitle(title); err != nil {
		u.chat.AddNotice("error", "", "/name: "+err.Error())
		return
	}
	u.chat.AddNotice("success", "", "session named: "+title)
}
