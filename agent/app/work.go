package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/zut-go/zut/agent"
	"github.com/zut-go/zut/agent/goal"
	"github.com/zut-go/zut/agent/plan"
	"github.com/zut-go/zut/agent/schedule"
	"github.com/zut-go/zut/agent/session"
	"github.com/zut-go/zut/agent/subagent"
	"github.com/zut-go/zut/agent/tools"
	"github.com/zut-go/zut/agent/tools/syntax"
	"github.com/zut-go/zut/proto"
	"github.com/zut-go/zut/provider"
)

// work is what runs around the conversation: the plan, the goal and
// its continuation, the schedule, and subagents (docs/tools.md). The
// app creates it with the tools (workTools), starts it with the app
// (startWork) and closes it first (closeWork).
type work struct {
	a       *App
	sess    atomic.Pointer[session.Session] // the current session, for other goroutines
	oneShot bool

	// The goal tracker and the scheduler are made by the first call
	// that needs them (tracker, scheduler): the tracker when a session
	// with a goal is open or a goal is set, the scheduler when the
	// interactive modes start it or the schedule tool is called. A
	// one-shot run that uses neither runs no code of their packages.
	goalCfg    goal.Config
	schedCfg   schedule.Config
	lazyMu     sync.Mutex
	goal       *goal.Tracker
	sched      *schedule.Scheduler
	schedClose bool // closeWork ran

	// subs runs the subagents, made by the first call that needs it
	// (subagents): a run that starts none runs no code of package
	// subagent unless there are agent profiles to list.
	subsCfg    subagent.Config
	subsMu     sync.Mutex
	subs       *subagent.Manager
	subsClosed bool // closeWork ran

	mu        sync.Mutex
	scheduled []scheduledPrompt // fired entries whose prompt has not started
	results   []string          // children's results waiting for a one-shot prompt
	arrived   chan struct{}     // a result arrived (one-shot)
	shownPlan bool              // the frontend was shown a plan
	shownGoal bool
}

// scheduledPrompt is a fired entry's prompt on its way through the
// mode's queue.
type scheduledPrompt struct {
	id, when, text string
}

// Work settings in config.json.
type workSettings struct {
	Goal struct {
		MaxTurns   *int     `json:"max_turns"`
		MaxCostUSD *float64 `json:"max_cost_usd"`
	} `json:"goal"`
	Subagents struct {
		MaxConcurrent *int `json:"max_concurrent"`
		MaxSteps      *int `json:"max_steps"`
	} `json:"subagents"`
}

// readWorkSettings reads the members "goal" and "subagents" of
// config.json; a bad member is reported and its default used.
func (a *App) readWorkSettings() (goal.Budget, int, int) {
	var ws workSettings
	for _, name := range []string{"goal", "subagents"} {
		if raw := a.settings.Raw(name); raw != nil {
			var err error
			if name == "goal" {
				err = json.Unmarshal(raw, &ws.Goal)
			} else {
				err = json.Unmarshal(raw, &ws.Subagents)
			}
			if err != nil {
				fmt.Fprintf(a.env.Stderr, "zut: warning: settings: %s: %v; the defaults are used\n", name, err)
			}
		}
	}
	b := goal.Budget{MaxTurns: goal.DefaultMaxTurns, MaxSteps: a.opts.MaxSteps}
	if v := ws.Goal.MaxTurns; v != nil && *v >= 0 {
		b.MaxTurns = *v
	}
	if v := ws.Goal.MaxCostUSD; v != nil && *v >= 0 {
		b.MaxCostUSD = *v
	}
	conc, steps := 0, 0
	if v := ws.Subagents.MaxConcurrent; v != nil && *v > 0 {
		conc = *v
	}
	if v := ws.Subagents.MaxSteps; v != nil && *v > 0 {
		steps = *v
	}
	return b, conc, steps
}

