package session

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/zut-go/zut/provider"
)

func TestEstimateTokens(t *testing.T) {
	cases := []struct {
		name string
		m    provider.Message
		want int
	}{
		{"empty", provider.Message{Role: provider.RoleUser}, 4},
		{"8 bytes of text", user("12345678"), 4 + 2},
		{"9 bytes round up", user("123456789"), 4 + 3},
		{"image", provider.Message{Role: provider.RoleUser, Content: []provider.Block{{Type: provider.BlockImage, MIMEType: "image/png", Data: strings.Repeat("A", 1<<20)}}}, 4 + ImageTokens},
		{"tool use", toolUse("id", "bash", `{"command":"ls"}`), 4 + (2+4+16+3)/4},
		{"tool result with image", provider.Message{Role: provider.RoleUser, Content: []provider.Block{{
			Type: provider.BlockToolResult, ToolUseID: "abcd",
			Content: []provider.Block{provider.TextBlock("1234"), {Type: provider.BlockImage}}}}}, 4 + 1 + ImageTokens + 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := EstimateTokens(tc.m); got != tc.want {
				t.Errorf("EstimateTokens(%s) = %d, want %d", tc.name, got, tc.want)
			}
		})
	}
}

// kb is a message of about 100 tokens (4 + 400/4 = 104).
func kb(role provider.Role) provider.Message {
	return provider.Message{Role: role, Content: []provider.Block{provider.TextBlock(strings.Repeat("x", 400))}}
}

func TestCutPoint(t *testing.T) {
	u, a := kb(provider.RoleUser), kb(provider.RoleAssistant)
	bigUser := provider.Message{Role: provider.RoleUser, Content: []provider.Block{provider.TextBlock(strings.Repeat("b", 8000))}}
	tu := toolUse("c", "read", `{"path":"`+strings.Repeat("p", 380)+`"}`)
	tr := toolResult("c", strings.Repeat("r", 400))
	cases := []struct {
		name   string
		msgs   []provider.Message
		keep   int
		want   int
		wantOK bool
	}{
		{"everything fits", []provider.Message{u, a}, 1000, 0, false},
		{"exact fit is not worth it", []provider.Message{u, a}, 208, 0, false},
		{"cut at a user message", []provider.Message{u, a, u, a}, 150, 2, true},
		{"cut at an assistant message", []provider.Message{u, a, u, a}, 50, 3, true},
		{"never start at a tool result", []provider.Message{u, tu, tr, a}, 150, 1, true},
		{"walk back over tool chains", []provider.Message{u, a, u, tu, tr, tu, tr, a}, 250, 5, true},
		{"walk forward when nothing earlier fits", []provider.Message{u, tr, tr, a}, 250, 3, true},
		{"no clean start at all", []provider.Message{u, tr, tr}, 150, 0, false},
		{"keeping the amount needs everything", []provider.Message{tu, tr, u}, 250, 0, false},
		{"never cut before the first message", []provider.Message{tu, tr, u}, 150, 2, true},
		{"empty", nil, 10, 0, false},
		{"one big prompt then tool calls", []provider.Message{bigUser, tu, tr}, 250, 1, true},
		{"small first message is not worth a summary", []provider.Message{u, tu, tr}, 250, 0, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := CutPoint(tc.msgs, tc.keep)
			if got != tc.want || ok != tc.wantOK {
				t.Errorf("CutPoint(%v, %d) = %d, %v; want %d, %v", texts(tc.msgs), tc.keep, got, ok, tc.want, tc.wantOK)
			}
			if ok && !startsCleanly(tc.msgs[got]) {
				t.Errorf("CutPoint chose message %d, which holds a tool result", got)
			}
		})
	}
}

// conversation appends n exchanges of about 100 tokens per message and
// returns the entry ID of each user message.
func conversation(t *testing.T, s *Session, from, n int) []string {
	var users []string
	for i := from; i < from+n; i++ {
		users = append(users, mustAppend(t, s, user(fmt.Sprintf("q%d %s", i, strings.Repeat("x", 400)))))
		mustAppend(t, s, assistant(fmt.Sprintf("a%d %s", i, strings.Repeat("y", 400))))
	}
	return users
}

func heads(msgs []provider.Message) []string {
	var out []string
	for _, m := range msgs {
		var parts []string
		for _, b := range m.Content {
			text := b.Text
			if i := strings.IndexAny(text, " \n"); i >= 0 {
				text = text[:i]
			}
			parts = append(parts, text)
		}
		out = append(out, string(m.Role)[:1]+":"+strings.Join(parts, "+"))
	}
	return out
}

