package exttest

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Status is the outcome of one check.
type Status string

// Statuses, from best to worst; Skip means the check did not apply (the
// message says why).
const (
	Pass Status = "pass"
	Skip Status = "skip"
	Warn Status = "warn"
	Fail Status = "fail"
)

// CheckInfo describes one check of the catalog.
type CheckInfo struct {
	ID    string // "calls.command": the phase, a dot, the check
	Phase string
	Ref   string // the spec section and clarifications it comes from
	Title string // what it checks, one line
}

// catalog lists every check, in report order.
var catalog = []CheckInfo{
	{"handshake.manifest", "handshake", "spec: Layout & discovery; C23", "extension.json is valid and its exec is inside the directory"},
	{"handshake.hello_first", "handshake", "spec: hello (required, first frame)", "the first line on stdout is a hello frame"},
	{"handshake.hello_deadline", "handshake", "C1", "hello arrives within 5 s"},
	{"handshake.protocol_version", "handshake", "spec: Hello handshake; C3", "hello.protocol_version is 2"},
	{"handshake.name", "handshake", "spec: extension.json name; C2", "hello.name equals the manifest's name"},
	{"handshake.capabilities", "handshake", "spec: hello; C6", "every capability in hello is one zut knows"},
	{"handshake.version_mismatch", "handshake", "spec: hello_ack (the major must match); C3", "after a hello_ack of another major version the extension sends nothing more and exits within 2 s"},

	{"registration.commands", "registration", "spec: register_command; C8", "command names are one word, unique without regard to case"},
	{"registration.tools", "registration", "spec: register_tool; C8, C9", "tool names are valid, unique and not reserved"},
	{"registration.schema", "registration", "spec: register_tool schema", "each tool's schema is a JSON Schema object the model APIs accept"},
	{"registration.subscribe", "registration", "spec: subscribe; C6", "subscribed and intercepted events are ones zut sends"},
	{"registration.ready", "registration", "spec: ready; C5", "ready closes the registration window"},
	{"registration.late", "registration", "spec: Lifecycle; C5", "registrations after ready are valid; subscribe comes before ready (a subscribe after it fails)"},
	{"registration.declared", "registration", "spec: hello capabilities; C6", "what the extension registers matches the capabilities it lists"},

	{"calls.command", "calls", "spec: command_invoked, command_response; C14", "each command is answered with a well-formed command_response within 30 s"},
	{"calls.tool", "calls", "spec: tool_call, tool_result; C14", "each tool is answered with a well-formed tool_result within its deadline"},
	{"calls.tool_invalid", "calls", "spec: tool_call (the extension validates args)", "invalid arguments get a well-formed result with is_error"},
	{"calls.ids", "calls", "spec: Wire format (id); C13", "every reply echoes the id of a request, once"},
	{"calls.unknown_fields", "calls", "protocol.md: Transport and framing; C7", "a request with members the extension does not know is still answered"},

	{"events.deliver", "events", "spec: event; C11, C16", "subscribed events, in a turn's order, are taken without a hitch"},
	{"events.intercept", "events", "spec: event_intercept; C14", "each interception is answered within 5 s with the id echoed"},
	{"events.chain", "events", "spec: event_intercept_response; C15", "answers keep the chain working: complete object rewrites, members that fit the event"},

	{"cancel.tool_cancel", "cancel", "spec: tool_cancel; C6", "a tool_cancel for an unknown id is ignored; a running call that is cancelled sends no tool_result and leaves no panel open in the 1 s after it; the next call is answered"},

	{"panels.open", "panels", "spec: command_response open_panel; C17", "an opened panel has an id and content"},
	{"panels.keys", "panels", "spec: panel_key, panel_render", "keys are taken; redraws name the open panel"},
	{"panels.close", "panels", "spec: panel_close; C17", "no panel_render for a panel in the 1 s after the host closed it"},

	{"state.details", "state", "spec: tool_result details; C19", "details are valid JSON within 256 KiB"},
	{"state.restore", "state", "spec: session events state; C19", "the extension takes its state back in session events and keeps working"},

	{"robustness.unknown_frame", "robustness", "protocol.md: Transport and framing; C12", "a frame of an unknown type is ignored: the extension keeps running and answers the next request"},
	{"robustness.slow_host", "robustness", "spec: Wire format", "a request that arrives in pieces is answered"},
	{"robustness.stdin_closed", "robustness", "spec: tool_cancel (clean up on stdin EOF); C21", "the extension exits when its stdin is closed"},
	{"robustness.shutdown", "robustness", "spec: shutdown, shutdown_ack; C21", "shutdown is answered with shutdown_ack, then an exit, within 2 s"},
	{"robustness.stdout", "robustness", "spec: Wire format (stdout is for frames); C12", "every stdout line is a JSON frame an extension sends"},
	{"robustness.frames", "robustness", "spec: Extension -> host; C12", "frames decode and their members make sense"},
	{"robustness.process_group", "robustness", "C21", "no process of the extension's group outlives it, and none outside it holds its pipes"},
	{"robustness.stderr", "robustness", "spec: Lifecycle (stderr goes to the log)", "stderr stays small"},

	{"additions.capabilities", "additions", "protocol.md: Additions, Capabilities; C6", "additive frames and subscriptions come with their capability"},
	{"additions.host_request", "additions", "protocol.md: Host requests", "host requests have an id, a known method and usable params"},
	{"additions.ui", "additions", "protocol.md: Added UI frames; C18", "ui2 frames are well formed"},
	{"additions.shortcut", "additions", "protocol.md: Added UI frames (register_shortcut)", "shortcuts have a key that can be pressed (see Key names) and their presses are taken"},
	{"additions.complete", "additions", "protocol.md: Added UI frames (completion)", "command_complete is answered within 2 s"},
	{"additions.editor_key", "additions", "protocol.md: Added UI frames (set_editor)", "the keys of set_editor can be pressed, and editor_key is answered within 200 ms with a known action (a remap to a key name)"},
	{"additions.render", "additions", "protocol.md: Added UI frames (renderers)", "render_tool and render_message are answered within 1 s"},
	{"additions.option", "additions", "protocol.md: Options", "register_option has a name"},
}