// workTools returns plan, update_goal, schedule and the subagent tools,
// creating what runs them on the first call.
func (a *App) workTools() []tools.Tool {
	w := a.work
	if w == nil {
		w = &work{a: a, oneShot: a.front.OneShot, arrived: make(chan struct{}, 1)}
		a.work = w
		w.sess.Store(a.sess)
		budget, conc, steps := a.readWorkSettings()
		w.goalCfg = goal.Config{Session: w.session, Emit: a.emitWork, Budget: budget}
		w.trackOpenGoal()
		w.schedCfg = schedule.Config{Session: w.session, Emit: a.emitWork, Fire: w.fire}
		if w.oneShot {
			w.schedCfg.Unavailable = "print and JSON modes exit after their prompt, so nothing would run the entry; schedule from the interactive UI or RPC mode (zut rpc)"
		}
		w.subsCfg = subagent.Config{
			Parent:        func() *agent.Agent { return a.agent },
			Session:       w.session,
			Emit:          a.emitWork,
			Deliver:       w.deliver,
			Resolve:       a.resolveModel,
			ToolsFor:      a.toolsIn,
			CWD:           a.cwd,
			ProfileDirs:   a.profileDirs(),
			MaxConcurrent: conc,
			MaxSteps:      steps,
		}
		if w.profilesThere() {
			if _, warns := w.subagents().Profiles(); len(warns) > 0 {
				for _, msg := range warns {
					fmt.Fprintf(a.env.Stderr, "zut: warning: %s\n", msg)
				}
			}
		}
	} else if m := w.madeSubagents(); m != nil {
		m.ReloadProfiles()
	}
	planTool := sync.OnceValue(func() tools.Tool { return plan.New(plan.Config{Save: w.savePlan}) })
	ts := []tools.Tool{
		&lazyTool{plan.ToolName, plan.ToolDescription, plan.ToolSchema, planTool},
		&lazyTool{goal.ToolName, goal.ToolDescription, goal.ToolSchema, func() tools.Tool { return w.tracker().Tool() }},
		// The scheduler's zone is time.Local (schedule.Config.Location).
		&lazyTool{schedule.ToolName, schedule.ToolDescriptionHead + schedule.LocalZone + schedule.ToolDescriptionTail, schedule.ToolSchema, func() tools.Tool { return w.scheduler().Tool() }},
	}
	return append(ts, w.subagentTools()...)
}

// tracker returns the goal tracker, making it on the first call.
func (w *work) tracker() *goal.Tracker {
	w.lazyMu.Lock()
	defer w.lazyMu.Unlock()
	if w.goal == nil {
		w.goal = goal.New(w.goalCfg)
	}
	return w.goal
}

// trackOpenGoal makes the tracker when the session open has a goal: it
// counts the goal's steps and cost from then on.
func (w *work) trackOpenGoal() {
	if s := w.session(); s != nil {
		if _, ok := s.Goal(); ok {
			w.tracker()
		}
	}
}

// goalActive reports whether a goal is active (goal.Tracker.Active);
// there is none without a tracker.
func (w *work) goalActive() bool {
	t := w.madeTracker()
	return t != nil && t.Active()
}

// madeTracker returns the goal tracker if it was made, else nil: then
// no goal was set or open in this run.
func (w *work) madeTracker() *goal.Tracker {
	w.lazyMu.Lock()
	defer w.lazyMu.Unlock()
	return w.goal
}

// scheduler returns the scheduler, making it on the first call; one made
// after closeWork is closed at once.
func (w *work) scheduler() *schedule.Scheduler {
	w.lazyMu.Lock()
	defer w.lazyMu.Unlock()
	if w.sched == nil {
		w.sched = schedule.New(w.schedCfg)
		if w.schedClose {
			w.sched.Close()
		}
	}
	return w.sched
}

// subagents returns the subagent manager, making it on the first call;
// one made after closeWork is closed at once.
func (w *work) subagents() *subagent.Manager {
	w.subsMu.Lock()
	defer w.subsMu.Unlock()
	if w.subs == nil {
		w.subs = subagent.New(w.subsCfg)
		if w.subsClosed {
			w.subs.Close()
		}
	}
	return w.subs
}

