package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	"github.com/zut-go/zut/agent"
	"github.com/zut-go/zut/agent/session"
	"github.com/zut-go/zut/host"
	"github.com/zut-go/zut/proto"
	"github.com/zut-go/zut/provider"
)

// hostAPI serves the host requests of extensions (capability
// host_requests) that need the app: session, model, tools, completions,
// options and app control. Dialogs (ui.*) and custom events are served by
// the host itself. Each request runs on a goroutine of its own, so the
// methods below only touch state that is safe for concurrent use: the
// agent (its store, model and tools are guarded), the host, and the
// session through the agent's store.
type hostAPI struct {
	a *App

	mu      sync.Mutex
	options map[string]string // values set with options.set
}

// enableHostAPI attaches the host request handler. newApp calls it once
// the agent exists; before that, host requests are answered with an
// error.
func (a *App) enableHostAPI() {
	if a.host == nil {
		return
	}
	api := &hostAPI{a: a, options: map[string]string{}}
	a.ui.setAPI(api.serve)
}

// serve answers one host request.
func (api *hostAPI) serve(ctx context.Context, r *host.Request) {
	result, err := api.call(ctx, r)
	r.Respond(result, err)
}

func (api *hostAPI) call(ctx context.Context, r *host.Request) (any, error) {
	a := api.a
	switch r.Method {
	case proto.MethodSessionMessages:
		return map[string]any{"messages": agent.Messages(a.agent.Store().Messages())}, nil
	case proto.MethodSessionInfo:
		return api.sessionInfo()
	case proto.MethodSessionContextStats:
		st := a.agent.ContextStats()
		return proto.ContextStats{EstimatedTokens: st.EstimatedTokens, ContextLimit: st.ContextLimit,
			UsagePercent: st.UsagePercent, MessageCount: st.MessageCount}, nil
	case proto.MethodSessionAppendEntry:
		return api.appendEntry(r)
	case proto.MethodSessionEntries:
		return api.entries(r)
	case proto.MethodModelGet:
		return modelInfo(a.agent.Model()), nil
	case proto.MethodModelSet:
		return api.setModel(ctx, r)
	case proto.MethodModelList:
		return api.models(ctx)
	case proto.MethodToolsList:
		return api.tools(), nil
	case proto.MethodToolsSetActive:
		var p proto.SetActiveToolsParams
		if err := r.Decode(&p); err != nil {
			return nil, err
		}
		a.agent.SetActiveTools(p.Names)
		return nil, nil
	case proto.MethodLLMComplete:
		return api.complete(ctx, r)
	case proto.MethodOptionsGet, proto.MethodOptionsSet:
		return api.option(r)
	case proto.MethodAppSend:
		return nil, api.send(r)
	case proto.MethodAppExit:
		a.ui.get().Exit(r.Extension)
		return nil, nil
	case proto.MethodAppReloadExtensions:
		if a.agent.Busy() {
			return nil, errors.New("app.reload_extensions: a prompt is running; reload when the agent is idle")
		}
		if !a.ui.get().ReloadExtensions(r.Extension) {
			// Answer first: the reload stops the asking extension too.
			r.Respond(nil, nil)
			_, err := a.Reload(context.WithoutCancel(ctx))
			return nil, err
		}
		return nil, nil
	case proto.MethodEditorSetText:
		var p proto.TextParams
		if err := r.Decode(&p); err != nil {
			return nil, err
		}
		return proto.EditorTextResult{Applied: a.ui.get().SetEditorText(r.Extension, p.Text)}, nil
	case proto.MethodTUISuspend:
		return proto.SuspendResult{Suspended: a.ui.get().SuspendTUI(r.Extension)}, nil
	case proto.MethodTUIResume:
		a.ui.get().ResumeTUI(r.Extension)
		return nil, nil
	}
	return nil, fmt.Errorf("unknown method %q; see docs/protocol.md, \"Additions beyond v2\", for the methods zut serves", r.Method)
}

