package interactive

import (
	"fmt"
	"strings"

	"github.com/zut-go/zut/agent"
	"github.com/zut-go/zut/agent/app"
	"github.com/zut-go/zut/agent/session"
	"github.com/zut-go/zut/tui"
	"github.com/zut-go/zut/tui/ansi"
)

// The work around the conversation as the terminal shows it: the plan as
// a widget above the editor (ctrl+t folds it), the goal in the footer,
// the running subagents in the side rail (/subagents lists them, opens
// one's transcript, stops them), and the offer to stop them on Esc.

// workView is the UI's state of the work.
type workView struct {
	plan      []session.ChecklistItem
	planNote  string
	folded    bool
	goal      agent.GoalUpdate
	subs      map[string]*agent.SubagentUpdate
	subTask   map[string]string
	subOrder  []string
	offerOpen bool
}

func (u *ui) workState() *workView {
	if u.work == nil {
		u.work = &workView{subs: map[string]*agent.SubagentUpdate{}, subTask: map[string]string{}}
	}
	return u.work
}

// workEvent shows an event of the work; it reports whether ev was one.
func (u *ui) workEvent(ev agent.Event) bool {
	w := u.workState()
	switch ev := ev.(type) {
	case agent.PlanUpdate:
		w.plan, w.planNote = ev.Items, ev.Note
		u.drawPlan()
	case agent.GoalUpdate:
		prev := w.goal
		w.goal = ev
		if ev.Status != prev.Status && prev.Status != "" || ev.By == "model" {
			u.goalNote(ev)
		}
	case agent.SubagentStart:
		if _, ok := w.subs[ev.ID]; !ok {
			w.subOrder = append(w.subOrder, ev.ID)
		}
		state := "running"
		if ev.Queued {
			state = "queued"
		}
		w.subs[ev.ID] = &agent.SubagentUpdate{ID: ev.ID, State: state}
		w.subTask[ev.ID] = ev.Task
		u.drawSubagents()
	case agent.SubagentUpdate:
		if _, ok := w.subs[ev.ID]; !ok {
			w.subOrder = append(w.subOrder, ev.ID)
		}
		e := ev
		w.subs[ev.ID] = &e
		u.drawSubagents()
	case agent.SubagentEnd:
		delete(w.subs, ev.ID)
		level := "success"
		if ev.Status != "done" {
			level = "warn"
		}
		msg := fmt.Sprintf("subagent %s %s after %d step%s", ev.ID, ev.Status, ev.Steps, plural(ev.Steps))
		if ev.Error != "" {
			msg += ": " + firstLine(ev.Error)
		}
		u.chat.AddNotice(level, "", msg)
		u.drawSubagents()
	case agent.ScheduleChange:
		// The tool's result and the notices say what changed.
	default:
		return false
	}
	u.dirty = true
	return true
}

// goalNote puts a goal change into the transcript.
func (u *ui) goalNote(ev agent.GoalUpdate) {
	switch ev.Status {
	case session.GoalComplete:
		u.chat.AddNotice("success", "", "goal complete: "+ev.Reason)
	case session.GoalBlocked:
		u.chat.AddNotice("warn", "", "goal blocked: "+ev.Reason)
	case session.GoalActive:
		if ev.By == "model" {
			u.chat.AddNotice("info", "", "goal refined: "+ev.Objective)
		}
	}
}

