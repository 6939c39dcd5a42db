package exttest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/zut-go/zut/host"
	"github.com/zut-go/zut/proto"
)

// event sends ev when the extension subscribed to it and waits for it to
// settle. It reports whether the extension is still there.
func (r *run) event(ctx context.Context, ev proto.Event) bool {
	if !r.w.subscribed(ev.Name, false) {
		return true
	}
	sent, err := r.s.send(ev)
	if err != nil {
		r.sendFailed("events.deliver", ev.Name, err)
		return false
	}
	if !r.settled(ctx, "events.deliver", ev.Name, "after the "+ev.Name+" event", sent) {
		return false
	}
	r.delivered = append(r.delivered, ev.Name)
	return true
}

// sessionStart delivers the session events of a start.
func (r *run) sessionStart(ctx context.Context) {
	s := r.w.testSession()
	_ = r.event(ctx, proto.Event{Name: proto.EventSessionStart, Session: s}) &&
		r.event(ctx, proto.Event{Name: proto.EventSessionOpened, Session: s})
}

// intercept sends ic when the extension intercepts its event, checks the
// answer and returns it (nil when there is none). ok is false when the
// extension went away.
func (r *run) intercept(ctx context.Context, ic proto.EventIntercept, subject string) (resp *proto.EventInterceptResponse, ok bool) {
	if !r.w.subscribed(ic.Name, true) {
		return nil, true
	}
	ic.ID = r.s.nextID()
	r.w.expect(ic.ID, "event_intercept_response")
	from := r.s.mark()
	sent, err := r.s.send(ic)
	if err != nil {
		r.sendFailed("events.intercept", subject, err)
		return nil, false
	}
	began := time.Now()
	rec, err := r.s.reply(ctx, from, "event_intercept_response", ic.ID, r.t.Intercept)
	took := time.Since(began)
	if err != nil {
		st, msg := r.waitErr(err, "to event_intercept; zut allows the event then (C14)", r.t.Intercept)
		r.rs.add("events.intercept", subject, st, msg, sent).Duration = took
		if !r.alive() {
			r.died = true
			return nil, false
		}
		return nil, true
	}
	if rec.err != nil {
		r.rs.add("events.intercept", subject, Fail, fmt.Sprintf("the event_intercept_response does not decode: %v; zut allows the event", rec.err), sent, rec)
		return nil, r.settled(ctx, "events.intercept", subject, "after its answer")
	}
	resp = rec.frame.(*proto.EventInterceptResponse)
	r.answered++
	r.rs.add("events.intercept", subject, Pass, describeAnswer(resp)+" in "+round(took)).Duration = took
	r.judgeChain(ic, resp, sent, rec, subject)
	return resp, r.settled(ctx, "events.intercept", subject, "after answering the "+ic.Name+" interception", sent, rec)
}

// describeAnswer says what an interception answer decided.
func describeAnswer(a *proto.EventInterceptResponse) string {
	switch {
	case a.Block:
		return "blocked"
	case a.Cancel:
		return "cancelled"
	case a.ModifiedArgs != nil:
		return "rewrote the arguments"
	case a.ReplaceText != "":
		return "replaced the text"
	case a.Context != "":
		return "added context"
	case a.Action != "":
		return "answered " + a.Action
	case a.Messages != nil:
		return "replaced the context messages"
	case a.SystemPrompt != "" || a.InjectText != "":
		return "added to the prompt"
	case a.Content != nil || a.IsError != nil:
		return "rewrote the result"
	}
	return "allowed"
}

// answerMembers are the members of event_intercept_response that mean
// something for each interceptable event.
func answerMembers() map[string][]string {
	return answerMembersLazy.get(buildAnswerMembers)
}

