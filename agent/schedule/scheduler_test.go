package schedule

import (
	"context"
	"encoding/json"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zut-go/zut/agent"
	"github.com/zut-go/zut/agent/session"
	"github.com/zut-go/zut/provider"
)

// clock is a settable clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time      { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) set(t time.Time)     { c.mu.Lock(); c.t = t; c.mu.Unlock() }
func (c *clock) add(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

// harness is a scheduler over a memory session with a settable clock;
// fired entries arrive on fires.
type harness struct {
	s     *Scheduler
	sess  *session.Session
	clk   *clock
	fires chan Entry
	mu    sync.Mutex
	evs   []agent.Event
}

func newHarness(t *testing.T, sess *session.Session, now time.Time) *harness {
	t.Helper()
	h := &harness{sess: sess, clk: &clock{t: now}, fires: make(chan Entry, 16)}
	if h.sess == nil {
		h.sess = session.NewMemory("/p", session.WithClock(h.clk.now))
	}
	h.s = New(Config{
		Session:  func() *session.Session { return h.sess },
		Emit:     func(ev agent.Event) { h.mu.Lock(); h.evs = append(h.evs, ev); h.mu.Unlock() },
		Fire:     func(e Entry) { h.fires <- e },
		Now:      h.clk.now,
		Location: time.UTC,
	})
	t.Cleanup(h.s.Close)
	return h
}

func (h *harness) events(kind string) []agent.ScheduleChange {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []agent.ScheduleChange
	for _, ev := range h.evs {
		if c, ok := ev.(agent.ScheduleChange); ok && (kind == "" || c.Action == kind) {
			out = append(out, c)
		}
	}
	return out
}

func (h *harness) notices() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for _, ev := range h.evs {
		if n, ok := ev.(agent.Notice); ok {
			out = append(out, n.Message)
		}
	}
	return out
}

func (h *harness) fire(t *testing.T) Entry {
	t.Helper()
	select {
	case e := <-h.fires:
		return e
	case <-time.After(30 * time.Second):
		t.Fatal("no entry fired within 30s")
	}
	return Entry{}
}

func (h *harness) noFire(t *testing.T) {
	t.Helper()
	select {
	case e := <-h.fires:
		t.Fatalf("entry %s fired, want none", e.ID)
	default:
	}
}

var t0 = time.Date(2026, 1, 2, 10, 0, 0, 0, time.UTC)

// TestFire: a cron entry and a one-shot entry fire when the clock
// reaches them, each run is recorded, and the one-shot entry ends.
func TestFire(t *testing.T) {
	h := newHarness(t, nil, t0)
	h.s.Start()
	cron, err := h.s.Add("*/5 * * * *", "", "check CI")
	if err != nil {
		t.Fatal(err)
	}
	once, err := h.s.Add("", "+7m", "ship it")
	if err != nil {
		t.Fatal(err)
	}
	if cron.ID != "s1" || once.ID != "s2" || !cron.Next.Equal(t0.Add(5*time.Minute)) {
		t.Fatalf("Add = %+v, %+v; want s1 due 10:05 and s2", cron, once)
	}
	h.clk.set(t0.Add(5 * time.Minute))
	h.s.poke()
	if e := h.fire(t); e.ID != "s1" || e.Message != "check CI" {
		t.Fatalf("fired %+v, want s1", e)
	}
	h.noFire(t)
	h.clk.set(t0.Add(7 * time.Minute))
	h.s.poke()
	if e := h.fire(t); e.ID != "s2" {
		t.Fatalf("fired %+v, want s2", e)
	}
	list := h.s.List()
	if len(list) != 1 || list[0].ID != "s1" || !list[0].Next.Equal(t0.Add(10*time.Minute)) {
		t.Errorf("List() = %+v, want s1 due 10:10 only", list)
	}
	var ops []string
	for _, op := range h.sess.ScheduleOps() {
		ops = append(ops, op.Op+" "+op.ID)
	}
	if want := "add s1,add s2,run s1,run s2"; strings.Join(ops, ",") != want {
		t.Errorf("session ops = %v, want %s", ops, want)
	}
	if f := h.events("finished"); len(f) != 1 || f[0].ID != "s2" {
		t.Errorf("finished events = %+v, want s2", f)
	}
	// The machine slept through three runs: one fires, the rest are
	// reported.
	h.clk.set(t0.Add(26 * time.Minute))
	h.s.poke()
	if e := h.fire(t); e.ID != "s1" {
		t.Fatalf("fired %+v, want s1", e)
	}
	if f := h.events("fired"); f[len(f)-1].Missed != 3 {
		t.Errorf("last fired event = %+v, want 3 missed (10:15, 10:20, 10:25)", f[len(f)-1])
	}
}