// currentSession returns the session of the agent's store.
func (api *hostAPI) currentSession() (*session.Session, error) {
	if st, ok := api.a.agent.Store().(agent.SessionStore); ok && st.S != nil {
		return st.S, nil
	}
	return nil, errors.New("no session is open")
}

func (api *hostAPI) sessionInfo() (any, error) {
	s, err := api.currentSession()
	if err != nil {
		return nil, err
	}
	id := agent.SessionStore{S: s}.Identity()
	return proto.SessionInfo{ID: s.ID(), Path: s.Path(), CWD: s.CWD(), Title: s.Title(), Branch: protoSession(&id)}, nil
}

// appendEntry stores a custom entry owned by the asking extension.
func (api *hostAPI) appendEntry(r *host.Request) (any, error) {
	var p proto.AppendEntryParams
	if err := r.Decode(&p); err != nil {
		return nil, err
	}
	if strings.TrimSpace(p.EntryType) == "" {
		return nil, errors.New("session.append_entry: entry_type is empty; name the kind of entry")
	}
	data := p.Data
	if len(data) == 0 {
		data = json.RawMessage("null")
	}
	s, err := api.currentSession()
	if err != nil {
		return nil, err
	}
	e, err := s.Append(session.Entry{Type: session.TypeCustom, Extension: r.Extension, CustomType: p.EntryType, Data: data})
	if err != nil {
		return nil, fmt.Errorf("session.append_entry: %w", err)
	}
	return proto.IDResult{ID: e.ID}, nil
}

// entries lists the asking extension's custom entries on the current
// branch, oldest first.
func (api *hostAPI) entries(r *host.Request) (any, error) {
	var p proto.EntriesParams
	if err := r.Decode(&p); err != nil {
		return nil, err
	}
	s, err := api.currentSession()
	if err != nil {
		return nil, err
	}
	out := []proto.Entry{}
	for _, e := range s.Branch() {
		if e.Type != session.TypeCustom || e.Extension != r.Extension || (p.EntryType != "" && e.CustomType != p.EntryType) {
			continue
		}
		out = append(out, proto.Entry{ID: e.ID, EntryType: e.CustomType, Data: e.Data, Time: e.Time})
	}
	return proto.EntriesResult{Entries: out}, nil
}

func modelInfo(m agent.Model) proto.ModelInfo {
	name := m.ID
	if m.Provider != "" {
		name = m.Provider + "/" + m.ID
	}
	return proto.ModelInfo{Model: name, Provider: m.Provider, ID: m.ID, ContextWindow: m.ContextWindow, MaxOutput: m.MaxOutput}
}

// resolve resolves a model spec ("id" or "provider/id") with the flags
// of this run, as /model does.
func (api *hostAPI) resolve(ctx context.Context, spec string) (*provider.Resolved, error) {
	a := api.a
	o := a.ProviderOptions()
	o.Model = spec
	if strings.Contains(spec, "/") {
		o.Provider = ""
	} else if a.opts.Provider != "" {
		o.Provider = a.opts.Provider
	}
	cur := a.agent.Model()
	if o.Provider != cur.Provider && o.Provider != "" {
		o.BaseURL = ""
	}
	return provider.Resolve(ctx, o)
}

// setModel switches the agent's model on an extension's behalf; it fails
// while a prompt runs.
func (api *hostAPI) setModel(ctx context.Context, r *host.Request) (any, error) {
	var p proto.ModelParams
	if err := r.Decode(&p); err != nil {
		return nil, err
	}
	if strings.TrimSpace(p.Model) == "" {
		return nil, errors.New("model.set: model is empty; give provider/model (model.list shows them)")
	}
	a := api.a
	if a.agent.Busy() {
		return nil, errors.New("model.set: a prompt is running; set the model when the agent is idle")
	}
	res, err := api.resolve(ctx, p.Model)
	if err != nil {
		return nil, fmt.Errorf("model.set: %w", err)
	}
	m := agentModel(res)
	if err := a.agent.SetModelBy(res.Client, m, "extension"); err != nil {
		return nil, fmt.Errorf("model.set: %w", err)
	}
	a.agent.SetReasoning(res.Reasoning)
	if s, err := api.currentSession(); err == nil {
		if err := s.AppendModelChange(res.Provider.Name, res.Model.ID); err != nil {
			a.ui.get().Log(r.Extension, "record the model change: "+err.Error())
		}
	}
	return modelInfo(m), nil
}