func TestCompaction(t *testing.T) {
	s := newFile(t, testOpts()...)
	users := conversation(t, s, 0, 5) // q0 a0 ... q4 a4, ~105 tokens each

	p, ok := s.PlanCompaction(400)
	if !ok {
		t.Fatal("PlanCompaction(400) found nothing to compact")
	}
	if p.FirstKeptID != users[3] || len(p.Summarise) != 6 || p.TokensKept > p.TokensBefore || p.TokensKept < 400 {
		t.Errorf("PlanCompaction(400) = first kept %q, %d to summarise, tokens %d kept of %d; want %q, 6, ≥400",
			p.FirstKeptID, len(p.Summarise), p.TokensKept, p.TokensBefore, users[3])
	}
	if err := s.ApplyCompaction(p, "S1 first summary"); err != nil {
		t.Fatal(err)
	}
	// The first kept message is a user message: the summary joins it.
	want := []string{"u:The+q3", "a:a3", "u:q4", "a:a4"}
	if got := heads(s.Messages()); !slices.Equal(got, want) {
		t.Errorf("Messages() after compaction = %v, want %v", got, want)
	}
	if !strings.Contains(s.Messages()[0].Content[0].Text, "S1 first summary") {
		t.Errorf("first message %q does not carry the summary", s.Messages()[0].Content[0].Text)
	}
	if s.Len() != 11 {
		t.Errorf("Len() = %d, want 11: compaction keeps every older entry", s.Len())
	}

	conversation(t, s, 5, 3)
	p2, ok := s.PlanCompaction(300) // keeps a7 q7 a6: starts at an assistant message
	if !ok {
		t.Fatal("second PlanCompaction found nothing")
	}
	if got := heads(p2.Summarise); len(got) == 0 || got[0] != "u:The+q3" {
		t.Errorf("second plan summarises %v, want the previous summary first", got)
	}
	if err := s.ApplyCompaction(p2, "S2 second summary"); err != nil {
		t.Fatal(err)
	}
	msgs := s.Messages()
	if all := fmt.Sprint(msgs); strings.Contains(all, "S1 first") || !strings.Contains(all, "S2 second") {
		t.Errorf("Messages() after the second compaction = %v, want S2 and not S1", heads(msgs))
	}
	r, warns := reopen(t, s)
	if len(warns) != 0 || !slices.Equal(heads(r.Messages()), heads(msgs)) {
		t.Errorf("reopened Messages() = %v (warnings %v), want %v", heads(r.Messages()), warns, heads(msgs))
	}

	// A fork from before the compactions sees the full history again.
	if err := r.Fork(users[4]); err != nil {
		t.Fatal(err)
	}
	want = []string{"u:q0", "a:a0", "u:q1", "a:a1", "u:q2", "a:a2", "u:q3", "a:a3", "u:q4"}
	if got := heads(r.Messages()); !slices.Equal(got, want) {
		t.Errorf("Messages() on a fork before the compactions = %v, want %v", got, want)
	}
	// The second plan's first kept entry is not on this branch.
	if err := r.ApplyCompaction(p2, "stale"); err == nil || !strings.Contains(err.Error(), "plan the compaction again") {
		t.Errorf("ApplyCompaction(stale plan) = %v, want an error asking to plan again", err)
	}
	if err := r.ApplyCompaction(p, ""); err == nil {
		t.Error("ApplyCompaction with an empty summary succeeded")
	}
}

func TestCompactionKeepsToolPairs(t *testing.T) {
	s := NewMemory("/p", testOpts()...)
	mustAppend(t, s, kb(provider.RoleUser))
	mustAppend(t, s, toolUse("c1", "read", `{"path":"a"}`))
	mustAppend(t, s, toolResult("c1", strings.Repeat("r", 800)))
	mustAppend(t, s, toolUse("c2", "read", `{"path":"b"}`))
	mustAppend(t, s, toolResult("c2", strings.Repeat("r", 800)))
	mustAppend(t, s, kb(provider.RoleAssistant))
	p, ok := s.PlanCompaction(250)
	if !ok {
		t.Fatal("PlanCompaction found nothing")
	}
	if err := s.ApplyCompaction(p, "sum"); err != nil {
		t.Fatal(err)
	}
	msgs := s.Messages()
	uses := map[string]bool{}
	for _, m := range msgs {
		for _, b := range m.Content {
			switch b.Type {
			case provider.BlockToolUse:
				uses[b.ID] = true
			case provider.BlockToolResult:
				if !uses[b.ToolUseID] {
					t.Errorf("tool result %q kept without its tool use: %v", b.ToolUseID, texts(msgs))
				}
			}
		}
	}
	if msgs[0].Role != provider.RoleUser {
		t.Errorf("context starts with a %s message, want user", msgs[0].Role)
	}
}

func TestCompactionNothingToDo(t *testing.T) {
	s := NewMemory("/p", testOpts()...)
	if _, ok := s.PlanCompaction(100); ok {
		t.Error("PlanCompaction on an empty session = ok")
	}
	conversation(t, s, 0, 2)
	if _, ok := s.PlanCompaction(10_000); ok {
		t.Error("PlanCompaction when everything fits = ok")
	}
	p, _ := s.PlanCompaction(100)
	s.ApplyCompaction(p, "sum")
	// Only the summary would be summarised again: not worth it.
	if p, ok := s.PlanCompaction(200); ok {
		t.Errorf("PlanCompaction that would only re-summarise the summary = %v", heads(p.Summarise))
	}
	s.AppendState("x", json.RawMessage(`1`))
	if got := heads(s.Messages()); len(got) == 0 || !strings.HasPrefix(got[0], "u:The") {
		t.Errorf("Messages() = %v, want the summary first", got)
	}
}