// drawPlan sets the plan widget: done items struck, the active one
// marked; folded, one line.
func (u *ui) drawPlan() {
	w := u.workState()
	if len(w.plan) == 0 {
		u.chat.ClearWidget("zut", "plan")
		return
	}
	t, p := u.theme, u.chat.Options().Profile
	done, active := 0, -1
	for i, it := range w.plan {
		switch it.Status {
		case session.ItemDone:
			done++
		case session.ItemInProgress:
			active = i
		}
	}
	title := fmt.Sprintf("Plan %d/%d", done, len(w.plan))
	var lines []string
	if w.folded {
		line := title
		if active >= 0 {
			line += " · " + w.plan[active].Text
		}
		lines = []string{ansi.RenderSpans([]ansi.Span{{Text: line + "  (ctrl+t unfolds)", Style: t.Style(ansi.RoleMuted)}}, p, false)}
		title = ""
	} else {
		for _, it := range w.plan {
			var spans []ansi.Span
			switch it.Status {
			case session.ItemDone:
				spans = []ansi.Span{{Text: "✓ ", Style: t.Style(ansi.RoleSuccess)}, {Text: it.Text, Style: t.Style(ansi.RoleMuted).With(ansi.Style{Strike: true})}}
			case session.ItemInProgress:
				spans = []ansi.Span{{Text: "▶ ", Style: t.Style(ansi.RoleAccent)}, {Text: it.Text, Style: t.Style(ansi.RoleText).With(ansi.Style{Bold: true})}}
			default:
				spans = []ansi.Span{{Text: "○ ", Style: t.Style(ansi.RoleMuted)}, {Text: it.Text, Style: t.Style(ansi.RoleText)}}
			}
			lines = append(lines, ansi.RenderSpans(spans, p, false))
		}
		if w.planNote != "" {
			lines = append(lines, ansi.RenderSpans([]ansi.Span{{Text: w.planNote, Style: t.Style(ansi.RoleMuted)}}, p, false))
		}
		title += " · ctrl+t folds"
	}
	u.chat.SetWidget(tui.Widget{Source: "zut", ID: "plan", Title: title, Lines: lines, Priority: -10})
}

// togglePlan folds or unfolds the plan widget.
func (u *ui) togglePlan() {
	w := u.workState()
	if len(w.plan) == 0 {
		u.flash(reloadStatusFor, tui.Note{Level: "info", Text: "no plan yet: the model keeps one on longer tasks"})
		return
	}
	w.folded = !w.folded
	u.drawPlan()
	u.dirty = true
}

