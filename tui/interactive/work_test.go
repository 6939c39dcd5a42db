package interactive

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zut-go/zut/provider/providertest"
	"github.com/zut-go/zut/tui/ansi"
)

var planReply = providertest.Reply{Text: "Let me plan.", Tools: []providertest.ToolCall{{ID: "p1", Name: "plan",
	Args: `{"items":[{"text":"Read the parser","status":"done"},{"text":"Split the lexer","status":"in_progress"},{"text":"Run the tests","status":"pending"}],"note":"lexer first"}`}}}

// TestUIPlanAndGoal: the plan shows above the editor (done struck, the
// active item marked), folds with ctrl+t, and /plan shows it; /goal sets
// a goal, zut continues until the model reports it complete, and the
// footer shows it.
func TestUIPlanAndGoal(t *testing.T) {
	h := startUI(t, uiOptions{width: 90, height: 30, profile: ansi.ProfileANSI256, args: []string{"--yolo"}, replies: []providertest.Reply{
		planReply,
		{Text: "Planned."},
		{Text: "I fixed one test."},
		{Text: "All green.", Tools: []providertest.ToolCall{{ID: "g1", Name: "update_goal", Args: `{"status":"complete","reason":"go test passes"}`}}},
		{Text: "Done: every test passes."},
	}})
	h.idle()
	h.submit("refactor the parser", "Planned.")
	screen := h.screen(false)
	for _, want := range []string{"Plan 1/3 · ctrl+t folds", "✓ Read the parser", "▶ Split the lexer", "○ Run the tests", "lexer first"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the plan widget lacks %q:\n%s", want, screen)
		}
	}
	// The styles of each row follow it in the dump: only the done item is
	// struck through.
	rows := strings.Split(h.styled(), "\n")
	var struck []string
	for i, r := range rows {
		for _, item := range []string{"✓ Read the parser", "▶ Split the lexer", "○ Run the tests"} {
			if strings.Contains(r, item) && i+1 < len(rows) && strings.HasPrefix(strings.TrimSpace(rows[i+1]), "~") && strings.Contains(rows[i+1], "strike") {
				struck = append(struck, item)
			}
		}
	}
	if strings.Join(struck, ",") != "✓ Read the parser" {
		t.Errorf("struck items = %q, want only the done one", struck)
	}

	h.send("\x14") // ctrl+t
	h.waitText("Plan 1/3 · Split the lexer  (ctrl+t unfolds)")
	if s := h.screen(false); strings.Contains(s, "○ Run the tests") {
		t.Errorf("the folded plan still lists the items:\n%s", s)
	}
	h.enter("/plan")
	h.waitText("[>] Split the lexer")
	h.waitText("✓ Read the parser") // /plan unfolds it

	h.submit("/goal make the tests pass", "Done: every test passes.")
	screen = h.screen(false)
	for _, want := range []string{"goal complete: go test passes", "◎ make the tests pass (complete)"} {
		if !strings.Contains(screen, want) {
			t.Errorf("screen lacks %q:\n%s", want, screen)
		}
	}
	reqs := h.srv.Requests()
	if len(reqs) != 5 || !strings.Contains(string(reqs[3].Raw), "Continue working toward the goal: make the tests pass") {
		t.Errorf("%d requests; want 5, the fourth the goal's continuation", len(reqs))
	}
	h.enter("/goal history")
	h.waitText("complete model  make the tests pass — go test passes")
}

