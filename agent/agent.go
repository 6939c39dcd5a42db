package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/zut-go/zut/agent/tools"
	"github.com/zut-go/zut/provider"
)

// Model describes the model the agent talks to.
type Model struct {
	ID            string
	Provider      string
	ContextWindow int
	MaxOutput     int
	// Cost returns the price in US dollars of one request's usage; nil
	// means unknown (cost 0).
	Cost func(provider.Usage) float64
}

// Config is everything an Agent needs. Client, Model and Store are
// required; the rest has usable zero values.
type Config struct {
	Client provider.Client
	Model  Model
	// System is the complete system prompt (see SystemPrompt).
	System string
	// Tools are the built-in tools; extension tools come from Extensions.
	Tools      []tools.Tool
	Extensions Extensions
	Store      Store
	// Confirm asks the user before a tool runs; nil means nobody can be
	// asked (print, JSON and RPC modes) and Policy decides alone.
	Confirm Confirmer
	Policy  Policy
	// MaxSteps stops a prompt after this many model steps (0: no limit).
	MaxSteps  int
	Reasoning provider.Reasoning
	MaxTokens int
	// Temperature is the sampling temperature of every request (nil: the
	// model's default; providers drop it where reasoning needs theirs).
	Temperature *float64
	// AutoCompact is the fraction of the context window at which the
	// conversation is compacted before the next request (0: 0.85;
	// negative: never).
	AutoCompact float64
	// Emit receives every event, on the goroutine running the prompt
	// (ModelChange: on the goroutine calling SetModel or SetModelBy; the
	// progress and notices of a call of a tools.Concurrent tool: on the
	// goroutine running that call, so Emit must be safe for concurrent
	// use). It must not block for long.
	Emit func(Event)
	// EmitText, when set, receives the turn's TextDelta events in place of
	// Emit, on the same goroutine and in the same order among the other
	// events: a streamed answer's many deltas then reach the frontend
	// without an Event (an interface value, allocated) made for each.
	EmitText func(TextDelta)
	// Now is the clock (tests inject one).
	Now func() time.Time
}

// Agent runs prompts against a model with tools. One prompt runs at a
// time; Steer, FollowUp and Abort are safe to call from other goroutines.
type Agent struct {
	cfg Config

	mu        sync.Mutex // guards the fields below
	running   bool
	cancel    context.CancelFunc
	steering  []string
	followUps []string
	always    map[string]bool // tool names approved "always" this session
	usage     provider.Usage  // cumulative
	lastUsage provider.Usage  // of the latest request, for auto-compaction

	// Set through extensions (hooks.go, added.go).
	promptSystem string   // before_agent_start text for the running prompt
	lastAnswer   string   // the running prompt's latest assistant text
	active       []string // tools.set_active; nil offers every tool
}

// New returns an Agent. It does not start anything.
func New(cfg Config) *Agent {
	if cfg.Emit == nil {
		cfg.Emit = func(Event) {}
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.AutoCompact == 0 {
		cfg.AutoCompact = 0.85
	}
	return &Agent{cfg: cfg, always: map[string]bool{}}
}

// Input is one user prompt. Source says where it came from, for the
// extensions' input event and interception: "interactive", "cli", "rpc",
// "extension" or "queue" ("" is reported as "cli").
type Input struct {
	Text   string
	Images []provider.Block // image blocks
	Source string
	// Context is text sent with the prompt that is not the user's words
	// (the output of shell commands run with !cmd): it is stored before
	// the prompt's text as context blocks (provider.Block.Context).
	Context []string
}

// ErrBusy is returned by Prompt while another prompt runs.
var ErrBusy = errors.New("a prompt is already running; wait for it, abort it, or queue with follow_up")

// ErrAborted is returned by Prompt when it was aborted.
var ErrAborted = errors.New("aborted")

// ErrMaxSteps is returned by Prompt when MaxSteps stopped the last input
// before the model finished (a Notice said so).
var ErrMaxSteps = errors.New("stopped at the step limit (--max-steps) before the model finished")

// Prompt adds in as a user message and runs model steps until the model
// stops, MaxSteps is reached, the context is cancelled or Abort is called.
// Follow-up prompts queued meanwhile run afterwards. It emits Done last.
func (a *Agent) Prompt(ctx context.Context, in Input) error {
	ctx, cancel := context.WithCancel(ctx)
	a.mu.Lock()
	if a.running {
		a.mu.Unlock()
		cancel()
		return ErrBusy
	}
	a.running = true
	a.cancel = cancel
	a.mu.Unlock()
	idle := false // nextOrIdle already released the agent
	defer func() {
		if !idle {
			a.mu.Lock()
			a.running = false
			a.cancel = nil
			a.steering = nil
			a.mu.Unlock()
		}
		cancel()
		a.cfg.Emit(Done{})
	}()

	for {
		err := a.runInput(ctx, in)
		if err != nil && !errors.Is(err, ErrMaxSteps) {
			return err
		}
		next, ok := a.nextOrIdle()
		if !ok {
			idle = true
			return err
		}
		in = Input{Text: next, Source: "queue"}
	}
}

// nextOrIdle returns the next queued text (steering that arrived too late
// for the last step, then follow-ups) or, under the same lock, marks the
// agent idle, so that Steer and FollowUp never accept text that is then
// dropped.
func (a *Agent) nextOrIdle() (string, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.steering) > 0 {
		t := strings.Join(a.steering, "\n\n")
		a.steering = nil
		return t, true
	}
	if len(a.followUps) > 0 {
		t := a.followUps[0]
		a.followUps = a.followUps[1:]
		return t, true
	}
	a.running = false
	a.cancel = nil
	return "", false
}