// drawSubagents sets the side rail of running and queued subagents.
func (u *ui) drawSubagents() {
	w := u.workState()
	ids := make([]string, 0, len(w.subs))
	for _, id := range w.subOrder {
		if _, ok := w.subs[id]; ok {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		u.chat.ClearWidget("zut", "subagents")
		return
	}
	t, p := u.theme, u.chat.Options().Profile
	var lines []string
	for _, id := range ids {
		s := w.subs[id]
		mark, role := "●", ansi.RoleAccent
		if s.State == "queued" {
			mark, role = "○", ansi.RoleMuted
		}
		head := []ansi.Span{{Text: mark + " ", Style: t.Style(role)}, {Text: id, Style: t.Style(ansi.RoleText).With(ansi.Style{Bold: true})},
			{Text: fmt.Sprintf(" %s · %d step%s", s.State, s.Steps, plural(s.Steps)), Style: t.Style(ansi.RoleMuted)}}
		lines = append(lines, ansi.RenderSpans(head, p, false))
		what := s.Activity
		if what == "" {
			what = w.subTask[id]
		}
		lines = append(lines, ansi.RenderSpans([]ansi.Span{{Text: "  " + firstLine(what), Style: t.Style(ansi.RoleDim)}}, p, false))
	}
	u.chat.SetWidget(tui.Widget{Source: "zut", ID: "subagents", Title: fmt.Sprintf("Subagents (%d) · /subagents", len(ids)), Lines: lines, Right: true})
}

// goalFooter is the footer's part for the goal, "" without one.
func (u *ui) goalFooter() string {
	if u.work == nil {
		return ""
	}
	g := u.work.goal
	if g.Objective == "" || g.Status == session.GoalCleared {
		return ""
	}
	text := []rune(g.Objective)
	if len(text) > 32 {
		text = append(text[:31], '…')
	}
	return "◎ " + string(text) + " (" + g.Status + ")"
}

// workCommand runs /plan, /goal, /schedule and /subagents.
func (u *ui) workCommand(name, args string) {
	if name == "subagents" && strings.TrimSpace(args) == "" {
		u.openSubagents()
		return
	}
	r, err := u.app.WorkCommand(u.ctx, name, args)
	if err != nil {
		u.chat.AddNotice("error", "", "/"+name+": "+err.Error())
		return
	}
	if name == "plan" {
		u.workState().folded = false
		u.drawPlan()
	}
	if r.Text != "" {
		u.chat.AddNotice("info", "", r.Text)
	}
	if r.Prompt != "" {
		u.submitPrompt(r.Prompt, "interactive")
	}
}

// openSubagents lists this run's subagents; choosing one offers its
// transcript and, while it runs, to stop it.
func (u *ui) openSubagents() {
	list := u.app.Subagents()
	if len(list) == 0 {
		u.chat.AddNotice("info", "", "no subagents in this session; the model starts them with subagent_spawn")
		return
	}
	var items []tui.ListItem
	for _, in := range list {
		detail := fmt.Sprintf("%s · %d steps", in.State, in.Steps)
		if in.Agent != "" {
			detail += " · " + in.Agent
		}
		if in.Activity != "" && (in.State == "running" || in.State == "queued") {
			detail += " · " + in.Activity
		}
		it := tui.ListItem{Label: in.ID + "  " + firstLine(in.Task), Value: in.ID, Detail: detail, Muted: in.State != "running" && in.State != "queued"}
		if in.State == "running" {
			it.Mark = "●"
		}
		items = append(items, it)
	}
	l := &tui.List{Title: "Subagents", Items: items, Filter: len(items) > 8, Hint: "enter: transcript or stop · esc closes"}
	u.openOverlay(&listOverlay{List: l, choose: func(u *ui, it tui.ListItem) { u.subagentActions(it.Value) }})
}

// subagentActions offers what can be done with subagent id.
func (u *ui) subagentActions(id string) {
	var state string
	for _, in := range u.app.Subagents() {
		if in.ID == id {
			state = in.State
		}
	}
	items := []tui.ListItem{{Label: "Show its transcript (read-only)", Value: "show"}}
	if state == "running" || state == "queued" {
		items = append(items, tui.ListItem{Label: "Stop it", Value: "stop"})
	}
	l := &tui.List{Title: "Subagent " + id + " (" + state + ")", Items: items}
	u.openOverlay(&listOverlay{List: l, choose: func(u *ui, it tui.ListItem) {
		switch it.Value {
		case "show":
			u.showTranscript(id)
		case "stop":
			u.stopSubagents(id)
		}
	}})
}

// showTranscript opens subagent id's transcript in a read-only box.
func (u *ui) showTranscript(id string) {
	msgs, err := u.app.SubagentTranscript(id)
	if err != nil {
		u.chat.AddNotice("error", "", err.Error())
		return
	}
	text := app.TranscriptText(msgs)
	if text == "" {
		text = "(nothing yet)"
	}
	l := &tui.List{Title: "Transcript of " + id + " (read-only)", Message: text, Items: []tui.ListItem{{Label: "Close", Value: "close"}},
		Hint: "pgup/pgdn scroll · enter or esc closes"}
	u.openOverlay(&listOverlay{List: l})
}

// stopSubagents stops id ("all": every one) on a goroutine: a child
// takes a moment to end its tools.
func (u *ui) stopSubagents(id string) {
	u.goJob(func() {
		n, err := u.app.StopSubagent(id)
		u.inbox.post(func(u *ui) {
			if err != nil {
				u.chat.AddNotice("error", "", err.Error())
			} else if id == "all" {
				u.chat.AddNotice("info", "", fmt.Sprintf("stopped %d subagents", n))
			}
			u.dirty = true
		})
	})
}

// offerStopSubagents asks, after Esc, whether the running subagents
// should stop too.
func (u *ui) offerStopSubagents() {
	if u.app == nil || u.quit {
		return
	}
	n := u.app.RunningSubagents()
	w := u.workState()
	if n == 0 || w.offerOpen {
		return
	}
	w.offerOpen = true
	l := &tui.List{Title: "Subagents", Message: fmt.Sprintf("%d subagent%s still running. Stop %s too?", n, plural(n), map[bool]string{true: "it", false: "them"}[n == 1]),
		Items: []tui.ListItem{{Label: "Keep them running", Value: "keep"}, {Label: "Stop them", Value: "stop"}}}
	u.openOverlay(&listOverlay{List: l,
		choose: func(u *ui, it tui.ListItem) {
			u.workState().offerOpen = false
			if it.Value == "stop" {
				u.stopSubagents("all")
			}
		},
		onCancel: func(u *ui) { u.workState().offerOpen = false },
	})
}