func (api *hostAPI) models(ctx context.Context) (any, error) {
	rows, err := provider.Listings(ctx, api.a.ProviderOptions())
	if err != nil {
		return nil, fmt.Errorf("model.list: %w", err)
	}
	out := proto.ModelsResult{Models: []proto.ModelInfo{}}
	for _, r := range rows {
		out.Models = append(out.Models, proto.ModelInfo{Model: r.Provider + "/" + r.ID, Provider: r.Provider, ID: r.ID,
			ContextWindow: r.ContextWindow, MaxOutput: r.MaxOutput, Reasoning: r.Reasoning, Ready: r.Ready})
	}
	return out, nil
}

func (api *hostAPI) tools() proto.ToolsResult {
	out := proto.ToolsResult{Tools: []proto.ToolInfo{}}
	for _, t := range api.a.agent.ToolInfos() {
		out.Tools = append(out.Tools, proto.ToolInfo{Name: t.Name, Description: t.Description, Source: t.Source, Extension: t.Extension, Enabled: t.Enabled})
	}
	return out
}

// complete runs one standalone model call for llm.complete, streaming
// text chunks as host_stream frames when asked.
func (api *hostAPI) complete(ctx context.Context, r *host.Request) (any, error) {
	var p proto.CompleteParams
	if err := r.Decode(&p); err != nil {
		return nil, err
	}
	if strings.TrimSpace(p.Prompt) == "" {
		return nil, errors.New("llm.complete: prompt is empty")
	}
	client, model := api.a.agent.Client(), api.a.agent.Model()
	if p.Model != "" && p.Model != model.ID && p.Model != model.Provider+"/"+model.ID {
		res, err := api.resolve(ctx, p.Model)
		if err != nil {
			return nil, fmt.Errorf("llm.complete: %w", err)
		}
		client, model = res.Client, agentModel(res)
	}
	if client == nil {
		return nil, errors.New("llm.complete: no model is configured; set a key or pass model")
	}
	req := &provider.Request{
		Model: model.ID, System: p.System, MaxTokens: p.MaxTokens,
		Messages: []provider.Message{{Role: provider.RoleUser, Content: []provider.Block{provider.TextBlock(p.Prompt)}}},
	}
	s, err := client.Stream(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("llm.complete: %w", err)
	}
	defer s.Close()
	var usage provider.Usage
	for s.Next() {
		e := s.Event()
		switch e.Type {
		case provider.EventTextDelta:
			if p.Stream {
				r.Stream(e.Text)
			}
		case provider.EventUsage:
			usage = e.Usage
		case provider.EventStop:
			if e.Usage != (provider.Usage{}) {
				usage = e.Usage
			}
		}
	}
	if err := s.Err(); err != nil {
		return nil, fmt.Errorf("llm.complete: %w", err)
	}
	return proto.CompleteResult{Text: s.Message().Text(), InputTokens: usage.Input + usage.CacheRead + usage.CacheWrite,
		OutputTokens: usage.Output, Model: modelInfo(model).Model}, nil
}

// option serves options.get and options.set. A value resolves as: set
// with options.set, then $ZUT_OPT_<NAME>, then options.<name> in
// $ZUT_HOME/config.json, then the registered default.
func (api *hostAPI) option(r *host.Request) (any, error) {
	var p proto.OptionParams
	if err := r.Decode(&p); err != nil {
		return nil, err
	}
	if strings.TrimSpace(p.Name) == "" {
		return nil, fmt.Errorf("%s: name is empty", r.Method)
	}
	if r.Method == proto.MethodOptionsSet {
		api.mu.Lock()
		api.options[p.Name] = p.Value
		api.mu.Unlock()
		return proto.OptionResult{Name: p.Name, Value: p.Value, Source: "set"}, nil
	}
	return api.resolveOption(p.Name), nil
}

