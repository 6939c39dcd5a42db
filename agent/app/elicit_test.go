package app

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/zut-go/zut/agent"
	"github.com/zut-go/zut/host/mcp"
	"github.com/zut-go/zut/proto"
)

// scriptedUI answers the dialogs it is shown from a list, in order, and
// records them: the user of an elicitation.
type scriptedUI struct {
	NopUI
	mu      sync.Mutex
	answers []proto.UIResponse
	shown   []proto.UIRequest
}

func (u *scriptedUI) UIRequest(ext string, req proto.UIRequest, answer func(proto.UIResponse)) {
	u.mu.Lock()
	u.shown = append(u.shown, req)
	a := proto.CancelledAnswer()
	if len(u.answers) > 0 {
		a, u.answers = u.answers[0], u.answers[1:]
	}
	u.mu.Unlock()
	go answer(a)
}

const elicitForm = `{"mode":"form","message":"Pick a name","requestedSchema":{"type":"object","properties":{
	"name":{"type":"string","default":"Ada"},
	"size":{"type":"integer","minimum":1,"maximum":9},
	"color":{"type":"string","oneOf":[{"const":"r","title":"Red"},{"const":"g","title":"Green"}]},
	"ok":{"type":"boolean","default":true}},"required":["size"]}}`

func TestElicitDialogs(t *testing.T) {
	req := parseForm(t, elicitForm)
	tests := []struct {
		name    string
		oneShot bool
		sub     bool
		answers []proto.UIResponse
		want    mcp.ElicitResult
		err     string
		asked   []string // the dialogs' titles
	}{
		{name: "answered", answers: []proto.UIResponse{
			proto.SelectAnswer("Answer", 0), proto.InputAnswer(""), proto.InputAnswer("12"), proto.InputAnswer("4"),
			proto.SelectAnswer("Green", 1), proto.ConfirmAnswer(false)},
			want:  mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada", "size": int64(4), "color": "g", "ok": false}},
			asked: []string{`MCP server "s" asks`, "name", "size (required)", "size (required)", "color", "ok"}},
		{name: "declined", answers: []proto.UIResponse{proto.SelectAnswer("Decline", 1)},
			want: mcp.ElicitResult{Action: "decline"}, asked: []string{`MCP server "s" asks`}},
		{name: "cancelled in a field", answers: []proto.UIResponse{proto.SelectAnswer("Answer", 0), proto.CancelledAnswer()},
			want: mcp.ElicitResult{Action: "cancel"}, asked: []string{`MCP server "s" asks`, "name"}},
		{name: "print mode", oneShot: true, err: "nobody can answer"},
		{name: "subagent", sub: true, err: "the call came from a subagent"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ui := &scriptedUI{answers: tc.answers}
			a := &App{ui: &uiSwitch{}, front: Frontend{OneShot: tc.oneShot}, emit: func(agent.Event) {}, mcpCalls: newMCPCallCount()}
			a.ui.set(ui)
			if tc.sub {
				a.mcpCalls.sub["s"]++ // a subagent's call is in flight, no main agent's
			}
			got, err := a.elicit(context.Background(), "s", req)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("elicit = %v, %v; want an error containing %q", got, err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			// What the dialog answered is completed as the client sends it.
			if got.Action == "accept" {
				got.Content, err = req.Complete(got.Content)
				if err != nil {
					t.Fatal(err)
				}
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("elicit = %#v, want %#v", got, tc.want)
			}
			var titles []string
			for _, d := range ui.shown {
				titles = append(titles, d.Title)
			}
			if !reflect.DeepEqual(titles, tc.asked) {
				t.Errorf("dialogs = %q, want %q", titles, tc.asked)
			}
		})
	}
}

func parseForm(t *testing.T, params string) mcp.ElicitRequest {
	t.Helper()
	req, err := mcp.ParseElicit(json.RawMessage(params))
	if err != nil {
		t.Fatal(err)
	}
	return req
}