// madeSubagents returns the subagent manager if it was made, else nil:
// then no subagent ever ran.
func (w *work) madeSubagents() *subagent.Manager {
	w.subsMu.Lock()
	defer w.subsMu.Unlock()
	return w.subs
}

// stopSubagents stops every child, reporting how many ran or waited.
func (w *work) stopSubagents() int {
	if m := w.madeSubagents(); m != nil {
		return m.StopAll()
	}
	return 0
}

// profilesThere reports whether any directory of agent profiles may
// exist: without one there are no profiles and nothing to warn about.
func (w *work) profilesThere() bool {
	for _, d := range w.subsCfg.ProfileDirs {
		if _, err := os.Lstat(d); !errors.Is(err, fs.ErrNotExist) {
			return true
		}
	}
	return false
}

// subagentTools are subagent_spawn, subagent_status, subagent_stop and
// subagent_resume: the manager's, once it is made or there are agent
// profiles to list in subagent_spawn's description, else lazyTools
// that make it by their first call.
func (w *work) subagentTools() []tools.Tool {
	if w.madeSubagents() != nil || w.profilesThere() {
		return w.subagents().Tools()
	}
	tool := func(i int) func() tools.Tool { return func() tools.Tool { return w.subagents().Tools()[i] } }
	conc := w.subsCfg.MaxConcurrent
	if conc <= 0 {
		conc = subagent.DefaultMaxConcurrent // as subagent.New has it
	}
	return []tools.Tool{
		lazyConcurrent{&lazyTool{"subagent_spawn", subagent.SpawnDescriptionHead + strconv.Itoa(conc) + subagent.SpawnDescriptionTail, subagent.SpawnSchema, tool(0)}},
		lazyPlain{&lazyTool{"subagent_status", subagent.StatusDescription, subagent.StatusSchema, tool(1)}},
		lazyPlain{&lazyTool{"subagent_stop", subagent.StopDescription, subagent.StopSchema, tool(2)}},
		lazyPlain{&lazyTool{"subagent_resume", subagent.ResumeDescription, subagent.ResumeSchema, tool(3)}},
	}
}

// profileDirs are subagent.ProfileDirs(a.cwd, a.home, $HOME), spelled
// out here so that a run without agent profiles runs no code of package
// subagent (TestProfileDirs holds the two together).
func (a *App) profileDirs() []string {
	var dirs []string
	if a.cwd != "" {
		dirs = append(dirs, filepath.Join(a.cwd, ".zut", "agents"))
	}
	if a.home != "" {
		dirs = append(dirs, filepath.Join(a.home, "agents"))
	}
	if a.cwd != "" {
		dirs = append(dirs, filepath.Join(a.cwd, ".claude", "agents"))
	}
	if h := a.env.Getenv("HOME"); h != "" {
		dirs = append(dirs, filepath.Join(h, ".agents", "agents"))
	}
	return dirs
}

func (w *work) session() *session.Session { return w.sess.Load() }

// emitWork sends an event of the work to the frontend (and, for
// subagent events, to the extensions subscribed to them).
func (a *App) emitWork(ev agent.Event) {
	if a.emit != nil {
		a.emit(ev)
	}
}

// tapWork wraps the frontend's emit: the goal counts steps and cost, and
// subagent_* events go to the extensions that subscribed to them.
func (a *App) tapWork(emit func(agent.Event)) func(agent.Event) {
	return func(ev agent.Event) {
		if w := a.work; w != nil {
			if t := w.madeTracker(); t != nil {
				t.Observe(ev)
			}
		}
		switch ev.(type) {
		case agent.SubagentStart, agent.SubagentUpdate, agent.SubagentEnd:
			if a.host != nil {
				if data, err := json.Marshal(ev); err == nil {
					a.host.Emit(proto.Event{Name: ev.EventType(), Data: data})
				}
			}
		}
		emit(ev)
	}
}