// Catalog returns every check the tester knows, in report order.
func Catalog() []CheckInfo { return slices.Clone(catalog) }

func info(id string) CheckInfo {
	for _, c := range catalog {
		if c.ID == id {
			return c
		}
	}
	panic("exttest: check " + id + " is not in the catalog")
}

// Check is the outcome of one check, for one subject (a command, a tool,
// an event...) when the check applies to several.
type Check struct {
	ID       string
	Phase    string
	Ref      string
	Subject  string
	Status   Status
	Message  string
	Duration time.Duration // how long the probe took, 0 when none ran
	Frames   []Frame       // the frames that show the outcome
}

// Frame is one line of the conversation, as evidence.
type Frame struct {
	FromHost bool          // sent by the tester (the host); false: by the extension
	At       time.Duration // since the process started
	Text     string        // the line, shortened when long
}

// maxEvidence bounds the text of one evidence frame.
const maxEvidence = 400

func evidence(r *record) Frame {
	t := r.text
	if len(t) > maxEvidence {
		t = fmt.Sprintf("%s... (%d bytes)", t[:maxEvidence], len(r.text))
	}
	return Frame{FromHost: r.fromHost, At: r.at, Text: t}
}

// results collects the checks of one run. It is used by one goroutine.
type results struct {
	checks []Check
}

func (rs *results) add(id, subject string, st Status, msg string, frames ...*record) *Check {
	ci := info(id)
	c := Check{ID: id, Phase: ci.Phase, Ref: ci.Ref, Subject: subject, Status: st, Message: msg}
	for _, f := range frames {
		if f != nil {
			c.Frames = append(c.Frames, evidence(f))
		}
	}
	rs.checks = append(rs.checks, c)
	return &rs.checks[len(rs.checks)-1]
}

func (rs *results) addf(id, subject string, st Status, frames []*record, format string, args ...any) *Check {
	return rs.add(id, subject, st, fmt.Sprintf(format, args...), frames...)
}

// has reports whether a check id was recorded.
func (rs *results) has(id string) bool {
	return slices.ContainsFunc(rs.checks, func(c Check) bool { return c.ID == id })
}

// finding is a problem seen in a frame, kept until the end of the run.
type finding struct {
	id      string
	subject string
	status  Status
	msg     string
	rec     *record
}

// ordered sorts checks by the catalog, keeping the order of subjects.
func ordered(cs []Check) []Check {
	rank := map[string]int{}
	for i, c := range catalog {
		rank[c.ID] = i
	}
	out := slices.Clone(cs)
	slices.SortStableFunc(out, func(a, b Check) int { return rank[a.ID] - rank[b.ID] })
	return out
}

// plural returns "1 thing" or "n things".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}

// article puts "a" or "an" before a frame type name.
func article(typ string) string {
	if strings.ContainsRune("aeiou", rune(typ[0])) {
		return "an " + typ
	}
	return "a " + typ
}
