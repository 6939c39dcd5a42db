package subagent

import (
	"context"
	"errors"
	"testing"

	"github.com/zut-go/zut/agent"
)

type answerConfirmer struct {
	ans agent.ConfirmAnswer
	err error
	got agent.ConfirmRequest
}

func (c *answerConfirmer) Confirm(ctx context.Context, req agent.ConfirmRequest) (agent.ConfirmAnswer, error) {
	c.got = req
	return c.ans, c.err
}

// TestLabelledStop: a subagent's confirmation says which subagent asks
// and keeps the whole call; when the user stops the turn there, the
// parent's prompt is aborted too, and only then.
func TestLabelledStop(t *testing.T) {
	tests := []struct {
		name     string
		ans      agent.ConfirmAnswer
		err      error
		wantStop bool
	}{
		{"allowed", agent.ConfirmAnswer{Allow: true}, nil, false},
		{"denied", agent.ConfirmAnswer{Reason: "no"}, nil, false},
		{"stopped", agent.ConfirmAnswer{Stop: true}, nil, true},
		{"not answered", agent.ConfirmAnswer{}, errors.New("the user interrupted the turn"), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := &answerConfirmer{ans: tc.ans, err: tc.err}
			stopped := false
			l := labelled{id: "sa-1", c: c, stop: func() { stopped = true }}
			ans, err := l.Confirm(context.Background(), agent.ConfirmRequest{Name: "bash", Preview: "$ ls", Body: "ls\npwd"})
			if ans != tc.ans || err != tc.err {
				t.Errorf("Confirm = %+v, %v; want %+v, %v", ans, err, tc.ans, tc.err)
			}
			if stopped != tc.wantStop {
				t.Errorf("the parent was stopped: %v, want %v", stopped, tc.wantStop)
			}
			if c.got.Preview != "[subagent sa-1] $ ls" || c.got.Body != "ls\npwd" {
				t.Errorf("the parent's confirmer got %+v, want the labelled preview and the whole body", c.got)
			}
		})
	}
}
