package bot

import (
	"fmt"
	"strings"
	"testing"

	"github.com/zut-go/zut/agent"
)

// TestQuestionShowsWholeCall: the question holds every line of the call
// and counts them, whatever the preview says; four buttons answer it.
func TestQuestionShowsWholeCall(t *testing.T) {
	var lines []string
	for i := 1; i <= 60; i++ {
		lines = append(lines, fmt.Sprintf("echo step %d", i))
	}
	lines[59] = "rm -rf important_dir"
	tests := []struct {
		name string
		req  agent.ConfirmRequest
		want []string
	}{
		{"sixty lines", agent.ConfirmRequest{Name: "bash", Preview: "$ echo step 1 …", Body: strings.Join(lines, "\n")},
			append([]string{"🔐 Allow bash?", "$ echo step 1 …", "(60 lines)"}, lines...)},
		{"one line", agent.ConfirmRequest{Name: "bash", Preview: "$ ls", Body: "ls"}, []string{"$ ls\n\nls"}},
		{"no body", agent.ConfirmRequest{Name: "edit", Preview: "edit a.go (1 edit)"}, []string{"🔐 Allow edit?\nedit a.go (1 edit)"}},
		{"json", agent.ConfirmRequest{Name: "deploy", Preview: "deploy {…}", Body: "{\n  \"target\": \"prod\"\n}"}, []string{"\"target\": \"prod\"", "(3 lines)"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := (&question{nonce: "n1", req: tc.req}).message()
			for _, w := range tc.want {
				if !strings.Contains(m.Plain, w) {
					t.Errorf("message lacks %q:\n%s", w, m.Plain)
				}
			}
			if tc.req.Body == "" && strings.Contains(m.Plain, "lines)") {
				t.Errorf("a call without a body is counted:\n%s", m.Plain)
			}
			var got []string
			for _, b := range m.Buttons[0] {
				got = append(got, b.Text+"="+b.Data)
			}
			if want := "Allow once=zut:n1:o,Always=zut:n1:a,Deny=zut:n1:d,Deny & stop=zut:n1:s"; strings.Join(got, ",") != want {
				t.Errorf("buttons = %s, want %s", strings.Join(got, ","), want)
			}
		})
	}
}

func TestAnswerOf(t *testing.T) {
	tests := []struct {
		choice string
		want   agent.ConfirmAnswer
	}{
		{choiceOnce, agent.ConfirmAnswer{Allow: true}},
		{choiceAlways, agent.ConfirmAnswer{Allow: true, Always: true}},
		{choiceDeny, agent.ConfirmAnswer{Reason: "the user declined it in the chat"}},
		{choiceStop, agent.ConfirmAnswer{Stop: true}},
	}
	for _, tc := range tests {
		if got := answerOf(tc.choice); got != tc.want {
			t.Errorf("answerOf(%q) = %+v, want %+v", tc.choice, got, tc.want)
		}
	}
}
