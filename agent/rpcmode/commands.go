package rpcmode

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/zut-go/zut/agent/app"
	"strconv"
	"strings"
	"sync"

	"github.com/zut-go/zut/agent"
	"github.com/zut-go/zut/proto"
	"github.com/zut-go/zut/provider"
)

// dispatch decodes and handles one command line on the dispatcher
// goroutine. It returns an error only when zut must end (a wrong token).
func (s *rpcServer) dispatch(ctx context.Context, line []byte) error {
	cmd, err := proto.DecodeRPCCommand(line)
	if err != nil {
		s.replyDecodeError(err)
		return nil
	}
	switch c := cmd.(type) {
	case *proto.RPCHello:
		if s.token != "" && !s.tokenOK(c.Token) {
			return s.badToken(c)
		}
		s.cmdHello(c)
	case *proto.RPCPrompt:
		s.cmdPrompt(c)
	case *proto.RPCAbort:
		// The responses go out before the running prompt's turn_end and
		// done: the dropped commands', then abort's.
		s.jobs.dropQueued("aborted before it started")
		s.ok(c, nil)
		s.jobs.cancelRunning()
		s.app.Agent().Abort()
	case *proto.RPCCompact:
		s.queueCompact(c, c.Instructions, func() { s.ok(c, map[string]bool{"started": true}) })
	case *proto.RPCGetState:
		s.ok(c, s.state())
	case *proto.RPCGetMessages:
		s.ok(c, map[string]any{"messages": s.messages()})
	case *proto.RPCClear:
		s.answer(c, nil, s.switchSession(ctx, "clear", s.app.NewSession))
	case *proto.RPCSetModel:
		s.cmdSetModel(ctx, c)
	case *proto.RPCSetReasoning:
		s.cmdSetReasoning(c)
	case *proto.RPCGetModels:
		s.task(ctx, func(ctx context.Context) { s.cmdGetModels(ctx, c) })
	case *proto.RPCPing:
		s.ok(c, map[string]bool{"pong": true})
	case *proto.RPCGetCommands:
		s.ok(c, map[string]any{"commands": s.commandList()})
	case *proto.RPCRunCommand:
		s.cmdRunCommand(ctx, c)
	case *proto.RPCPanelKey:
		s.cmdPanelKey(c)
	case *proto.RPCPanelClose:
		s.cmdPanelClose(c)
	case *proto.RPCSteer:
		s.cmdSteer(c)
	case *proto.RPCFollowUp:
		s.cmdFollowUp(c)
	case *proto.RPCNewSession:
		err := s.switchSession(ctx, "new", s.app.NewSession)
		s.answer(c, s.sessionData(), err)
	case *proto.RPCFork:
		s.cmdFork(ctx, c)
	case *proto.RPCSwitchSession:
		s.cmdSwitchSession(ctx, c)
	case *proto.RPCSwitchBranch:
		s.cmdSwitchBranch(c)
	case *proto.RPCGetTree:
		s.ok(c, s.tree())
	case *proto.RPCGetSessions:
		data, err := s.sessions()
		s.answer(c, data, err)
	case *proto.RPCGetExtensions:
		s.ok(c, s.extensions())
	case *proto.RPCReloadExtensions:
		s.cmdReload(ctx, c)
	case *proto.RPCSetGoal:
		s.cmdSetGoal(c)
	case *proto.RPCGetSubagents:
		s.ok(c, map[string]any{"subagents": s.subagents()})
	case *proto.RPCGetMCPServers:
		if c.Restart == "" {
			s.ok(c, map[string]any{"servers": s.app.MCPServers()})
			break
		}
		// A restart answers once the server is up again (or failed).
		s.task(ctx, func(ctx context.Context) {
			err := s.app.RestartMCP(ctx, c.Restart)
			s.answer(c, map[string]any{"servers": s.app.MCPServers()}, err)
		})
	case *proto.RPCExtUIResponse:
		deliver, err := s.ui.answer(c)
		s.answer(c, nil, err)
		if deliver != nil {
			deliver()
		}
	default:
		s.fail(cmd, errors.New("unknown command"))
	}
	return nil
}

// answer sends data on success and err otherwise.
func (s *rpcServer) answer(cmd proto.RPCCommand, data any, err error) {
	if err != nil {
		s.fail(cmd, err)
		return
	}
	s.ok(cmd, data)
}

