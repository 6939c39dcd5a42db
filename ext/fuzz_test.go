package ext

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/zut-go/zut/proto"
)

// FuzzRunIO feeds arbitrary host input, after a valid hello_ack, to the
// demo extension: RunIO must neither panic nor hang, and everything it
// writes must be whole frames.
func FuzzRunIO(f *testing.F) {
	for _, s := range []string{
		`{"type":"tool_call","id":"1","name":"echo","args":{"a":1}}`,
		`{"type":"tool_call","id":"1","name":"ask","args":{"q":"x"}}` + "\n" + `{"type":"tool_cancel","id":"1"}`,
		`{"type":"command_invoked","id":"2","name":"chrome","args":""}`,
		`{"type":"event_intercept","id":"3","event":"tool_call","tool_name":"bash","tool_args":{"command":"ls","timeout":3}}`,
		`{"type":"event_intercept","id":"4","event":"assistant_message","text":"SECRET"}`,
		`{"type":"event","event":"session_opened","session":{"id":"b"},"state":{"v":1}}`,
		`{"type":"panel_key","panel_id":"p1","key":"rune","text":"x"}`,
		`{"type":"panel_close","panel_id":"p1"}`,
		`{"type":"shutdown"}`,
		`{"type":"tool_call","id":"5","name":7}`,
		"{\"type\":\"tool_call\",\"id\":\"6\",\"name\":\"echo\",\"args\":\"\xff\"}",
		`not json`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, input []byte) {
		d := newDemo()
		d.SetLogOutput(io.Discard)
		close(d.released)
		ack, _ := proto.AppendFrame(nil, testAck)
		in := io.MultiReader(bytes.NewReader(ack), bytes.NewReader(input), strings.NewReader("\n"))
		var out syncBuffer
		err := d.RunIO(context.Background(), in, &out)
		if err != nil && !strings.Contains(err.Error(), "protocol_version") {
			t.Fatalf("RunIO(%q) = %v", input, err)
		}
		r := proto.NewReader(strings.NewReader(out.String()), 0)
		for {
			fr, err := r.Read()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("RunIO(%q) wrote a line that is not a frame: %v", input, err)
			}
			if fr == nil {
				t.Fatalf("RunIO(%q) wrote a nil frame", input)
			}
		}
	})
}

// FuzzAddedRunIO is FuzzRunIO for the additions: arbitrary host input,
// after a hello_ack offering every addition, to the extension that uses
// them all. Requests from handlers that no answer reaches end with the
// connection.
func FuzzAddedRunIO(f *testing.F) {
	for _, s := range []string{
		`{"type":"command_invoked","id":"1","name":"select","args":"x"}` + "\n" + `{"type":"host_response","id":"h1","result":{"value":"a","index":0}}`,
		`{"type":"command_invoked","id":"1","name":"complete","args":"x"}` + "\n" + `{"type":"host_stream","id":"h1","text":"a"}` + "\n" + `{"type":"host_response","id":"h1","error":"no"}`,
		`{"type":"host_response","id":"h1","result":7}`,
		`{"type":"shortcut","key":"ctrl+alt+p"}`,
		`{"type":"command_complete","id":"2","name":"deploy","prefix":"s"}`,
		`{"type":"editor_key","id":"3","key":"ctrl+s","text":"t"}`,
		`{"type":"render_tool","id":"4","tool_name":"bash","args":{"command":1},"result":"x","width":-1}`,
		`{"type":"render_message","id":"5","name":"success","content":"c","width":0}`,
		`{"type":"event_intercept","id":"6","event":"context_prepare","messages":[{"index":"x"}]}`,
		`{"type":"event_intercept","id":"7","event":"input","text":"/todo","source":"cli"}`,
		`{"type":"event","event":"custom","name":"ping","data":{"n":1},"from":"o"}`,
		`{"type":"tool_call","id":"8","name":"slow_task","args":{}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, input []byte) {
		e := newAddedDemo()
		e.SetLogOutput(io.Discard)
		ack, _ := proto.AppendFrame(nil, addedAck)
		in := io.MultiReader(bytes.NewReader(ack), bytes.NewReader(input), strings.NewReader("\n"))
		var out syncBuffer
		err := e.RunIO(context.Background(), in, &out)
		if err != nil && !strings.Contains(err.Error(), "protocol_version") {
			t.Fatalf("RunIO(%q) = %v", input, err)
		}
		r := proto.NewReader(strings.NewReader(out.String()), 0)
		for {
			fr, err := r.Read()
			if err == io.EOF {
				break
			}
			if err != nil || fr == nil {
				t.Fatalf("RunIO(%q) wrote a line that is not a frame: %v", input, err)
			}
		}
	})
}
