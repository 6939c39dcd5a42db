// Package schedule runs a session's scheduled turns: entries with a
// five-field cron expression (Cron, written here) or a one-shot time
// (ParseAt), read in the user's time zone, whose message is submitted as
// a follow-up turn when it is due. The entries are session entries
// (package session), so they survive a restart and resume with the
// session; runs that fell due while zut was not running are reported
// once, never replayed.
//
// A Scheduler owns one goroutine and one timer, set for the earliest due
// entry; with nothing due it sleeps on channels only (no polling). Close
// stops and joins it. All methods are safe for concurrent use.
package schedule

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zut-go/zut/agent"
	"github.com/zut-go/zut/agent/session"
)

// Limits of a schedule.
const (
	MaxEntries = 50
	MaxMessage = 4000 // bytes
)

// Config is what a Scheduler needs from its host.
type Config struct {
	// Session returns the current session, where the entries live.
	Session func() *session.Session
	// Emit shows schedule changes (agent.ScheduleChange) and notices.
	Emit func(agent.Event)
	// Fire submits a due entry's message as a follow-up turn (queued while
	// a prompt runs). It is called on the scheduler's goroutine and must
	// not block.
	Fire func(Entry)
	// Now is the clock (nil: time.Now); Location the time zone of new
	// entries (nil: time.Local).
	Now      func() time.Time
	Location *time.Location
	// Unavailable, when set, is why this mode cannot run schedules (print
	// mode exits after its prompt): the tool refuses every call with it.
	Unavailable string
}

// Entry is one active schedule entry.
type Entry struct {
	ID      string     `json:"id"`
	Cron    string     `json:"cron,omitempty"`
	At      *time.Time `json:"at,omitempty"`
	Message string     `json:"message"`
	Zone    string     `json:"zone,omitempty"`
	Next    time.Time  `json:"next"`
	cron    *Cron
}

// When describes the entry's timing: "cron 0 9 * * MON-FRI" or "once at
// 2026-05-01 09:00 CEST".
func (e Entry) When() string {
	if e.At != nil {
		return "once at " + e.At.Format("2006-01-02 15:04 MST")
	}
	return "cron " + e.Cron
}

// Scheduler runs the entries of the current session.
type Scheduler struct {
	c Config

	mu      sync.Mutex
	entries []*Entry // active, by ID order of creation
	lastID  int
	started bool

	wake  chan struct{}
	stop  chan struct{}
	done  chan struct{}
	wakes atomic.Int64 // how often the goroutine woke (tests, benchmarks)
}

// New returns a Scheduler; Start runs it.
func New(c Config) *Scheduler {
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Location == nil {
		c.Location = time.Local
	}
	if c.Emit == nil {
		c.Emit = func(agent.Event) {}
	}
	return &Scheduler{c: c, wake: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
}

// Start loads the session's entries and starts the goroutine that fires
// them.
func (s *Scheduler) Start() {
	s.mu.Lock()
	if s.started {
		s.mu.Unlock()
		return
	}
	s.started = true
	s.mu.Unlock()
	s.Load()
	go s.run()
}

// Close stops the goroutine and waits for it. It is idempotent.
func (s *Scheduler) Close() {
	s.mu.Lock()
	started := s.started
	select {
	case <-s.stop:
	default:
		close(s.stop)
	}
	s.mu.Unlock()
	if started {
		<-s.done
	}
}

func (s *Scheduler) poke() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// run sleeps until the earliest entry is due, fires what is due, and
// sleeps again. A change of the entries wakes it to reset the timer.
func (s *Scheduler) run() {
	defer close(s.done)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	for {
		s.wakes.Add(1)
		var timerC <-chan time.Time
		if next := s.earliest(); !next.IsZero() {
			timer.Reset(max(next.Sub(s.c.Now()), 0))
			timerC = timer.C
		}
		select {
		case <-s.stop:
			return
		case <-s.wake:
			timer.Stop()
		case <-timerC:
			s.fireDue()
		}
	}
}

// earliest is the next due time of all entries, zero when none.
func (s *Scheduler) earliest() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	var t time.Time
	for _, e := range s.entries {
		if t.IsZero() || e.Next.Before(t) {
			t = e.Next
		}
	}
	return t
}

// fired is one run to record and submit.
type fired struct {
	entry   Entry
	due     time.Time
	skipped int // runs that fell due meanwhile (the machine slept)
	done    bool
}