// buildAnswerMembers makes what answerMembers returns.
func buildAnswerMembers() map[string][]string {
	return map[string][]string{
		proto.EventToolCall:            {"block", "reason", "modified_args"},
		proto.EventTurnStart:           {"block", "reason", "context"},
		proto.EventAssistantMessage:    {"block", "reason", "replace_text"},
		proto.EventInput:               {"action", "text"},
		proto.EventBeforeAgentStart:    {"system_prompt", "inject_text"},
		proto.EventToolResult:          {"content", "is_error"},
		proto.EventContextPrepare:      {"messages"},
		proto.EventBeforeFork:          {"cancel", "reason"},
		proto.EventBeforeSessionSwitch: {"cancel", "reason"},
		proto.EventBeforeCompact:       {"cancel", "reason"},
	}
}

var answerMembersLazy lazy[map[string][]string]

func (r *run) chainNote(subject string, st Status, rec *record, format string, args ...any) {
	r.chain = append(r.chain, finding{id: "events.chain", subject: subject, status: st, msg: fmt.Sprintf(format, args...), rec: rec})
}

// judgeChain checks that an answer keeps the interceptor chain working
// (C15).
func (r *run) judgeChain(ic proto.EventIntercept, a *proto.EventInterceptResponse, sent, rec *record, subject string) {
	var members map[string]json.RawMessage
	_ = json.Unmarshal([]byte(rec.text), &members)
	var extra []string
	for k := range members {
		if k != "type" && k != "id" && !slices.Contains(answerMembers()[ic.Name], k) {
			extra = append(extra, k)
		}
	}
	slices.Sort(extra)
	if len(extra) > 0 {
		r.chainNote(subject, Warn, rec, "%s mean nothing for %s; zut ignores them (answer with %s)", quoteList(extra), ic.Name, strings.Join(answerMembers()[ic.Name], ", "))
	}
	if (a.Block || a.Cancel) && strings.TrimSpace(a.Reason) == "" {
		r.chainNote(subject, Warn, rec, "refuses without a reason; whoever sees the refusal gets no explanation")
	}
	switch ic.Name {
	case proto.EventToolCall:
		if a.ModifiedArgs == nil {
			break
		}
		var args map[string]any
		if json.Unmarshal(a.ModifiedArgs, &args) != nil || args == nil {
			r.chainNote(subject, Fail, rec, "modified_args is not a JSON object; zut ignores it and says so (C15)")
			break
		}
		if a.Block {
			r.chainNote(subject, Warn, rec, "block with modified_args; zut ignores modified_args when it blocks")
		}
		var orig map[string]any
		_ = json.Unmarshal(ic.ToolArgs, &orig)
		var lost []string
		for k := range orig {
			if _, ok := args[k]; !ok {
				lost = append(lost, k)
			}
		}
		slices.Sort(lost)
		if ic.ToolName == "bash" {
			if t, ok := args["timeout"].(float64); !ok || t <= 0 || t != float64(int64(t)) {
				r.chainNote(subject, Fail, rec, "the rewrite of a bash call has no positive integer timeout; a rewrite replaces the whole object, so keep bash's required timeout (C15)")
				break
			}
		}
		if len(lost) > 0 {
			r.chainNote(subject, Warn, rec, "the rewrite drops %s; modified_args replaces the whole argument object, so keep what you do not change", quoteList(lost))
		}
	case proto.EventTurnStart:
		if len(a.Context) > 16<<10 {
			r.chainNote(subject, Warn, rec, "context is %d bytes; zut cuts the joined context to 16 KiB (C15)", len(a.Context))
		}
	case proto.EventInput:
		switch a.Action {
		case "", proto.InputHandled:
		case proto.InputTransform:
			if strings.TrimSpace(a.Text) == "" {
				r.chainNote(subject, Warn, rec, "transform with an empty text replaces the input with nothing")
			}
		default:
			r.chainNote(subject, Fail, rec, "action %q is not handled or transform; zut ignores the answer", a.Action)
		}
	case proto.EventContextPrepare:
		if a.Messages != nil {
			if err := host.CheckContext(a.Messages, len(ic.Messages)); err != nil {
				r.chainNote(subject, Fail, rec, "the messages cannot be used: %v; zut ignores them and says so in the chat", err)
			}
		}
	}
}