// TestMissedOnLoad: runs that fell due while zut was not running are
// reported once and recorded, not fired.
func TestMissedOnLoad(t *testing.T) {
	clk := &clock{t: t0}
	sess := session.NewMemory("/p", session.WithClock(clk.now))
	first := newHarness(t, sess, t0)
	first.clk = clk
	first.s.c.Now = clk.now
	if _, err := first.s.Add("*/5 * * * *", "", "check CI"); err != nil {
		t.Fatal(err)
	}
	if _, err := first.s.Add("", "10:30", "once"); err != nil {
		t.Fatal(err)
	}
	first.s.Close()

	clk.set(t0.Add(47 * time.Minute)) // zut was not running from 10:00 to 10:47
	h := newHarness(t, sess, clk.now())
	notes := h.s.Load()
	if len(notes) != 2 || !strings.Contains(notes[0], "missed 9 runs") || !strings.Contains(notes[0], "10:45") || !strings.Contains(notes[1], "s2 (once at 2026-01-02 10:30 UTC) fell due") {
		t.Fatalf("Load() notes = %q, want s1's 9 missed runs and s2 missed", notes)
	}
	if m := h.events("missed"); len(m) != 2 || m[0].Missed != 9 {
		t.Errorf("missed events = %+v", m)
	}
	list := h.s.List()
	if len(list) != 1 || list[0].ID != "s1" || !list[0].Next.Equal(t0.Add(50*time.Minute)) {
		t.Errorf("List() = %+v, want s1 next at 10:50", list)
	}
	// Loading again reports nothing new.
	if notes := h.s.Load(); len(notes) != 0 {
		t.Errorf("second Load() = %q, want nothing", notes)
	}
	h.noFire(t)
	// IDs continue after the existing ones.
	if e, err := h.s.Add("@hourly", "", "x"); err != nil || e.ID != "s3" {
		t.Errorf("Add = %+v, %v; want s3", e, err)
	}
}

// TestForkedSchedule: a fork before an entry was added does not see it.
func TestForkedSchedule(t *testing.T) {
	h := newHarness(t, nil, t0)
	h.sess.AppendMessage(userText("hi"), session.Meta{})
	at := h.sess.Leaf()
	h.s.Add("@daily", "", "daily")
	h.sess.Fork(at)
	h.s.Load()
	if l := h.s.List(); len(l) != 0 {
		t.Errorf("List() on the fork = %+v, want none", l)
	}
}

// TestIdle: the scheduler neither polls nor keeps a timer per entry:
// with entries an hour away it does not wake, and its goroutine ends on
// Close.
func TestIdle(t *testing.T) {
	before := runtime.NumGoroutine()
	h := newHarness(t, nil, t0)
	h.s.Start()
	for i := 0; i < 20; i++ {
		if _, err := h.s.Add("0 11 * * *", "", "x"); err != nil {
			t.Fatal(err)
		}
	}
	if n := runtime.NumGoroutine() - before; n > 1 {
		t.Errorf("%d goroutines for 20 entries, want 1", n)
	}
	h.noFire(t)
	h.s.Close()
	for deadline := time.Now().Add(30 * time.Second); runtime.NumGoroutine() > before && time.Now().Before(deadline); {
		runtime.Gosched()
	}
	if n := runtime.NumGoroutine() - before; n > 0 {
		t.Errorf("%d goroutines left after Close", n)
	}
}

