package interactive

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zut-go/zut/provider/providertest"
)

func bashCall(id, command string) providertest.ToolCall {
	args, _ := json.Marshal(map[string]any{"command": command, "timeout": 5})
	return providertest.ToolCall{ID: id, Name: "bash", Args: string(args)}
}

// TestUIConfirmAlwaysAddsRule: "a" in the dialog allows this command in
// this project from now on: the rule (exactly the command, never a wider
// one) is saved in config.json, the same call runs next without asking,
// and /permissions lists and removes it.
func TestUIConfirmAlwaysAddsRule(t *testing.T) {
	h := startUI(t, uiOptions{width: 90, height: 30, replies: []providertest.Reply{
		{Tools: []providertest.ToolCall{bashCall("c1", "printf %s one")}},
		{Tools: []providertest.ToolCall{bashCall("c2", "printf %s one")}},
		{Text: "Both ran."},
	}})
	h.idle()
	h.enter("run them")
	h.waitText("Always allow bash(printf %s one) in this project")
	h.send("a")
	// Nobody answers a second dialog: the answer comes only if the
	// second call ran without asking.
	h.waitText("Both ran.")
	h.idle()
	proj := filepath.Join(h.home, "proj")
	perms, _ := h.readConfig()["permissions"].(map[string]any)
	projects, _ := perms["projects"].(map[string]any)
	if got := fmt.Sprint(projects[proj]); !strings.Contains(got, "bash(printf %s one)") {
		t.Fatalf("config.json permissions = %v, want allow bash(printf %%s one) for %s", perms, proj)
	}
	h.enter("/permissions")
	h.waitText("allow bash(printf %s one)")
	h.waitText("config.json, this project")
	h.send("\r")
	h.waitText("removed allow bash(printf %s one)")
	h.idle()
	perms, _ = h.readConfig()["permissions"].(map[string]any)
	if strings.Contains(fmt.Sprint(perms), "printf") {
		t.Errorf("config.json still holds the removed rule: %v", perms)
	}
}

// TestUIConfirmScrollsDiff: a write of a new 40-line file shows its lines
// in the dialog, a window at a time, and PgDn moves the window.
func TestUIConfirmScrollsDiff(t *testing.T) {
	var content strings.Builder
	for i := 1; i <= 40; i++ {
		fmt.Fprintf(&content, "line number %d\n", i)
	}
	args, _ := json.Marshal(map[string]any{"path": "notes.txt", "content": content.String()})
	h := startUI(t, uiOptions{width: 80, height: 24, replies: []providertest.Reply{
		{Tools: []providertest.ToolCall{{ID: "w1", Name: "write", Args: string(args)}}},
		{Text: "Written."},
	}})
	h.idle()
	h.enter("write notes")
	h.waitText("Allow write?")
	h.sync()
	first := h.screen(false)
	if !strings.Contains(first, "+ line number 1") || !strings.Contains(first, "of 40 · pgup/pgdn") || strings.Contains(first, "line number 40") {
		t.Fatalf("the dialog does not show the head of the new file with a scroll line:\n%s", first)
	}
	h.send("\x1b[6~") // PgDn
	h.send("\x1b[6~")
	h.send("\x1b[6~")
	h.send("\x1b[6~")
	h.flushInput()
	h.sync()
	if s := h.screen(false); !strings.Contains(s, "line number 40") || strings.Contains(s, "+ line number 1 ") {
		t.Fatalf("PgDn did not scroll to the end of the file:\n%s", s)
	}
	h.send("y")
	h.waitText("Written.")
	if _, err := os.Stat(filepath.Join(h.home, "proj", "notes.txt")); err != nil {
		t.Errorf("the write did not run: %v", err)
	}
}

// TestUIYoloFooter: with --yolo the footer says that tools run unasked.
func TestUIYoloFooter(t *testing.T) {
	h := startUI(t, uiOptions{args: []string{"--yolo"}})
	h.idle()
	if s := h.screen(false); !strings.Contains(s, "yolo: tools run unasked") {
		t.Errorf("the footer does not show --yolo:\n%s", s)
	}
}

// TestUIConfirmNoVersusEsc: "n" and a reason deny the call and the model
// goes on (it is asked again, with the reason); Esc, even while a reason
// is typed, denies it and ends the turn (no further request).
func TestUIConfirmNoVersusEsc(t *testing.T) {
	tests := []struct {
		name     string
		keys     []string
		requests int    // model requests, the prompt's included
		result   string // in the result of the denied call
		notice   string
	}{
		{"no, tell the model", []string{"n", "use make", "\r"}, 2, "use make", "Taking another way."},
		{"esc", []string{"\x1b"}, 1, "the user stopped the turn", "interrupted"},
		{"esc while typing the reason", []string{"n", "wait", "\x1b"}, 1, "the user stopped the turn (wait)", "interrupted"},
		{"ctrl+c", []string{"\x03"}, 1, "the user stopped the turn", "interrupted"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			replies := []providertest.Reply{{Tools: []providertest.ToolCall{bashCall("c1", "rm -rf build")}}}
			if tc.requests == 2 {
				replies = append(replies, providertest.Reply{Text: "Taking another way."})
			}
			// A turn that went on after a stop would take this reply.
			replies = append(replies, providertest.Reply{Text: "Next prompt answered."})
			h := startUI(t, uiOptions{width: 80, height: 30, replies: replies})
			h.idle()
			h.enter("clean up")
			h.waitText("No, and stop the turn")
			for _, k := range tc.keys {
				h.send(k)
				h.flushInput()
			}
			h.waitText(tc.notice)
			h.idle()
			if n := len(h.srv.Requests()); n != tc.requests {
				t.Errorf("%d model requests, want %d", n, tc.requests)
			}
			// The next prompt goes out with the denied call's result.
			h.enter("next")
			h.waitText("answered.")
			reqs := h.srv.Requests()
			body, _ := json.Marshal(reqs[len(reqs)-1].Body)
			if !strings.Contains(string(body), tc.result) {
				t.Errorf("the next request lacks %q: %s", tc.result, body)
			}
		})
	}
}