// again sends an interceptor its own rewrite, as the next link of a chain
// would see it (C15), and warns when it rewrites it once more.
func (r *run) again(ctx context.Context, ic proto.EventIntercept, a *proto.EventInterceptResponse, subject string) bool {
	if a == nil || a.Block || a.Cancel {
		return true
	}
	next := ic
	switch {
	case ic.Name == proto.EventToolCall && a.ModifiedArgs != nil && json.Valid(a.ModifiedArgs) && bytes.HasPrefix(bytes.TrimSpace(a.ModifiedArgs), []byte("{")):
		next.ToolArgs = a.ModifiedArgs
	case ic.Name == proto.EventAssistantMessage && a.ReplaceText != "" && a.ReplaceText != ic.Text:
		next.Text = a.ReplaceText
	case ic.Name == proto.EventInput && a.Action == proto.InputTransform && a.Text != "" && a.Text != ic.Text:
		next.Text = a.Text
	default:
		return true
	}
	b, ok := r.intercept(ctx, next, subject+" (its own rewrite)")
	if !ok || b == nil {
		return ok
	}
	switch {
	case b.Block:
		r.chainNote(subject, Warn, nil, "blocks the rewrite it made itself; the next interceptor sees the rewrite, so it should pass")
	case ic.Name == proto.EventToolCall && b.ModifiedArgs != nil && !jsonSame(b.ModifiedArgs, next.ToolArgs):
		r.chainNote(subject, Warn, nil, "rewrites its own rewrite again (%s, then %s); interceptors see the previous one's output, so a rewrite should be stable", a.ModifiedArgs, b.ModifiedArgs)
	case ic.Name != proto.EventToolCall && (b.ReplaceText != "" && b.ReplaceText != next.Text || b.Action == proto.InputTransform && b.Text != next.Text):
		r.chainNote(subject, Warn, nil, "rewrites its own rewrite again; interceptors see the previous one's output, so a rewrite should be stable")
	}
	return true
}

func jsonSame(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return jsonEqual(x, y)
}