// TestUISubagents: a running subagent shows in the side rail; /subagents
// lists it and opens its transcript read-only; its end is noted.
func TestUISubagents(t *testing.T) {
	h := startUI(t, uiOptions{width: 120, height: 30, args: []string{"--yolo"}, replies: []providertest.Reply{
		{Tools: []providertest.ToolCall{{ID: "s1", Name: "subagent_spawn", Args: `{"task":"count the Go files","wait":120}`}}},
		{Text: "There are 12 Go files.", Delay: 3e9},
		{Text: "The subagent counted 12."},
	}})
	h.idle()
	h.enter("delegate the count")
	h.waitText("Subagents (1) · /subagents")
	h.waitText("sa-1 running")
	h.waitText("The subagent counted 12.")
	h.idle()
	if s := h.screen(false); strings.Contains(s, "Subagents (1)") {
		t.Errorf("the side rail stays after the subagent ended:\n%s", s)
	}
	h.waitText("subagent sa-1 done after 1 step")
	h.enter("/subagents")
	h.waitText("sa-1  count the Go files")
	h.send("\r")
	h.waitText("Show its transcript (read-only)")
	h.send("\r")
	h.waitText("Transcript of sa-1 (read-only)")
	h.waitText("assistant: There are 12 Go files.")
	h.send("\x1b")
	h.idle()
}

// TestUIEscOffersToStopSubagents: Esc interrupts the parent and offers to
// stop the subagent still running; choosing so stops it.
func TestUIEscOffersToStopSubagents(t *testing.T) {
	h := startUI(t, uiOptions{width: 100, height: 30, args: []string{"--yolo"}, replies: []providertest.Reply{
		{Tools: []providertest.ToolCall{{ID: "s1", Name: "subagent_spawn", Args: `{"task":"wait forever"}`}}},
		{Hang: true},
		{Hang: true},
	}})
	h.idle()
	h.enter("start a helper")
	h.waitText("sa-1 running")
	h.waitFor("both requests", func(string) bool { return len(h.srv.Requests()) == 3 })
	h.send("\x1b")
	h.waitText("1 subagent still running. Stop it too?")
	h.send("\x1b[B") // down: Stop them
	h.send("\r")
	h.waitText("subagent sa-1 stopped")
	h.idle()
	var running int
	h.do(func(u *ui) { running = u.app.RunningSubagents() })
	if running != 0 {
		t.Errorf("%d subagents running after stopping them", running)
	}
}

// BenchmarkKeystrokeWhileSubagentsStream measures a keystroke through the
// whole UI (as BenchmarkKeystrokeLoop) while four subagents stream long
// answers from the scripted server; p50-ms, p99-ms and max-ms are the
// latencies of the keys.
func BenchmarkKeystrokeWhileSubagentsStream(b *testing.B) {
	long := strings.Repeat("streamed words of a subagent's long answer ", 3000)
	decide := func(r providertest.Recorded) providertest.Reply {
		body := string(r.Raw)
		switch {
		case strings.Contains(body, "You are a subagent"):
			return providertest.Reply{Text: long, Chunks: 6000, EventDelay: 2 * time.Millisecond}
		case strings.Contains(body, "subagent_spawn\",\"input\""):
			return providertest.Reply{Text: "Four subagents are working."}
		}
		var calls []providertest.ToolCall
		for i := range 4 {
			calls = append(calls, providertest.ToolCall{ID: fmt.Sprintf("s%d", i), Name: "subagent_spawn", Args: fmt.Sprintf(`{"task":"part %d"}`, i)})
		}
		return providertest.Reply{Tools: calls}
	}
	h := startUI(b, uiOptions{width: 120, height: 30, args: []string{"--yolo"}, decide: decide})
	h.idle()
	h.enter("split it")
	h.waitText("Four subagents are working.")
	h.waitText("Subagents (4)")
	h.idle()
	keys := []string{"a", "\x7f"}
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		select {
		case <-h.frames:
		default:
		}
		start := time.Now()
		h.send(keys[i%2])
		<-h.frames
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	var running int
	h.do(func(u *ui) { running = u.app.RunningSubagents() })
	if running != 4 {
		b.Fatalf("%d subagents ran during the measurement, want 4", running)
	}
	slices.Sort(lat)
	ms := func(d time.Duration) float64 { return float64(d) / 1e6 }
	b.ReportMetric(ms(lat[len(lat)/2]), "p50-ms")
	b.ReportMetric(ms(lat[len(lat)*99/100]), "p99-ms")
	b.ReportMetric(ms(lat[len(lat)-1]), "max-ms")
}