// startWork applies --goal and, in the modes that stay up, starts the
// scheduler. It announces a plan or goal the session already has.
func (a *App) startWork() {
	w := a.work
	if w == nil {
		return
	}
	if g := strings.TrimSpace(a.opts.Goal); g != "" {
		if _, err := w.tracker().Set(g, "user"); err != nil {
			fmt.Fprintf(a.env.Stderr, "zut: warning: --goal: %v\n", err)
		}
	}
	w.announce()
	if !w.oneShot {
		w.scheduler().Start()
	}
}

// closeWork stops the children and the scheduler; it runs first in
// Close, so that no child outlives the app.
func (a *App) closeWork() {
	if w := a.work; w != nil {
		w.subsMu.Lock()
		w.subsClosed = true
		m := w.subs
		w.subsMu.Unlock()
		if m != nil {
			m.Close()
		}
		w.lazyMu.Lock()
		w.schedClose = true
		sched := w.sched
		w.lazyMu.Unlock()
		if sched != nil {
			sched.Close()
		}
	}
}

// workSessionChanged follows a new, resumed, forked or switched session:
// the schedule of its branch is loaded, and the frontend is shown its
// plan and goal. A new or resumed session stops the children of the
// old one.
func (a *App) workSessionChanged(event string) {
	w := a.work
	if w == nil {
		return
	}
	w.sess.Store(a.sess)
	if event == "session_start" || event == "session_opened" {
		if n := w.stopSubagents(); n > 0 {
			a.emitWork(agent.Notice{Level: "info", Message: fmt.Sprintf("stopped %s of the previous session", tools.Plural(n, "subagent"))})
		}
	}
	w.trackOpenGoal()
	if !w.oneShot {
		w.scheduler().Load()
	}
	w.announce()
}

// announce shows the session's plan and goal, and clears what was shown
// of another session.
func (w *work) announce() {
	s := w.session()
	c, hasPlan := s.Checklist()
	if hasPlan && len(c.Items) == 0 {
		hasPlan = false
	}
	g, hasGoal := s.Goal()
	w.mu.Lock()
	showPlan := hasPlan || w.shownPlan
	showGoal := hasGoal || w.shownGoal
	w.shownPlan, w.shownGoal = hasPlan, hasGoal
	w.mu.Unlock()
	if showPlan {
		w.a.emitWork(agent.PlanUpdate{Items: nonNilItems(c.Items), Note: c.Note})
	}
	if showGoal {
		if !hasGoal {
			g = session.Goal{Status: session.GoalCleared}
		}
		w.a.emitWork(agent.GoalUpdate{Objective: g.Objective, Status: g.Status, Reason: g.Reason, By: g.By})
	}
}

func nonNilItems(items []session.ChecklistItem) []session.ChecklistItem {
	if items == nil {
		return []session.ChecklistItem{}
	}
	return items
}

// savePlan stores the plan tool's plan and shows it.
func (w *work) savePlan(c session.Checklist) error {
	if err := w.session().AppendChecklist(c); err != nil {
		return err
	}
	w.mu.Lock()
	w.shownPlan = len(c.Items) > 0
	w.mu.Unlock()
	w.a.emitWork(agent.PlanUpdate{Items: nonNilItems(c.Items), Note: c.Note})
	return nil
}