// fireDue fires every entry due now: each runs once, however many of its
// runs passed (a sleeping machine), and the others are reported.
func (s *Scheduler) fireDue() {
	now := s.c.Now()
	var out []fired
	s.mu.Lock()
	kept := s.entries[:0]
	for _, e := range s.entries {
		if e.Next.After(now) {
			kept = append(kept, e)
			continue
		}
		f := fired{due: e.Next}
		if e.cron != nil {
			f.skipped, _ = e.cron.Missed(e.Next, now)
			e.Next = e.cron.Next(now)
		}
		if e.At != nil || e.Next.IsZero() {
			f.done = true
		} else {
			kept = append(kept, e)
		}
		f.entry = *e
		out = append(out, f)
	}
	s.entries = kept
	s.mu.Unlock()
	sess := s.c.Session()
	for _, f := range out {
		due := f.due
		if err := sess.AppendSchedule(session.ScheduleOp{Op: session.ScheduleRun, ID: f.entry.ID, Due: &due}); err != nil {
			s.c.Emit(agent.Notice{Level: "warn", Message: "schedule " + f.entry.ID + ": record the run: " + err.Error()})
		}
		ev := agent.ScheduleChange{Action: "fired", ID: f.entry.ID, Cron: f.entry.Cron, At: f.entry.At, Message: f.entry.Message, Missed: f.skipped}
		if !f.done {
			next := f.entry.Next
			ev.Next = &next
		}
		s.c.Emit(ev)
		if f.skipped > 0 {
			s.c.Emit(agent.Notice{Level: "info", Message: fmt.Sprintf("schedule %s: %d more runs fell due while this computer slept; they are skipped", f.entry.ID, f.skipped)})
		}
		if s.c.Fire != nil {
			s.c.Fire(f.entry)
		}
		if f.done {
			s.c.Emit(agent.ScheduleChange{Action: "finished", ID: f.entry.ID, Cron: f.entry.Cron, At: f.entry.At})
		}
	}
}

// Load replaces the entries with those of the current session's branch
// (at start, and after a new, resumed, forked or switched session). Runs
// that fell due while zut was not running are reported (a notice and a
// "missed" event each) and recorded, so that they are reported once;
// they are not replayed. Load returns the notices it showed.
func (s *Scheduler) Load() []string {
	now := s.c.Now()
	sess := s.c.Session()
	type state struct {
		add  session.ScheduleOp
		last time.Time // the latest run or report, or when it was added
	}
	var order []string
	byID := map[string]*state{}
	lastID := 0
	for _, op := range sess.ScheduleOps() {
		if n, err := strconv.Atoi(strings.TrimPrefix(op.ID, "s")); err == nil && n > lastID {
			lastID = n
		}
		switch op.Op {
		case session.ScheduleAdd:
			byID[op.ID] = &state{add: op, last: op.Time}
			order = append(order, op.ID)
		case session.ScheduleCancel:
			delete(byID, op.ID)
		case session.ScheduleRun, session.ScheduleMissed:
			st := byID[op.ID]
			if st == nil {
				continue
			}
			if st.add.At != nil {
				delete(byID, op.ID)
				continue
			}
			if op.Due != nil && op.Due.After(st.last) {
				st.last = *op.Due
			}
		}
	}
	var entries []*Entry
	var notes []string
	var missedOps []session.ScheduleOp
	for _, id := range order {
		st := byID[id]
		if st == nil {
			continue
		}
		op := st.add
		e := &Entry{ID: op.ID, Cron: op.Cron, At: op.At, Message: op.Message, Zone: op.Zone}
		if op.At != nil {
			if !op.At.After(now) {
				due := *op.At
				missedOps = append(missedOps, session.ScheduleOp{Op: session.ScheduleMissed, ID: op.ID, Due: &due, Missed: 1})
				note := fmt.Sprintf("schedule %s (once at %s) fell due while zut was not running; it was not run: %s", op.ID, op.At.In(s.c.Location).Format("2006-01-02 15:04 MST"), clip(op.Message))
				notes = append(notes, note)
				s.c.Emit(agent.ScheduleChange{Action: "missed", ID: op.ID, At: op.At, Message: op.Message, Missed: 1})
				continue
			}
			e.Next = *op.At
			entries = append(entries, e)
			continue
		}
		c, err := ParseCron(op.Cron, s.zone(op.Zone))
		if err != nil {
			notes = append(notes, fmt.Sprintf("schedule %s is skipped: %v", op.ID, err))
			continue
		}
		e.cron = c
		if n, last := c.Missed(st.last, now); n > 0 {
			due := last
			missedOps = append(missedOps, session.ScheduleOp{Op: session.ScheduleMissed, ID: op.ID, Due: &due, Missed: n})
			notes = append(notes, fmt.Sprintf("schedule %s (cron %s) missed %s while zut was not running (the last was due %s); they are not replayed",
				op.ID, op.Cron, plural(n, "run"), last.Format("2006-01-02 15:04 MST")))
			s.c.Emit(agent.ScheduleChange{Action: "missed", ID: op.ID, Cron: op.Cron, Message: op.Message, Missed: n})
		}
		e.Next = c.Next(now)
		if e.Next.IsZero() {
			continue
		}
		entries = append(entries, e)
	}
	for _, op := range missedOps {
		if err := sess.AppendSchedule(op); err != nil {
			s.c.Emit(agent.Notice{Level: "warn", Message: "schedule " + op.ID + ": record the missed runs: " + err.Error()})
		}
	}
	for _, n := range notes {
		s.c.Emit(agent.Notice{Level: "info", Message: n})
	}
	s.mu.Lock()
	s.entries, s.lastID = entries, lastID
	s.mu.Unlock()
	s.poke()
	return notes
}

