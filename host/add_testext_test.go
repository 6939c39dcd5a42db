package host

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/zut-go/zut/proto"
)

// addedScript is the part of the scripted test extension (run with
// -added) that speaks the additions beyond v2. It reports what it sees as
// notify frames, like the rest of the script. Commands drive it:
//
//	/req <method> <params JSON>   send a host_request, answer the command
//	                              with "result <json>" or "error <text>"
//	                              (and "stream <chunks>" first)
//	/req-slow <method> <params>   /req, taking 200 ms after the answer
//	/raw <frame JSON>             write the frame line as given
//	/exit-during <method> <params> send a host_request and exit at once
type addedScript struct {
	o       *extOptions
	send    func(proto.Frame)
	respond map[string]json.RawMessage

	mu      sync.Mutex
	seq     int
	waiting map[string]chan proto.HostResponse
	streams map[string][]string
}

func newAddedScript(o *extOptions, send func(proto.Frame)) *addedScript {
	s := &addedScript{o: o, send: send, waiting: map[string]chan proto.HostResponse{}, streams: map[string][]string{}}
	if o.respond != "" {
		if err := json.Unmarshal([]byte(o.respond), &s.respond); err != nil {
			fmt.Fprintln(os.Stderr, "respond:", err)
		}
	}
	return s
}

// handle acts on f and reports whether it did.
func (s *addedScript) handle(f proto.Frame) bool {
	switch f := f.(type) {
	case *proto.CommandInvoked:
		return s.command(f)
	case *proto.HostResponse:
		s.mu.Lock()
		ch := s.waiting[f.ID]
		delete(s.waiting, f.ID)
		s.mu.Unlock()
		if ch == nil {
			s.send(proto.Notify{Message: "stray host_response " + f.ID})
		} else {
			ch <- *f
		}
	case *proto.HostStream:
		s.mu.Lock()
		s.streams[f.ID] = append(s.streams[f.ID], f.Text)
		s.mu.Unlock()
	case *proto.Shortcut:
		s.send(proto.Notify{Message: "shortcut " + f.Key})
	case *proto.CommandComplete:
		s.send(proto.CommandCompletions{ID: f.ID, Items: []string{f.Prefix + "1", f.Prefix + "2"}})
	case *proto.EditorKey:
		switch f.Key {
		case "ctrl+s":
			s.send(proto.EditorKeyResponse{ID: f.ID, Action: "submit", Text: "saved: " + f.Text})
		case "up":
			s.send(proto.EditorKeyResponse{ID: f.ID, Action: "remap", Key: "Down"})
		case "x":
			s.send(proto.EditorKeyResponse{ID: f.ID, Action: "consumed"})
		case "f2":
			s.send(proto.EditorKeyResponse{ID: f.ID, Action: "explode"})
		case "f4":
			s.send(proto.EditorKeyResponse{ID: f.ID, Action: "remap", Key: "ctrl+bogus"})
		default: // no answer: the host times out
		}
	case *proto.RenderTool:
		s.send(proto.Notify{Message: "render_tool " + f.ToolName})
		body := ""
		if f.Result != nil {
			body = "B:" + *f.Result
		}
		s.send(proto.RenderToolResponse{ID: f.ID, Header: "H:" + f.ToolName + ":" + strconv.Itoa(f.Width), Body: body})
	case *proto.RenderMessage:
		s.send(proto.Notify{Message: "render_message " + f.Name})
		s.send(proto.RenderMessageResponse{ID: f.ID, Lines: []string{"<" + f.Content + ">"}})
	case *proto.ToolCall:
		if f.Name != "progress" {
			return false
		}
		s.send(proto.ToolProgress{ID: f.ID, Text: "step 1"})
		s.send(proto.ToolProgress{ID: "no-such-call", Text: "lost"})
		s.send(proto.ToolProgress{ID: f.ID, Text: "step 2"})
		s.send(proto.ToolResult{ID: f.ID, Content: []proto.ContentBlock{{Type: "text", Text: "done"}}})
	case *proto.EventIntercept:
		raw, ok := s.respond[f.Name]
		if !ok {
			return false
		}
		b, _ := json.Marshal(f)
		s.send(proto.Notify{Message: "intercept " + string(b)})
		var resp proto.EventInterceptResponse
		json.Unmarshal(raw, &resp)
		resp.ID = f.ID
		s.send(resp)
	default:
		return false
	}
	return true
}

// command serves /req, /req-slow (which takes 200 ms after the answer),
// /raw and /exit-during.
func (s *addedScript) command(f *proto.CommandInvoked) bool {
	switch f.Name {
	case "raw":
		os.Stdout.WriteString(f.Args + "\n")
		s.send(proto.CommandResponse{ID: f.ID, Action: proto.ActionNoop})
	case "req", "req-slow", "exit-during":
		method, params, _ := strings.Cut(f.Args, " ")
		s.mu.Lock()
		s.seq++
		id := "x" + strconv.Itoa(s.seq)
		ch := make(chan proto.HostResponse, 1)
		s.waiting[id] = ch
		s.mu.Unlock()
		s.send(proto.HostRequest{ID: id, Method: method, Params: json.RawMessage(params)})
		if f.Name == "exit-during" {
			os.Exit(9)
		}
		go func() {
			resp := <-ch
			if f.Name == "req-slow" {
				time.Sleep(200 * time.Millisecond)
			}
			s.mu.Lock()
			chunks := s.streams[id]
			s.mu.Unlock()
			text := "result " + string(resp.Result)
			if resp.Error != "" {
				text = "error " + resp.Error
			}
			if len(chunks) > 0 {
				text = "stream " + strings.Join(chunks, "|") + " " + text
			}
			s.send(proto.CommandResponse{ID: f.ID, Action: proto.ActionDisplay, Display: text})
		}()
	default:
		return false
	}
	return true
}