func (s *rpcServer) cmdHello(c *proto.RPCHello) {
	m := s.app.Agent().Model()
	s.ok(c, proto.RPCHelloResult{
		ProtocolVersion: proto.RPCProtocolVersion,
		Version:         app.FullVersion(),
		Provider:        m.Provider,
		Model:           m.ID,
		Commands:        proto.RPCCommandTypes,
	})
}

func (s *rpcServer) cmdPrompt(c *proto.RPCPrompt) {
	in, err := promptInput(c.Message, c.Images)
	if err != nil {
		s.fail(c, err)
		return
	}
	// "/name args" of a prompt template is the template's prompt.
	if text, ok := s.app.ExpandTemplate(in.Text); ok {
		in.Text = text
	}
	s.queuePrompt(c, in, func() { s.ok(c, map[string]bool{"started": true}) })
}

// queuePrompt queues a prompt job for cmd; started sends cmd's response.
func (s *rpcServer) queuePrompt(cmd proto.RPCCommand, in agent.Input, started func()) {
	err := s.jobs.add(&rpcJob{kind: "prompt", input: in, started: started,
		dropped: func(reason string) { s.fail(cmd, errors.New(reason)) }})
	if err != nil {
		s.fail(cmd, err)
	}
}

// queueCompact queues a compaction job for cmd.
func (s *rpcServer) queueCompact(cmd proto.RPCCommand, instructions string, started func()) {
	err := s.jobs.add(&rpcJob{kind: "compact", instructions: instructions, started: started,
		dropped: func(reason string) { s.fail(cmd, errors.New(reason)) }})
	if err != nil {
		s.fail(cmd, err)
	}
}

// runJob runs one job on the jobs worker. The agent reports a prompt's
// outcome in events and always ends it with done; a compaction ends with
// compact_done, or with an error event when it failed (as the original
// zut does, so that its clients do not read a failure as done). That last event
// is held back until the job counts as finished, so that a client may
// send any command as soon as it sees it.
func (s *rpcServer) runJob(ctx context.Context, job *rpcJob) {
	s.hold.start(job.kind)
	var last proto.Frame
	switch job.kind {
	case "prompt":
		err := s.app.Prompt(ctx, job.input)
		if errors.Is(err, agent.ErrBusy) {
			s.agentEvent(agent.Error{Message: err.Error()})
			last = rpcAgentFrame{agent.Done{}}
		}
	case "compact":
		if _, err := s.app.Compact(ctx, job.instructions); err != nil {
			msg := err.Error()
			if ctx.Err() != nil {
				msg = "compact aborted"
			}
			last = rpcAgentFrame{agent.Error{Message: msg}}
		}
	}
	held := s.hold.stop()
	s.jobs.finish()
	if held != nil {
		s.out.send(held)
	}
	if last != nil {
		s.out.frame(last)
	}
}

// rpcHold holds back the event that ends the running job (done for a
// prompt, compact_done for a compaction) until the job is finished. Safe
// for concurrent use.
type rpcHold struct {
	mu   sync.Mutex
	kind string // the running job's kind, "" when none
	line []byte // the held event
}

func (h *rpcHold) start(kind string) {
	h.mu.Lock()
	h.kind, h.line = kind, nil
	h.mu.Unlock()
}

// take keeps line when ev ends the running job and reports whether it did.
func (h *rpcHold) take(ev agent.Event, line []byte) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch ev.(type) {
	case agent.Done:
		if h.kind != "prompt" {
			return false
		}
	case agent.CompactDone:
		if h.kind != "compact" {
			return false // an automatic compaction within a prompt
		}
	default:
		return false
	}
	h.line = line
	return true
}

// stop ends holding and returns the held line, if any.
func (h *rpcHold) stop() []byte {
	h.mu.Lock()
	defer h.mu.Unlock()
	line := h.line
	h.kind, h.line = "", nil
	return line
}

// rpcAgentFrame encodes an agent event as a frame, for events zut itself
// sends in the agent's vocabulary.
type rpcAgentFrame struct{ ev agent.Event }

func (f rpcAgentFrame) Type() string { return f.ev.EventType() }

func (f rpcAgentFrame) MarshalJSON() ([]byte, error) { return json.Marshal(f.ev) }