// fire submits a due entry's message through the mode's prompt queue. A
// run of an entry whose previous prompt still waits is skipped.
func (w *work) fire(e schedule.Entry) {
	w.mu.Lock()
	for _, p := range w.scheduled {
		if p.id == e.ID {
			w.mu.Unlock()
			w.a.emitWork(agent.Notice{Level: "info", Source: "schedule", Message: "schedule " + e.ID + ": its previous run still waits for the running turn; this run is skipped"})
			return
		}
	}
	w.scheduled = append(w.scheduled, scheduledPrompt{id: e.ID, when: e.When(), text: e.Message})
	w.mu.Unlock()
	if err := w.a.ui.get().QueuePrompt("schedule", e.Message); err != nil {
		w.mu.Lock()
		w.scheduled = slices.DeleteFunc(w.scheduled, func(p scheduledPrompt) bool { return p.id == e.ID })
		w.mu.Unlock()
		w.a.emitWork(agent.Notice{Level: "warn", Source: "schedule", Message: "schedule " + e.ID + " could not run: " + err.Error()})
	}
}

// takeScheduled reports whether text is the prompt of a fired entry, and
// which.
func (w *work) takeScheduled(text string) (scheduledPrompt, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for i, p := range w.scheduled {
		if p.text == text {
			w.scheduled = append(w.scheduled[:i], w.scheduled[i+1:]...)
			return p, true
		}
	}
	return scheduledPrompt{}, false
}

// deliver hands a detached child's result to the parent: into the
// running prompt at its next safe point, else as a prompt of its own (in
// a one-shot mode, the prompt loop picks it up).
func (w *work) deliver(r subagent.Result) {
	text := "[subagent result]\n" + r.Message()
	if w.a.agent.Steer(text) {
		return
	}
	if w.oneShot {
		w.mu.Lock()
		w.results = append(w.results, text)
		w.mu.Unlock()
		select {
		case w.arrived <- struct{}{}:
		default:
		}
		return
	}
	if err := w.a.ui.get().QueuePrompt("subagent", text); err != nil {
		w.a.emitWork(agent.Notice{Level: "warn", Message: "the result of subagent " + r.ID + " could not be handed over: " + err.Error() + "; subagent_status " + r.ID + " shows it"})
	}
}

// takeResults returns the children's results waiting for a one-shot
// prompt, joined.
func (w *work) takeResults() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	text := strings.Join(w.results, "\n\n")
	w.results = nil
	return text
}

// runPrompt runs one prompt and what follows it: in one-shot modes the
// results of the children still running (waited for), then, while a
// goal is active, its continuation prompts. A scheduled prompt is marked
// in the transcript and offers no interactive tools.
func (a *App) runPrompt(ctx context.Context, in agent.Input) error {
	w := a.work
	if w == nil {
		return a.agent.Prompt(ctx, in)
	}
	if p, ok := w.takeScheduled(in.Text); ok {
		in.Source = "schedule"
		a.emitWork(agent.Notice{Level: "info", Source: "schedule", Message: "scheduled turn " + p.id + " (" + p.when + ")"})
		if a.bridge != nil {
			a.bridge.background.Store(true)
			defer a.bridge.background.Store(false)
		}
	}
	if strings.TrimSpace(in.Text) == "" && len(in.Images) == 0 {
		if g, ok := w.session().Goal(); ok && g.Status == session.GoalActive { // goal.Tracker.Current
			in.Text = goal.StartPrompt(g.Objective)
			in.Source = "goal"
		}
	}
	err := a.agent.Prompt(ctx, in)
	for err == nil {
		text, source, ok := w.next(ctx)
		if !ok {
			break
		}
		err = a.agent.Prompt(ctx, agent.Input{Text: text, Source: source})
	}
	switch {
	case errors.Is(err, agent.ErrAborted) || ctx.Err() != nil:
		if t := w.madeTracker(); t != nil {
			t.Interrupted()
		}
	case errors.Is(err, agent.ErrMaxSteps) && w.goalActive():
		// One prompt reached --max-steps: the goal's budget is spent.
		if _, perr := w.tracker().Pause("budget spent: --max-steps in one prompt", "budget"); perr == nil {
			a.emitWork(agent.Notice{Level: "warn", Message: "goal paused: budget spent: --max-steps; /goal resume continues"})
		}
	}
	return err
}