func (api *hostAPI) resolveOption(name string) proto.OptionResult {
	api.mu.Lock()
	v, ok := api.options[name]
	api.mu.Unlock()
	if ok {
		return proto.OptionResult{Name: name, Value: v, Source: "set"}
	}
	if v := api.a.env.Getenv(optionEnv(name)); v != "" {
		return proto.OptionResult{Name: name, Value: v, Source: "env"}
	}
	if v, ok := configOption(api.a.home, name); ok {
		return proto.OptionResult{Name: name, Value: v, Source: "config"}
	}
	for _, o := range api.a.host.Options() {
		if o.Name == name {
			return proto.OptionResult{Name: name, Value: o.Default, Source: "default"}
		}
	}
	return proto.OptionResult{Name: name, Source: "default"}
}

// optionEnv is the environment variable of an option: ZUT_OPT_ and the
// name in upper case with every character other than a letter or digit
// as '_'.
func optionEnv(name string) string {
	var b strings.Builder
	b.WriteString("ZUT_OPT_")
	for _, c := range strings.ToUpper(name) {
		if c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			b.WriteRune(c)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

// configOption reads options.<name> from $ZUT_HOME/config.json; a string
// is taken as is, any other JSON value as its text.
func configOption(home, name string) (string, bool) {
	b, err := provider.ReadRegular(filepath.Join(home, "config.json"), provider.MaxConfigFile)
	if err != nil {
		return "", false
	}
	var cfg struct {
		Options map[string]json.RawMessage `json:"options"`
	}
	if json.Unmarshal(b, &cfg) != nil {
		return "", false
	}
	raw, ok := cfg.Options[name]
	if !ok {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, true
	}
	return string(raw), true
}

// send serves app.send: steer joins the running prompt at its next safe
// point, interrupt aborts it, queue (and the others once nothing runs)
// goes through the mode's prompt queue.
func (api *hostAPI) send(r *host.Request) error {
	var p proto.SendParams
	if err := r.Decode(&p); err != nil {
		return err
	}
	if strings.TrimSpace(p.Text) == "" {
		return errors.New("app.send: text is empty")
	}
	a := api.a
	switch p.Mode {
	case "", proto.SendQueue:
	case proto.SendSteer:
		if a.agent.Steer(p.Text) {
			return nil
		}
	case proto.SendInterrupt:
		a.agent.Abort()
	default:
		return fmt.Errorf("app.send: mode %q is not queue, steer or interrupt", p.Mode)
	}
	err := a.ui.get().QueuePrompt(r.Extension, p.Text)
	if !errors.Is(err, ErrNoPromptQueue) {
		return err
	}
	if p.Mode != proto.SendInterrupt && a.agent.FollowUp(p.Text) {
		return nil
	}
	return errors.New("app.send: this mode answers one prompt and cannot start another")
}

// AllowFork runs the extensions' before_fork for a fork at entry id of
// the current session; an *agent.CancelledError means an extension
// cancelled it. fork and switch operations call it first.
func (a *App) AllowFork(ctx context.Context, id string) error {
	if a.bridge == nil {
		return nil
	}
	isUser, text := false, ""
	if s, err := (&hostAPI{a: a}).currentSession(); err == nil {
		if e, ok := s.Entry(id); ok && e.Message != nil && e.Message.Role == provider.RoleUser {
			isUser, text = true, e.Message.UserText()
		}
	}
	return a.bridge.beforeFork(ctx, id, isUser, text)
}

// AllowSessionSwitch runs the extensions' before_session_switch; reason
// is "new", "clear" or "resume".
func (a *App) AllowSessionSwitch(ctx context.Context, reason string) error {
	if a.bridge == nil {
		return nil
	}
	return a.bridge.beforeSessionSwitch(ctx, reason)
}