// Busy reports whether a prompt is running.
func (a *Agent) Busy() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.running
}

// Abort cancels the running prompt, if any.
func (a *Agent) Abort() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.cancel != nil {
		a.cancel()
	}
	a.followUps = nil
}

// Steer queues text to be added to the conversation at the next safe point
// of the running prompt (after the current tool calls, before the next
// model request). It reports false when no prompt runs.
func (a *Agent) Steer(text string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.running {
		return false
	}
	a.steering = append(a.steering, text)
	return true
}

// FollowUp queues text as a prompt to run after the current one. It
// reports false when no prompt runs (the caller should Prompt instead).
func (a *Agent) FollowUp(text string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.running {
		return false
	}
	a.followUps = append(a.followUps, text)
	return true
}

func (a *Agent) takeSteering() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	s := a.steering
	a.steering = nil
	return s
}

// Usage returns the cumulative usage of this agent.
func (a *Agent) Usage() provider.Usage {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.usage
}

// SetModel switches the model for the next request, on the user's
// behalf (see SetModelBy).
func (a *Agent) SetModel(client provider.Client, m Model) error {
	return a.SetModelBy(client, m, "user")
}

// SetModelBy switches the model for the next request. source says who
// asked ("user" or "extension"); a change emits ModelChange and the
// extensions' model_change event.
func (a *Agent) SetModelBy(client provider.Client, m Model, source string) error {
	a.mu.Lock()
	if a.running {
		a.mu.Unlock()
		return ErrBusy
	}
	prev := a.cfg.Model
	a.cfg.Client = client
	a.cfg.Model = m
	a.mu.Unlock()
	if prev.ID != m.ID || prev.Provider != m.Provider {
		ev := ModelChange{Model: modelName(m), PreviousModel: modelName(prev), Source: source}
		a.cfg.Emit(ev)
		a.notify(LifecycleEvent{Name: "model_change", Model: ev.Model, PreviousModel: ev.PreviousModel, Source: source})
	}
	return nil
}

// modelName is "provider/id", or the id alone without a provider.
func modelName(m Model) string {
	if m.Provider == "" {
		return m.ID
	}
	return m.Provider + "/" + m.ID
}

// Model returns the current model.
func (a *Agent) Model() Model {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.cfg.Model
}

// SetReasoning changes the reasoning setting for the next request.
func (a *Agent) SetReasoning(r provider.Reasoning) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.cfg.Reasoning = r
}

// Reasoning returns the current reasoning setting.
func (a *Agent) Reasoning() provider.Reasoning {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.cfg.Reasoning
}

// Store returns the session store.
func (a *Agent) Store() Store {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.cfg.Store
}

// SetStore replaces the session store (new session, resume, switch). It
// fails while a prompt runs.
func (a *Agent) SetStore(s Store) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.running {
		return ErrBusy
	}
	a.cfg.Store = s
	a.always = map[string]bool{}
	// The cumulative usage is this process's spend: it carries over to a
	// new or resumed session, as in the original zut. The last request's
	// usage (the context size) belongs to the old conversation.
	a.lastUsage = provider.Usage{}
	return nil
}

func (a *Agent) now() time.Time { return a.cfg.Now().UTC() }

// recordUsage adds one request's usage and emits the usage event.
func (a *Agent) recordUsage(u provider.Usage) {
	if a.cfg.Model.Cost != nil {
		u.CostUSD = a.cfg.Model.Cost(u)
	}
	a.mu.Lock()
	a.usage = a.usage.Add(u)
	a.lastUsage = u
	total := a.usage
	a.mu.Unlock()
	known := func(n int, ok bool) *int {
		if !ok {
			return nil
		}
		return &n
	}
	a.cfg.Emit(Usage{
		Input: u.Input, Output: u.Output, Reasoning: known(u.Reasoning, u.ReasoningKnown),
		CacheRead: u.CacheRead, CacheWrite: u.CacheWrite, CostUSD: u.CostUSD,
		CacheMeasuredPrompt: u.Input + u.CacheRead + u.CacheWrite, CacheMeasuredRead: u.CacheRead,
		Cumulative: UsageTotal{
			Input: total.Input, Output: total.Output, Reasoning: known(total.Reasoning, total.ReasoningKnown),
			CacheRead: total.CacheRead, CacheWrite: total.CacheWrite, CostUSD: total.CostUSD,
		},
	})
}

func jsonOrEmpty(b []byte) json.RawMessage {
	if len(b) == 0 || !json.Valid(b) {
		return json.RawMessage("{}")
	}
	return json.RawMessage(b)
}

func errorText(err error) string {
	if err == nil {
		return ""
	}
	return fmt.Sprint(err)
}

// SetSystem replaces the system prompt from the next request on (after a
// reload of extensions or skills).
func (a *Agent) SetSystem(system string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.cfg.System = system
}

// SetTools replaces the built-in tools from the next request on.
func (a *Agent) SetTools(ts []tools.Tool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.cfg.Tools = ts
}

// SetConfirmer sets who is asked before a mutating tool runs (nil: nobody;
// Policy decides alone).
func (a *Agent) SetConfirmer(c Confirmer) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.cfg.Confirm = c
}

// SetAutoCompact sets the fraction of the context window at which the
// conversation is compacted before the next request; 0 or less turns
// automatic compaction off.
func (a *Agent) SetAutoCompact(f float64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if f <= 0 {
		f = -1
	}
	a.cfg.AutoCompact = f
}

// SetPolicy replaces the confirmation policy.
func (a *Agent) SetPolicy(p Policy) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.cfg.Policy = p
}
