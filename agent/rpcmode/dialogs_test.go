package rpcmode

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/zut-go/zut/proto"
)

func intp(i int) *int { return &i }

func TestDialogAnswer(t *testing.T) {
	sel := proto.UIRequest{Kind: proto.UISelect, Options: []string{"red", "green"}}
	overlay := proto.UIRequest{Kind: proto.UIOverlay, Actions: []string{"ok", "cancel"}}
	confirm := proto.UIRequest{Kind: proto.UIConfirm}
	input := proto.UIRequest{Kind: proto.UIInput}
	tests := []struct {
		name    string
		req     proto.UIRequest
		resp    proto.RPCExtUIResponse
		want    string // the UIResponse as JSON
		wantErr string
	}{
		{"select by value", sel, proto.RPCExtUIResponse{Value: json.RawMessage(`"green"`)}, `{"value":"green","index":1}`, ""},
		{"select by index", sel, proto.RPCExtUIResponse{Index: intp(0)}, `{"value":"red","index":0}`, ""},
		{"select by both", sel, proto.RPCExtUIResponse{Value: json.RawMessage(`"green"`), Index: intp(1)}, `{"value":"green","index":1}`, ""},
		{"select disagreeing", sel, proto.RPCExtUIResponse{Value: json.RawMessage(`"green"`), Index: intp(0)}, "", "name different options"},
		{"select unknown", sel, proto.RPCExtUIResponse{Value: json.RawMessage(`"blue"`)}, "", `"blue" is not one of the options`},
		{"select out of range", sel, proto.RPCExtUIResponse{Index: intp(2)}, "", "out of range"},
		{"select nothing", sel, proto.RPCExtUIResponse{}, "", "answer with"},
		{"select not a string", sel, proto.RPCExtUIResponse{Value: json.RawMessage(`3`)}, "", "as a string"},
		{"cancelled", sel, proto.RPCExtUIResponse{Cancelled: true}, `{"cancelled":true}`, ""},
		{"overlay by action", overlay, proto.RPCExtUIResponse{Action: "cancel"}, `{"index":1,"action":"cancel"}`, ""},
		{"overlay by index", overlay, proto.RPCExtUIResponse{Index: intp(0)}, `{"index":0,"action":"ok"}`, ""},
		{"confirm yes", confirm, proto.RPCExtUIResponse{Value: json.RawMessage(`true`)}, `{"value":true}`, ""},
		{"confirm no", confirm, proto.RPCExtUIResponse{Value: json.RawMessage(`false`)}, `{"value":false}`, ""},
		{"confirm bad", confirm, proto.RPCExtUIResponse{Value: json.RawMessage(`"yes"`)}, "", "true or false"},
		{"input", input, proto.RPCExtUIResponse{Value: json.RawMessage(`"hello"`)}, `{"value":"hello"}`, ""},
		{"input bad", input, proto.RPCExtUIResponse{Value: json.RawMessage(`1`)}, "", "as a string"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := dialogAnswer(tc.req, &tc.resp)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("dialogAnswer(%s) = %v, want an error containing %q", tc.name, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("dialogAnswer(%s) error: %v", tc.name, err)
			}
			b, _ := json.Marshal(got)
			if string(b) != tc.want {
				t.Errorf("dialogAnswer(%s) = %s, want %s", tc.name, b, tc.want)
			}
		})
	}
}

// TestRPCDialogs drives rpcUI's dialog forwarding without a host: a
// request becomes an ext_ui_request event, an answer reaches the
// extension once, a timed-out request becomes ext_ui_request_closed, and
// closeAll declines what is pending and what comes later.
func TestRPCDialogs(t *testing.T) {
	var buf syncBuffer
	s := &rpcServer{out: newRPCOutbox(&buf, defaultRPCLimits)}
	go s.out.run()
	u := newRPCUI(s)
	answers := map[string][]proto.UIResponse{}
	answer := func(id string) func(proto.UIResponse) {
		return func(r proto.UIResponse) { answers[id] = append(answers[id], r) }
	}
	u.UIRequest("ask", proto.UIRequest{ID: "7", Kind: proto.UIConfirm, Message: "Deploy?", Default: json.RawMessage("false")}, answer("7"))
	u.UIRequest("ask", proto.UIRequest{ID: "8", Kind: proto.UIInput, Message: "Name?"}, answer("8"))
	u.UIRequest("ask", proto.UIRequest{ID: "9", Kind: proto.UISelect, Options: []string{"a"}}, answer("9"))
	deliver, err := u.answer(&proto.RPCExtUIResponse{RequestID: "7", Value: json.RawMessage("true")})
	if err != nil {
		t.Fatalf("answer(7) = %v", err)
	}
	if len(answers["7"]) != 0 {
		t.Errorf("answer(7) delivered before its deliver function ran")
	}
	deliver()
	if _, err := u.answer(&proto.RPCExtUIResponse{RequestID: "7", Value: json.RawMessage("true")}); err == nil {
		t.Errorf("a second answer(7) = nil, want an error")
	}
	if _, err := u.answer(&proto.RPCExtUIResponse{RequestID: "8", Value: json.RawMessage("1")}); err == nil {
		t.Errorf("answer(8) with a number = nil, want an error")
	}
	u.UIRequestDone("ask", "9")
	if _, err := u.answer(&proto.RPCExtUIResponse{RequestID: "9", Index: intp(0)}); err == nil {
		t.Errorf("answer(9) after it timed out = nil, want an error")
	}
	u.closeAll()
	u.UIRequest("ask", proto.UIRequest{ID: "10", Kind: proto.UIInput}, answer("10"))
	s.out.close()
	<-s.out.done

	want := map[string]string{"7": `[{"value":true}]`, "8": `[{"cancelled":true}]`, "10": `[{"cancelled":true}]`}
	for id, w := range want {
		b, _ := json.Marshal(answers[id])
		if string(b) != w {
			t.Errorf("answers to %s = %s, want %s", id, b, w)
		}
	}
	if _, ok := answers["9"]; ok {
		t.Errorf("request 9 was answered after the host timed it out")
	}
	wantOut := `{"type":"ext_ui_request","request_id":"7","extension":"ask","kind":"confirm","message":"Deploy?","default":false}
{"type":"ext_ui_request","request_id":"8","extension":"ask","kind":"input","message":"Name?"}
{"type":"ext_ui_request","request_id":"9","extension":"ask","kind":"select","options":["a"]}
{"type":"ext_ui_request_closed","request_id":"9","extension":"ask"}
`
	if got := buf.String(); got != wantOut {
		t.Errorf("events =\n%s\nwant\n%s", got, wantOut)
	}
}