// turn plays one agent turn in the order zut runs it (C11): the events
// the extension subscribed to and the interceptions it asked for, with
// realistic payloads, then a few more tool calls for interceptors.
func (r *run) turn(ctx context.Context) {
	const prompt = "Why does the build fail?"
	buildArgs := json.RawMessage(`{"command":"go build ./...","timeout":120}`)
	ctxMsgs := []proto.ContextMessage{
		{Index: 0, Role: proto.RoleUser, Content: "Add a run function to main.go."},
		{Index: 1, Role: proto.RoleAssistant, Content: "Done: main.go now defines run."},
		{Index: 2, Role: proto.RoleUser, Content: prompt},
	}
	answer := "The build fails because main.go calls run, which is not defined; I added it."
	type step struct {
		ic      *proto.EventIntercept
		ev      *proto.Event
		subject string
	}
	steps := []step{
		{ic: &proto.EventIntercept{Name: proto.EventInput, Text: prompt, Source: "interactive"}, ev: &proto.Event{Name: proto.EventInput, Text: prompt, Source: "interactive"}},
		{ic: &proto.EventIntercept{Name: proto.EventBeforeAgentStart, Prompt: prompt}},
		{ev: &proto.Event{Name: proto.EventAgentStart, Prompt: prompt}},
		{ic: &proto.EventIntercept{Name: proto.EventTurnStart, Step: 1}, ev: &proto.Event{Name: proto.EventTurnStart, Step: 1}},
		{ic: &proto.EventIntercept{Name: proto.EventContextPrepare, Messages: ctxMsgs}},
		{ev: &proto.Event{Name: proto.EventMessageStart}},
		{ev: &proto.Event{Name: proto.EventMessageUpdate, Chunk: "Let me build "}},
		{ev: &proto.Event{Name: proto.EventMessageUpdate, Chunk: "the project."}},
		{ev: &proto.Event{Name: proto.EventMessageEnd, Content: "Let me build the project."}},
		{ic: &proto.EventIntercept{Name: proto.EventToolCall, ToolID: "toolu_test_1", ToolName: "bash", ToolArgs: buildArgs},
			ev: &proto.Event{Name: proto.EventToolCall, ToolID: "toolu_test_1", ToolName: "bash", ToolArgs: buildArgs}, subject: "tool_call bash go build ./..."},
		{ev: &proto.Event{Name: proto.EventToolConfirmationRequested, ToolID: "toolu_test_1", ToolName: "bash", ToolPreview: "go build ./..."}},
		{ev: &proto.Event{Name: proto.EventToolExecutionStart, ToolID: "toolu_test_1", ToolName: "bash"}},
		{ev: &proto.Event{Name: proto.EventToolExecutionEnd, ToolID: "toolu_test_1", ToolName: "bash", IsError: true}},
		{ic: &proto.EventIntercept{Name: proto.EventToolResult, ToolID: "toolu_test_1", ToolName: "bash", ToolArgs: buildArgs, Content: "main.go:12: undefined: run", IsError: true},
			ev: &proto.Event{Name: proto.EventToolResult, ToolID: "toolu_test_1", ToolName: "bash", ToolArgs: buildArgs, Content: "main.go:12: undefined: run", IsError: true}},
		{ic: &proto.EventIntercept{Name: proto.EventAssistantMessage, Text: answer}, ev: &proto.Event{Name: proto.EventAssistantMessage, Text: answer}},
		{ev: &proto.Event{Name: proto.EventTurnEnd, Stop: proto.StopEndTurn}},
		{ev: &proto.Event{Name: proto.EventAgentEnd, Response: answer, Stop: proto.AgentCompleted}},
		{ev: &proto.Event{Name: proto.EventModelChange, Model: "openai/gpt-5", PreviousModel: "anthropic/claude-sonnet-4-5", Source: "user"}},
		{ev: &proto.Event{Name: proto.EventCustom, CustomName: "zut-test", Data: json.RawMessage(`{"from":"zut ext test"}`), From: "other-extension"}},
	}
	for _, c := range []struct{ tool, args, what string }{
		{"read", `{"path":"main.go"}`, "read main.go"},
		{"bash", `{"command":"git push --force origin main","timeout":60}`, "bash git push --force"},
		{"bash", `{"command":"rm -rf /","timeout":30}`, "bash rm -rf /"},
	} {
		steps = append(steps, step{ic: &proto.EventIntercept{Name: proto.EventToolCall, ToolID: "toolu_test_2", ToolName: c.tool, ToolArgs: json.RawMessage(c.args)}, subject: "tool_call " + c.what})
	}
	for _, st := range steps {
		if st.ic != nil {
			subject := st.subject
			if subject == "" {
				subject = st.ic.Name
			}
			a, ok := r.intercept(ctx, *st.ic, subject)
			if !ok || !r.again(ctx, *st.ic, a, subject) {
				return
			}
		}
		if st.ev != nil && !r.event(ctx, *st.ev) {
			return
		}
	}
}

// eventsSummary reports events.deliver, events.intercept and events.chain
// when nothing else did.
func (r *run) eventsSummary() {
	if !r.rs.has("events.deliver") {
		if len(r.delivered) == 0 {
			r.rs.add("events.deliver", "", Skip, "no events subscribed")
		} else {
			r.rs.add("events.deliver", "", Pass, "took "+strings.Join(dedupe(r.delivered), ", "))
		}
	}
	if !r.rs.has("events.intercept") {
		r.rs.add("events.intercept", "", Skip, "intercepts nothing")
	}
	if len(r.chain) > 0 {
		for _, f := range r.chain {
			r.rs.add(f.id, f.subject, f.status, f.msg, f.rec)
		}
		r.chain = nil
	} else if !r.rs.has("events.chain") {
		if r.answered == 0 {
			r.rs.add("events.chain", "", Skip, "no interception answered")
		} else {
			r.rs.add("events.chain", "", Pass, fmt.Sprintf("each of %s fits its event; rewrites are complete and stable", plural(r.answered, "answer", "answers")))
		}
	}
}

func dedupe(list []string) []string {
	var out []string
	for _, s := range list {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}