// TestTool: the schedule tool's actions and bad inputs.
func TestTool(t *testing.T) {
	cases := []struct {
		name, args  string
		unavailable string
		want        string
		isErr       bool
	}{
		{name: "add cron", args: `{"action":"add","cron":"0 9 * * MON-FRI","message":"standup notes"}`, want: "Scheduled s1 (cron 0 9 * * MON-FRI); next run Mon, 05 Jan 2026 09:00:00 UTC."},
		{name: "add at", args: `{"action":"add","at":"+10m","message":"look again"}`, want: "Scheduled s1 (once at 2026-01-02 10:10 UTC)"},
		{name: "bad cron", args: `{"action":"add","cron":"61 * * * *","message":"x"}`, want: `minute field "61": 61 is outside 0-59`, isErr: true},
		{name: "both", args: `{"action":"add","cron":"* * * * *","at":"+1m","message":"x"}`, want: "not both", isErr: true},
		{name: "neither", args: `{"action":"add","message":"x"}`, want: "give either cron", isErr: true},
		{name: "no message", args: `{"action":"add","cron":"* * * * *"}`, want: "message is required", isErr: true},
		{name: "past", args: `{"action":"add","at":"2020-01-01 00:00","message":"x"}`, want: "which has passed", isErr: true},
		{name: "cancel unknown", args: `{"action":"cancel","id":"s9"}`, want: `no schedule entry "s9": the session has none`, isErr: true},
		{name: "cancel no id", args: `{"action":"cancel"}`, want: "cancel needs the entry's id", isErr: true},
		{name: "bad action", args: `{"action":"pause"}`, want: `action "pause"`, isErr: true},
		{name: "list empty", args: `{"action":"list"}`, want: "no scheduled entries"},
		{name: "print mode", args: `{"action":"list"}`, unavailable: "print mode exits after its prompt", want: "schedule: print mode exits after its prompt", isErr: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, nil, t0)
			h.s.c.Unavailable = tc.unavailable
			r := h.s.Tool().Run(context.Background(), json.RawMessage(tc.args), nil)
			if r.IsError != tc.isErr || !strings.Contains(r.Text(), tc.want) {
				t.Errorf("Run(%s) = %q (error %v), want %q (error %v)", tc.args, r.Text(), r.IsError, tc.want, tc.isErr)
			}
		})
	}
	// Cancel names the entries there are.
	h := newHarness(t, nil, t0)
	tl := h.s.Tool()
	tl.Run(context.Background(), json.RawMessage(`{"action":"add","cron":"@hourly","message":"a"}`), nil)
	tl.Run(context.Background(), json.RawMessage(`{"action":"add","cron":"@daily","message":"b"}`), nil)
	if r := tl.Run(context.Background(), json.RawMessage(`{"action":"cancel","id":"s7"}`), nil); !strings.Contains(r.Text(), "the entries are s1, s2") {
		t.Errorf("cancel s7 = %q, want the list of ids", r.Text())
	}
	if r := tl.Run(context.Background(), json.RawMessage(`{"action":"cancel","id":"s1"}`), nil); r.IsError {
		t.Errorf("cancel s1 = %q", r.Text())
	}
	if r := tl.Run(context.Background(), json.RawMessage(`{"action":"list"}`), nil); r.Text() != `s2  cron @daily  next 2026-01-03 00:00 UTC  "b"` {
		t.Errorf("list = %q", r.Text())
	}
}

func userText(s string) provider.Message {
	return provider.Message{Role: provider.RoleUser, Content: []provider.Block{provider.TextBlock(s)}}
}
