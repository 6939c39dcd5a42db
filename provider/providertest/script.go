package providertest

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/zut-go/zut/provider"
)

// ParseScript reads a reply script: a JSON array of replies such as
//
//	[{"text": "Let me look.", "tools": [{"id": "call_1", "name": "read", "args": {"path": "a.go"}}]},
//	 {"thinking": "Short.", "text": "Done.", "usage": {"input": 120, "output": 8}},
//	 {"status": 429, "error_type": "rate_limit_error", "error_message": "slow down", "header": {"retry-after-ms": "10"}},
//	 {"text": "slow", "delay_ms": 200, "event_delay_ms": 20, "chunks": 5},
//	 {"text": "cut off", "cut": true}, {"hang": true}]
//
// It is the format of cmd/fakemodel and of zut's end-to-end scripts.
func ParseScript(data []byte) ([]Reply, error) {
	var script []scriptReply
	if err := json.Unmarshal(data, &script); err != nil {
		return nil, fmt.Errorf("%v (want a JSON array of replies)", err)
	}
	var out []Reply
	for i, s := range script {
		r, err := s.reply()
		if err != nil {
			return nil, fmt.Errorf("reply %d: %v", i+1, err)
		}
		out = append(out, r)
	}
	return out, nil
}

// scriptReply is the JSON form of a Reply.
type scriptReply struct {
	Text         string            `json:"text"`
	Thinking     string            `json:"thinking"`
	Tools        []scriptTool      `json:"tools"`
	Stop         string            `json:"stop"`
	Usage        provider.Usage    `json:"usage"`
	Chunks       int               `json:"chunks"`
	Status       int               `json:"status"`
	ErrorType    string            `json:"error_type"`
	ErrorMessage string            `json:"error_message"`
	Body         string            `json:"body"`
	Header       map[string]string `json:"header"`
	DelayMS      int               `json:"delay_ms"`
	EventDelayMS int               `json:"event_delay_ms"`
	Cut          bool              `json:"cut"`
	Hang         bool              `json:"hang"`
}

type scriptTool struct {
	ID   string          `json:"id"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"` // an object, or a string holding JSON
}

func (s scriptReply) reply() (Reply, error) {
	r := Reply{
		Text: s.Text, Thinking: s.Thinking, Stop: provider.StopReason(s.Stop), Usage: s.Usage, Chunks: s.Chunks,
		Status: s.Status, ErrorType: s.ErrorType, ErrorMessage: s.ErrorMessage, Body: s.Body, Header: s.Header,
		Delay: time.Duration(s.DelayMS) * time.Millisecond, EventDelay: time.Duration(s.EventDelayMS) * time.Millisecond,
		Cut: s.Cut, Hang: s.Hang,
	}
	for _, t := range s.Tools {
		args := string(t.Args)
		var str string
		if json.Unmarshal(t.Args, &str) == nil {
			args = str
		}
		if t.Name == "" {
			return r, errors.New("a tool call needs a name")
		}
		r.Tools = append(r.Tools, ToolCall{ID: t.ID, Name: t.Name, Args: args})
	}
	return r, nil
}