// imageTypes are the image types the providers accept.
func imageTypes() map[string]bool {
	return imageTypesLazy.get(func() map[string]bool {
		return map[string]bool{"image/png": true, "image/jpeg": true, "image/gif": true, "image/webp": true}
	})
}

var imageTypesLazy lazy[map[string]bool]

// promptInput checks a prompt's text and images.
func promptInput(text string, images []proto.RPCImage) (agent.Input, error) {
	in := agent.Input{Text: text, Source: "rpc"}
	for i, im := range images {
		if !imageTypes()[im.MIMEType] {
			return in, fmt.Errorf("image %d: mime_type %q is not image/png, image/jpeg, image/gif or image/webp", i+1, im.MIMEType)
		}
		if im.Data == "" {
			return in, fmt.Errorf("image %d: data is empty; send the image as standard base64", i+1)
		}
		if _, err := base64.StdEncoding.DecodeString(im.Data); err != nil {
			return in, fmt.Errorf("image %d: data is not standard base64: %v", i+1, err)
		}
		in.Images = append(in.Images, provider.Block{Type: provider.BlockImage, MIMEType: im.MIMEType, Data: im.Data})
	}
	if strings.TrimSpace(text) == "" && len(in.Images) == 0 {
		return in, errors.New(`message is empty: send {"type":"prompt","message":"..."}`)
	}
	return in, nil
}

func (s *rpcServer) cmdSetModel(ctx context.Context, c *proto.RPCSetModel) {
	spec := strings.TrimSpace(c.Model)
	if spec == "" {
		s.fail(c, errors.New(`model is empty: send {"type":"set_model","model":"provider/id"} (get_models lists them)`))
		return
	}
	var res *provider.Resolved
	err := s.jobs.idle(func() error {
		var err error
		res, err = s.app.SetModel(ctx, spec)
		return err
	})
	if err != nil {
		s.fail(c, err)
		return
	}
	s.ok(c, map[string]string{"model": res.Model.ID, "provider": res.Provider.Name})
}

func (s *rpcServer) cmdSetReasoning(c *proto.RPCSetReasoning) {
	if strings.TrimSpace(c.Reasoning) == "" {
		s.fail(c, errors.New(`reasoning is empty: use off, minimal, low, medium, high, max, adaptive or a token budget of at least 1024`))
		return
	}
	r, err := s.app.SetReasoning(c.Reasoning)
	if err != nil {
		s.fail(c, err)
		return
	}
	s.ok(c, map[string]string{"reasoning": reasoningText(r)})
}

// reasoningText is the reasoning setting as get_state shows it.
func reasoningText(r provider.Reasoning) string {
	switch {
	case r.BudgetTokens > 0:
		return strconv.Itoa(r.BudgetTokens)
	case r.Effort == "":
		return "default"
	}
	return r.Effort
}

func (s *rpcServer) cmdSteer(c *proto.RPCSteer) {
	if strings.TrimSpace(c.Message) == "" {
		s.fail(c, errors.New(`message is empty: send {"type":"steer","message":"..."}`))
		return
	}
	steered := false
	s.jobs.withRunning(func(kind string) {
		steered = kind == "prompt" && s.app.Agent().Steer(c.Message)
	})
	if !steered {
		s.fail(c, errors.New("no prompt is running to steer: send a prompt instead"))
		return
	}
	s.ok(c, nil)
}

// cmdFollowUp queues a prompt behind the running one: inside the running
// prompt when there is one (it ends with a single done), else as the
// next prompt.
func (s *rpcServer) cmdFollowUp(c *proto.RPCFollowUp) {
	if strings.TrimSpace(c.Message) == "" {
		s.fail(c, errors.New(`message is empty: send {"type":"follow_up","message":"..."}`))
		return
	}
	joined := false
	s.jobs.withRunning(func(kind string) {
		joined = kind == "prompt" && s.app.Agent().FollowUp(c.Message)
	})
	if joined {
		s.ok(c, map[string]bool{"queued": true})
		return
	}
	queued := s.jobs.busy()
	err := s.jobs.add(&rpcJob{kind: "prompt", input: agent.Input{Text: c.Message, Source: "rpc"}, started: func() {},
		dropped: func(string) {}})
	if err != nil {
		s.fail(c, err)
		return
	}
	s.ok(c, map[string]bool{"queued": queued})
}

