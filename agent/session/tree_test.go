package session

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// mainBranch builds the small linear tree the fork tests start from and
// returns the IDs of its entries in order.
//
//	1 user q1, 2 assistant a1, 3 state n=1, 4 user q2, 5 assistant a2,
//	6 state n=2, 7 user q3
func mainBranch(t *testing.T, s *Session) []string {
	t.Helper()
	var ids []string
	add := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, s.Leaf())
	}
	add(s.AppendMessage(user("q1"), Meta{}))
	add(s.AppendMessage(assistant("a1"), Meta{}))
	add(s.AppendState("todos", json.RawMessage(`{"n":1}`)))
	add(s.AppendMessage(user("q2"), Meta{}))
	add(s.AppendMessage(assistant("a2"), Meta{}))
	add(s.AppendState("todos", json.RawMessage(`{"n":2}`)))
	add(s.AppendMessage(user("q3"), Meta{}))
	return ids
}

// TestForkEveryPosition forks the small tree after each of its entries
// (position 0 is the session start) and checks the new branch, its
// identity, its messages and its state, before and after reopening.
func TestForkEveryPosition(t *testing.T) {
	mainTexts := []string{"u:q1", "a:a1", "", "u:q2", "a:a2", "", "u:q3"}
	mainStates := []string{"", "", `{"n":1}`, `{"n":1}`, `{"n":1}`, `{"n":2}`, `{"n":2}`}
	for p := 0; p <= len(mainTexts); p++ {
		t.Run(fmt.Sprintf("after %d entries", p), func(t *testing.T) {
			s := newFile(t, testOpts()...)
			ids := mainBranch(t, s)
			from := s.ID()
			if p > 0 {
				from = ids[p-1]
			}
			if err := s.Fork(from); err != nil {
				t.Fatalf("Fork(%q): %v", from, err)
			}
			branchID := s.Leaf()
			mustAppend(t, s, user(fmt.Sprintf("fork %d", p)))
			wantIDs := append(slices.Clone(ids[:p]), branchID, s.Leaf())
			var wantMsgs []string
			for _, m := range mainTexts[:p] {
				if m != "" {
					wantMsgs = append(wantMsgs, m)
				}
			}
			wantMsgs = append(wantMsgs, fmt.Sprintf("u:fork %d", p))
			wantState := ""
			if p > 0 {
				wantState = mainStates[p-1]
			}
			check := func(s *Session) {
				t.Helper()
				if got := entryIDs(s.Branch()); !slices.Equal(got, wantIDs) {
					t.Errorf("Branch() = %v, want %v", got, wantIDs)
				}
				if id, parent, fp := s.Identity(); id != branchID || parent != s.ID() || fp != p {
					t.Errorf("Identity() = %q, %q, %d; want %q, %q, %d", id, parent, fp, branchID, s.ID(), p)
				}
				if got := texts(s.Messages()); !slices.Equal(got, wantMsgs) {
					t.Errorf("Messages() = %v, want %v", got, wantMsgs)
				}
				st, _ := s.State("todos")
				if string(st) != wantState {
					t.Errorf("State(todos) = %s, want %q", st, wantState)
				}
			}
			check(s)
			r, warns := reopen(t, s)
			if len(warns) != 0 {
				t.Errorf("reopen warnings: %v", warns)
			}
			check(r)
			if p == len(ids) {
				return // forked from the main leaf: the main branch is a prefix of the fork
			}
			// The main branch is untouched and still reachable.
			if err := r.Switch(ids[len(ids)-1]); err != nil {
				t.Fatalf("Switch(main leaf): %v", err)
			}
			if id, parent, fp := r.Identity(); id != r.ID() || parent != "" || fp != 0 {
				t.Errorf("main branch Identity() = %q, %q, %d; want %q, \"\", 0", id, parent, fp, r.ID())
			}
			if got := entryIDs(r.Branch()); !slices.Equal(got, ids) {
				t.Errorf("main Branch() = %v, want %v", got, ids)
			}
		})
	}
}

func TestNestedFork(t *testing.T) {
	s := NewMemory("/p", testOpts()...)
	ids := mainBranch(t, s)
	s.Fork(ids[3])
	first, _, _ := s.Identity()
	m := mustAppend(t, s, user("on the fork"))
	mustAppend(t, s, assistant("reply"))
	if err := s.Fork(m); err != nil {
		t.Fatal(err)
	}
	id, parent, fp := s.Identity()
	if id != s.Leaf() || parent != first || fp != 6 {
		t.Errorf("nested Identity() = %q, %q, %d; want %q, %q, 6", id, parent, fp, s.Leaf(), first)
	}
	want := []string{"u:q1", "a:a1", "u:q2", "u:on the fork"}
	if got := texts(s.Messages()); !slices.Equal(got, want) {
		t.Errorf("Messages() = %v, want %v", got, want)
	}
}