// zone loads an entry's time zone; "" or an unknown name is the
// scheduler's location.
func (s *Scheduler) zone(name string) *time.Location {
	if name == "" {
		return s.c.Location
	}
	if l, err := time.LoadLocation(name); err == nil {
		return l
	}
	return s.c.Location
}

// zoneName is what is stored for the scheduler's location: "" for the
// machine's local zone.
func (s *Scheduler) zoneName() string {
	if n := s.c.Location.String(); n != "Local" && n != "" {
		if _, err := time.LoadLocation(n); err == nil {
			return n
		}
	}
	return ""
}

// Add creates an entry that runs message on the cron expression, or
// once at the time at (ParseAt); exactly one of them must be given.
func (s *Scheduler) Add(cron, at, message string) (Entry, error) {
	message = strings.TrimSpace(message)
	switch {
	case message == "":
		return Entry{}, errors.New("message is required: the text zut sends as a prompt when the entry is due")
	case len(message) > MaxMessage:
		return Entry{}, fmt.Errorf("message is %d bytes; keep it under %d (point to a file for longer instructions)", len(message), MaxMessage)
	case cron == "" && at == "":
		return Entry{}, errors.New("give either cron (\"*/30 * * * *\") or at (\"+10m\", \"17:30\")")
	case cron != "" && at != "":
		return Entry{}, errors.New("give either cron or at, not both")
	}
	now := s.c.Now()
	e := Entry{Message: message, Zone: s.zoneName()}
	if cron != "" {
		c, err := ParseCron(cron, s.c.Location)
		if err != nil {
			return Entry{}, err
		}
		e.Cron, e.cron, e.Next = c.String(), c, c.Next(now)
	} else {
		t, err := ParseAt(at, now, s.c.Location)
		if err != nil {
			return Entry{}, err
		}
		e.At, e.Next = &t, t
	}
	s.mu.Lock()
	if len(s.entries) >= MaxEntries {
		s.mu.Unlock()
		return Entry{}, fmt.Errorf("the session has %d schedule entries, the most it keeps; cancel some first", MaxEntries)
	}
	s.lastID++
	e.ID = "s" + strconv.Itoa(s.lastID)
	s.mu.Unlock()
	op := session.ScheduleOp{Op: session.ScheduleAdd, ID: e.ID, Cron: e.Cron, At: e.At, Message: e.Message, Zone: e.Zone}
	if err := s.c.Session().AppendSchedule(op); err != nil {
		return Entry{}, fmt.Errorf("save the schedule entry: %w", err)
	}
	s.mu.Lock()
	s.entries = append(s.entries, &e)
	s.mu.Unlock()
	next := e.Next
	s.c.Emit(agent.ScheduleChange{Action: "added", ID: e.ID, Cron: e.Cron, At: e.At, Message: e.Message, Next: &next})
	s.poke()
	return e, nil
}

// Cancel removes the entry id.
func (s *Scheduler) Cancel(id string) (Entry, error) {
	s.mu.Lock()
	k := -1
	var ids []string
	for i, e := range s.entries {
		ids = append(ids, e.ID)
		if e.ID == id {
			k = i
		}
	}
	if k < 0 {
		s.mu.Unlock()
		if len(ids) == 0 {
			return Entry{}, fmt.Errorf("no schedule entry %q: the session has none", id)
		}
		return Entry{}, fmt.Errorf("no schedule entry %q; the entries are %s (schedule list shows them)", id, strings.Join(ids, ", "))
	}
	e := *s.entries[k]
	s.mu.Unlock()
	if err := s.c.Session().AppendSchedule(session.ScheduleOp{Op: session.ScheduleCancel, ID: id}); err != nil {
		return Entry{}, fmt.Errorf("save the cancellation: %w", err)
	}
	s.mu.Lock()
	for i, x := range s.entries {
		if x.ID == id {
			s.entries = append(s.entries[:i], s.entries[i+1:]...)
			break
		}
	}
	s.mu.Unlock()
	s.c.Emit(agent.ScheduleChange{Action: "cancelled", ID: id, Cron: e.Cron, At: e.At, Message: e.Message})
	s.poke()
	return e, nil
}

// List returns the active entries, the next due first.
func (s *Scheduler) List() []Entry {
	s.mu.Lock()
	out := make([]Entry, 0, len(s.entries))
	for _, e := range s.entries {
		out = append(out, *e)
	}
	s.mu.Unlock()
	sort.SliceStable(out, func(i, j int) bool { return out[i].Next.Before(out[j].Next) })
	return out
}

// Text lists the entries for people and the model, one per line.
func (s *Scheduler) Text() string {
	list := s.List()
	if len(list) == 0 {
		return "no scheduled entries"
	}
	var b strings.Builder
	for _, e := range list {
		fmt.Fprintf(&b, "%s  %s  next %s  %q\n", e.ID, e.When(), e.Next.In(s.c.Location).Format("2006-01-02 15:04 MST"), clip(e.Message))
	}
	return strings.TrimRight(b.String(), "\n")
}

func clip(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 60 {
		return string(r[:59]) + "…"
	}
	return s
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}
