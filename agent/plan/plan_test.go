package plan

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zut-go/zut/agent/session"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./agent/plan -update)", err)
	}
	if got != string(want) {
		t.Errorf("%s:\ngot:\n%s\nwant:\n%s", name, got, want)
	}
}

// TestParseErrors: every bad plan gets a message saying what to fix.
func TestParseErrors(t *testing.T) {
	long := strings.Repeat("x", MaxItemText+1)
	many := `{"items":[` + strings.TrimSuffix(strings.Repeat(`{"text":"a","status":"pending"},`, MaxItems+1), ",") + `]}`
	cases := []struct {
		name, args, want string
	}{
		{"no items", `{}`, "items is required"},
		{"items not array", `{"items":"a"}`, "items must be an array"},
		{"item not object", `{"items":[3]}`, "item 1"},
		{"missing text", `{"items":[{"status":"done"}]}`, "item 1: text is required"},
		{"empty text", `{"items":[{"text":"  ","status":"done"}]}`, "item 1: text is empty"},
		{"bad status", `{"items":[{"text":"a","status":"done"},{"text":"b","status":"later"}]}`, `item 2: status "later"`},
		{"unknown member", `{"items":[{"text":"a","status":"done","prio":1}]}`, `unknown argument "prio"`},
		{"two active", `{"items":[{"text":"a","status":"in_progress"},{"text":"b","status":"pending"},{"text":"c","status":"in_progress"}]}`, "items 1, 3 are all in_progress"},
		{"long text", `{"items":[{"text":"` + long + `","status":"pending"}]}`, "keep each step under"},
		{"too many", many, "keep it to 50 or fewer"},
		{"unknown arg", `{"items":[],"todo":1}`, `unknown argument "todo"`},
		{"not object", `[1]`, "must be a JSON object"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(json.RawMessage(tc.args))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Parse(%.80s) = %v, want an error containing %q", tc.args, err, tc.want)
			}
		})
	}
}

// TestRun saves the plan and answers with its summary and text.
func TestRun(t *testing.T) {
	var saved []session.Checklist
	tl := New(Config{Save: func(c session.Checklist) error { saved = append(saved, c); return nil }})
	args := `{"items":[{"text":"Read the parser","status":"done"},{"text":"Fix nested blocks","status":"in_progress"},{"text":"Add a test","status":"pending"}],"note":"tests first"}`
	r := tl.Run(context.Background(), json.RawMessage(args), nil)
	if r.IsError {
		t.Fatalf("Run = %q, want success", r.Text())
	}
	golden(t, "run.txt", r.Text()+"\n")
	if len(saved) != 1 || len(saved[0].Items) != 3 || saved[0].Note != "tests first" {
		t.Errorf("saved = %+v, want the three items and the note", saved)
	}
	var details session.Checklist
	if err := json.Unmarshal(r.Details, &details); err != nil || len(details.Items) != 3 {
		t.Errorf("Details = %s (%v), want the checklist", r.Details, err)
	}
	if p := tl.(interface{ Preview(json.RawMessage) string }).Preview(json.RawMessage(args)); p != "plan: 3 items: 1 done, 1 in progress, 1 pending" {
		t.Errorf("Preview = %q", p)
	}

	r = tl.Run(context.Background(), json.RawMessage(`{"items":[]}`), nil)
	if r.IsError || !strings.HasPrefix(r.Text(), "Plan cleared.") || len(saved[1].Items) != 0 {
		t.Errorf("Run(empty) = %q, saved %+v; want the plan cleared", r.Text(), saved[1:])
	}

	failing := New(Config{Save: func(session.Checklist) error { return errors.New("disk full") }})
	r = failing.Run(context.Background(), json.RawMessage(args), nil)
	if !r.IsError || !strings.Contains(r.Text(), "not saved: disk full") {
		t.Errorf("Run with a failing store = %q, want the error", r.Text())
	}
}