func TestSwitch(t *testing.T) {
	s := NewMemory("/p", testOpts()...)
	ids := mainBranch(t, s)
	mainLeaf := ids[len(ids)-1]
	s.Fork(ids[1])
	forkLeaf := mustAppend(t, s, user("other"))
	cases := []struct {
		name    string
		to      string
		wantErr string
		want    []string // Messages after switching
	}{
		{"to the main leaf", mainLeaf, "", []string{"u:q1", "a:a1", "u:q2", "a:a2", "u:q3"}},
		{"to the fork leaf", forkLeaf, "", []string{"u:q1", "a:a1", "u:other"}},
		{"to an inner entry", ids[2], "has later entries", nil},
		{"to the session start", s.ID(), "has later entries", nil},
		{"to an unknown entry", "nope", `no entry "nope"`, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := s.Leaf()
			err := s.Switch(tc.to)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Errorf("Switch(%q) = %v, want an error containing %q", tc.to, err, tc.wantErr)
				}
				if s.Leaf() != before {
					t.Errorf("failed Switch moved the leaf from %q to %q", before, s.Leaf())
				}
				return
			}
			if err != nil {
				t.Fatalf("Switch(%q): %v", tc.to, err)
			}
			if got := texts(s.Messages()); !slices.Equal(got, tc.want) {
				t.Errorf("Messages() = %v, want %v", got, tc.want)
			}
		})
	}
	// An append after a switch continues the branch switched to.
	s.Switch(mainLeaf)
	mustAppend(t, s, assistant("a3"))
	if e, _ := s.Entry(s.Leaf()); e.ParentID != mainLeaf {
		t.Errorf("entry after Switch has parent %q, want %q", e.ParentID, mainLeaf)
	}
}

// TestStatePerBranch checks that extension state follows the branch: a
// fork inherits what was set up to its fork point, and sees nothing set on
// a sibling.
func TestStatePerBranch(t *testing.T) {
	s := newFile(t, testOpts()...)
	u1 := mustAppend(t, s, user("u1"))
	s.AppendState("todos", json.RawMessage(`{"v":"main"}`))
	st := s.Leaf()
	s.AppendState("other", json.RawMessage(`[1]`))
	mainLeaf := mustAppend(t, s, user("u2"))

	s.Fork(st)
	s.AppendState("todos", json.RawMessage(`{"v":"b"}`))
	bLeaf := mustAppend(t, s, user("on b"))

	s.Fork(u1)
	s.AppendState("todos", json.RawMessage(`{"v":"c"}`))
	s.AppendState("todos", nil) // cleared
	s.AppendState("other", json.RawMessage(`"c"`))
	cLeaf := mustAppend(t, s, user("on c"))

	r, _ := reopen(t, s)
	cases := []struct {
		leaf string
		want map[string]string
	}{
		{mainLeaf, map[string]string{"todos": `{"v":"main"}`, "other": `[1]`}},
		{bLeaf, map[string]string{"todos": `{"v":"b"}`}},
		{cLeaf, map[string]string{"other": `"c"`}},
	}
	for _, sess := range []*Session{s, r} {
		for _, tc := range cases {
			if err := sess.Switch(tc.leaf); err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for k, v := range sess.States() {
				got[k] = string(v)
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("States() on leaf %s = %v, want %v", tc.leaf, got, tc.want)
			}
			for ext, want := range map[string]string{"todos": tc.want["todos"], "other": tc.want["other"]} {
				v, ok := sess.State(ext)
				if string(v) != want || ok != (want != "") {
					t.Errorf("State(%q) on leaf %s = %s, %v; want %q", ext, tc.leaf, v, ok, want)
				}
			}
		}
	}
}

// render draws a tree one node per line, indented by depth, with "*" for
// nodes on the current branch and "<" for the current leaf.
func render(n *Node, depth int, b *strings.Builder) {
	mark := " "
	if n.OnBranch {
		mark = "*"
	}
	fmt.Fprintf(b, "%s%s %s %s", strings.Repeat("  ", depth), mark, n.ID, n.Preview)
	if n.Current {
		b.WriteString(" <")
	}
	b.WriteString("\n")
	for _, c := range n.Children {
		render(c, depth+1, b)
	}
}

func TestTree(t *testing.T) {
	s := NewMemory("/p", append(testOpts(), WithTitle("tree test"))...)
	q := mustAppend(t, s, user("what is\nin here?"))
	mustAppend(t, s, toolUse("t1", "bash", `{"command":"ls"}`))
	mustAppend(t, s, toolResult("t1", "a.txt"))
	s.Fork(q)
	s.AppendModelChange("openai", "gpt-5")
	mustAppend(t, s, assistant(strings.Repeat("long answer ", 20)))
	var b strings.Builder
	render(s.Tree(), 0, &b)
	want := `* id01 tree test
  * id02 user: what is …
      id03 assistant: → bash {"command":"ls"}
        id04 user: ← result a.txt
    * id05 branch
      * id06 model: openai/gpt-5
        * id07 assistant: long answer long answer long answer long answer long answer long answer… <
`
	if b.String() != want {
		t.Errorf("Tree() =\n%s\nwant\n%s", b.String(), want)
	}
	s.Switch("id04")
	b.Reset()
	render(s.Tree(), 0, &b)
	if !strings.Contains(b.String(), "* id04 user: ← result a.txt <") || strings.Contains(b.String(), "* id05") {
		t.Errorf("Tree() after Switch(id04) =\n%s\nwant id04 current and id05 off the branch", b.String())
	}
}
