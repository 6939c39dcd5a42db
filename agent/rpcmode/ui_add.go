package rpcmode

import (
	"context"
	"errors"
	"sync"

	"github.com/zut-go/zut/agent"
	"github.com/zut-go/zut/proto"
)

// The extUI methods of the protocol additions beyond v2 (see
// docs/protocol.md) that RPC mode maps to events. SuspendTUI and
// ResumeTUI keep nopUI's answer: there is no terminal to hand over.

// rpcPriorities remembers the status priorities extensions gave, for the
// ext_status events that follow. Safe for concurrent use.
type rpcPriorities struct {
	mu sync.Mutex
	m  map[[2]string]int // {extension, key} -> priority
}

func (p *rpcPriorities) set(ext, key string, prio int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.m == nil {
		p.m = map[[2]string]int{}
	}
	p.m[[2]string{ext, key}] = prio
}

func (p *rpcPriorities) get(ext, key string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.m[[2]string{ext, key}]
}

func (u *rpcUI) Print(ext string, p proto.Print) {
	style := p.Style
	if style == "" {
		style = proto.PrintPlain
	}
	u.s.event(proto.RPCExtPrint{Extension: ext, Text: p.Text, Style: style, Markdown: p.Markdown,
		BorderColor: p.BorderColor, Subtitle: p.Subtitle, Renderer: p.Renderer})
}

func (u *rpcUI) Header(ext string, h proto.Header) {
	u.s.event(proto.RPCExtHeader{Extension: ext, Text: h.Text, Markdown: h.Markdown, BorderColor: h.BorderColor})
}

func (u *rpcUI) Footer(ext string, f proto.Footer) {
	u.s.event(proto.RPCExtFooter{Extension: ext, Text: f.Text, Markdown: f.Markdown, BorderColor: f.BorderColor})
}

func (u *rpcUI) UIVisibility(ext string, v proto.UIVisibility) {
	u.s.event(proto.RPCExtUIVisibility{Extension: ext, UIVisibility: v})
}

// StatusPriority is remembered for the ext_status events of that item.
func (u *rpcUI) StatusPriority(ext, key string, priority int) {
	u.prio.set(ext, key, priority)
}

// SetEditorText passes the text to the client, whose editor it is.
func (u *rpcUI) SetEditorText(ext, text string) bool {
	u.s.event(proto.RPCExtEditorText{Extension: ext, Text: text})
	return true
}

// Exit (app.exit) is the client's decision in RPC mode: it is told, and
// may close stdin.
func (u *rpcUI) Exit(ext string) {
	u.s.event(proto.RPCExtExitRequested{Extension: ext})
}

// ReloadExtensions (app.reload_extensions) runs the reload on the
// dispatcher, like a reload_extensions command, so that it never races
// the commands. It is refused while a prompt runs or waits, and while zut
// starts or stops; a refusal becomes an ext_notify of level error. It
// always reports true: the app must not reload by itself.
func (u *rpcUI) ReloadExtensions(ext string) bool {
	fail := func(err error) {
		u.s.event(proto.RPCExtNotify{Extension: ext, Level: proto.LevelError, Message: "reload extensions: " + err.Error()})
	}
	queued := u.s.call(func(ctx context.Context) {
		err := u.s.jobs.idle(func() error {
			_, err := u.s.app.Reload(ctx)
			return err
		})
		if err != nil {
			fail(err)
		}
	})
	if !queued {
		fail(errors.New("zut is starting, stopping or busy; try again"))
	}
	return true
}

// QueuePrompt runs text from extension ext as a prompt after what runs
// and waits (app.send with mode "queue" in RPC mode; steer and interrupt
// are handled by the caller). Unlike a submit frame, which RPC mode
// ignores as the protocol says, app.send is an explicit request of an
// extension that declared host_requests. The prompt's events reach the
// client like any other; no command answers it.
func (u *rpcUI) QueuePrompt(ext, text string) error {
	if !u.s.live.Load() || u.s.closed.Load() {
		return errors.New("app.send: zut is starting or stopping; try again")
	}
	return u.s.jobs.add(&rpcJob{kind: "prompt", input: agent.Input{Text: text, Source: "extension"},
		started: func() {}, dropped: func(reason string) {
			u.s.event(proto.RPCExtNotify{Extension: ext, Level: proto.LevelWarn, Message: "prompt dropped: " + reason})
		}})
}