// next is the prompt that follows one that ended: children's results in
// a one-shot mode (waiting for those still running), then the goal's
// continuation.
func (w *work) next(ctx context.Context) (text, source string, ok bool) {
	if w.oneShot {
		for {
			if t := w.takeResults(); t != "" {
				return t, "subagent", true
			}
			if m := w.madeSubagents(); m == nil || m.Running() == 0 {
				break
			}
			select {
			case <-w.arrived:
			case <-ctx.Done():
				return "", "", false
			}
		}
	}
	if gt := w.madeTracker(); gt != nil { // else no goal was set or open
		if t, ok := gt.Next(); ok {
			return t, "goal", true
		}
	}
	return "", "", false
}

// resolveModel resolves a model spec for a subagent, as /model does.
// A family alias (haiku, sonnet, opus) is the newest model of that family
// the parent's provider serves. A model of the parent's provider (a bare
// id or "provider/id") goes where the parent's requests go (its base URL
// and key); another provider's uses that provider's own configuration,
// and is refused when that would take a run behind --base-url to the
// provider's public endpoint.
func (a *App) resolveModel(ctx context.Context, spec string) (provider.Client, agent.Model, error) {
	o := a.ProviderOptions()
	o.Provider, o.Model, o.BaseURL = "", spec, ""
	parent := ""
	if a.resolved != nil {
		parent = a.resolved.Provider.Name
	}
	prefix, rest, hasPrefix := strings.Cut(spec, "/")
	switch {
	case parent != "" && isFamily(spec):
		id, ok := provider.FamilyModel(a.home, parent, spec)
		if !ok {
			return nil, agent.Model{}, fmt.Errorf("%s serves no %s model (zut --list-models --provider %s lists its models)", parent, strings.ToLower(spec), parent)
		}
		o.Provider, o.Model, o.BaseURL = parent, id, a.opts.BaseURL
	case parent != "" && (!hasPrefix && servedBy(spec, parent) || prefix == parent):
		o.Provider, o.BaseURL = parent, a.opts.BaseURL
		if hasPrefix && prefix == parent {
			o.Model = rest
		}
	}
	res, err := provider.Resolve(ctx, o)
	if err != nil {
		return nil, agent.Model{}, err
	}
	if a.opts.BaseURL != "" && res.Provider.Name != parent && res.BaseURLSource == "the built-in default" {
		return nil, agent.Model{}, fmt.Errorf("%s would send the subagent's requests to %s, the provider's public endpoint, while zut runs against --base-url %s; set %s's base URL (zut help env) or pick a model of %s",
			spec, provider.RedactURL(res.BaseURL), provider.RedactURL(a.opts.BaseURL), res.Provider.Name, parent)
	}
	return res.Client, agentModel(res), nil
}

// servedBy reports whether a bare model id belongs to the parent's
// provider: the catalog lists it there, or lists it nowhere (a model the
// parent's server knows and zut does not).
func servedBy(id, parent string) bool {
	known := false
	for _, m := range provider.BuiltinModels() {
		if m.ID == id {
			if m.Provider == parent {
				return true
			}
			known = true
		}
	}
	return !known
}

// isFamily reports whether spec is a model family alias of the agent
// profiles other agents write: haiku, sonnet or opus.
func isFamily(spec string) bool {
	switch strings.ToLower(spec) {
	case "haiku", "sonnet", "opus":
		return true
	}
	return false
}

// toolsIn returns the file and shell tools working in dir, for a
// subagent in a worktree of its own.
func (a *App) toolsIn(dir string) []tools.Tool {
	cfg := a.toolConfig(a.Skills())
	cfg.CWD = dir
	ts := append(tools.Builtins(cfg), syntax.New(cfg, syntax.Config{}))
	ts = append(ts, a.webProxies()...)
	off := a.disabledTools()
	if len(off) == 0 {
		return ts
	}
	return slices.DeleteFunc(ts, func(t tools.Tool) bool { return slices.Contains(off, t.Definition().Name) })
}