// switchSession runs op (a new, cleared or resumed session) while idle,
// once the extensions' before_session_switch allowed it for reason.
func (s *rpcServer) switchSession(ctx context.Context, reason string, op func() error) error {
	return s.jobs.idle(func() error {
		if err := s.app.AllowSessionSwitch(ctx, reason); err != nil {
			return err
		}
		return op()
	})
}

// fork forks at entry id while idle, once the extensions' before_fork
// allowed it.
func (s *rpcServer) fork(ctx context.Context, id string) error {
	return s.jobs.idle(func() error {
		if err := s.app.AllowFork(ctx, id); err != nil {
			return err
		}
		return s.app.Fork(id)
	})
}

func (s *rpcServer) cmdFork(ctx context.Context, c *proto.RPCFork) {
	if c.EntryID == "" {
		s.fail(c, errors.New("entry_id is empty: get_tree lists the entries to fork from"))
		return
	}
	err := s.fork(ctx, c.EntryID)
	s.answer(c, s.branchData(), err)
}

func (s *rpcServer) cmdSwitchSession(ctx context.Context, c *proto.RPCSwitchSession) {
	if c.SessionID == "" {
		s.fail(c, errors.New("session_id is empty: get_sessions lists the saved sessions"))
		return
	}
	err := s.switchSession(ctx, "resume", func() error { return s.app.ResumeSession(c.SessionID) })
	s.answer(c, s.sessionData(), err)
}

func (s *rpcServer) cmdSwitchBranch(c *proto.RPCSwitchBranch) {
	if c.LeafID == "" {
		s.fail(c, errors.New("leaf_id is empty: get_tree lists the entries; pick one without children"))
		return
	}
	err := s.jobs.idle(func() error { return s.app.SwitchBranch(c.LeafID) })
	s.answer(c, s.branchData(), err)
}

// panelKeys are the key names a panel accepts.
func panelKeys() map[string]bool {
	return panelKeysLazy.get(func() map[string]bool {
		return map[string]bool{
			"up": true, "down": true, "left": true, "right": true, "enter": true, "esc": true, "tab": true,
			"pageup": true, "pagedown": true, "home": true, "end": true, "backspace": true, "delete": true, "rune": true,
		}
	})
}

var panelKeysLazy lazy[map[string]bool]

// openPanel checks that id is the open panel.
func (s *rpcServer) openPanel(id string) error {
	if s.app.Host() == nil {
		return errors.New("no panel is open: extensions are off (--no-extensions)")
	}
	_, open := s.app.Host().Panel()
	if id == "" || id != open {
		if open == "" {
			return fmt.Errorf("no panel %q is open: no panel is open now", id)
		}
		return fmt.Errorf("no panel %q is open: the open panel is %q", id, open)
	}
	return nil
}

func (s *rpcServer) cmdPanelKey(c *proto.RPCPanelKey) {
	if err := s.openPanel(c.PanelID); err != nil {
		s.fail(c, err)
		return
	}
	if !panelKeys()[c.Key] {
		s.fail(c, fmt.Errorf("unknown key %q: use up, down, left, right, enter, esc, tab, pageup, pagedown, home, end, backspace, delete, or rune with text", c.Key))
		return
	}
	if c.Key == "rune" && c.Text == "" {
		s.fail(c, errors.New(`key "rune" needs the typed character in text`))
		return
	}
	// The reply goes out before the extension can redraw.
	s.ok(c, nil)
	s.app.Host().PanelKey(c.PanelID, c.Key, c.Text)
}

func (s *rpcServer) cmdPanelClose(c *proto.RPCPanelClose) {
	if err := s.openPanel(c.PanelID); err != nil {
		s.fail(c, err)
		return
	}
	s.ok(c, nil)
	s.app.Host().PanelClosed(c.PanelID)
}

func (s *rpcServer) cmdReload(ctx context.Context, c *proto.RPCReloadExtensions) {
	var data map[string]any
	err := s.jobs.idle(func() error {
		reports, err := s.app.Reload(ctx)
		if err != nil {
			return err
		}
		errs := app.LoadErrors(reports)
		if errs == nil {
			errs = []string{}
		}
		data = map[string]any{"extensions": reports, "errors": errs}
		return nil
	})
	s.answer(c, data, err)
}
