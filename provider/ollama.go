package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// Ollama is a client of Ollama's native chat API (POST /api/chat, one JSON
// object per line). Ollama also serves the Chat wire under /v1, which the
// ollama provider uses by default; this client exists for setups that want
// the native options. It is safe for concurrent use.
type Ollama struct {
	Config
}

// Stream sends req and returns its response stream.
func (c *Ollama) Stream(ctx context.Context, req *Request) (Stream, error) {
	model, err := c.modelID(req)
	if err != nil {
		return nil, err
	}
	ob := ollamaBody(req, model, c.Model)
	body, err := marshalWithTools(ob, &ob.Tools)
	if err != nil {
		return nil, err
	}
	h := http.Header{"Content-Type": {"application/json"}, "Accept": {"application/x-ndjson"}}
	if c.APIKey != "" {
		h.Set("Authorization", "Bearer "+c.APIKey)
	}
	base := strings.TrimSuffix(strings.TrimRight(c.BaseURL, "/"), "/v1")
	asm := &assembler{}
	return newStream(ctx, &call{
		cfg:    &c.Config,
		url:    base + "/api/chat",
		header: h,
		body:   body,
		model:  model,
		frames: ndjsonFrames,
		dec:    &ollamaDecoder{asm: asm, origin: c.Provider},
		asm:    asm,
	}), nil
}

type ollamaRequest struct {
	Model    string          `json:"model"`
	Messages []ollamaMessage `json:"messages"`
	Tools    []chatTool      `json:"tools,omitempty"`
	Think    any             `json:"think,omitempty"`
	Options  map[string]any  `json:"options,omitempty"`
	Stream   bool            `json:"stream"`
}

type ollamaMessage struct {
	Role      string           `json:"role"`
	Content   string           `json:"content"`
	Thinking  string           `json:"thinking,omitempty"`
	Images    []string         `json:"images,omitempty"`
	ToolCalls []ollamaToolCall `json:"tool_calls,omitempty"`
	ToolName  string           `json:"tool_name,omitempty"`
}

type ollamaToolCall struct {
	ID       string `json:"id,omitempty"`
	Function struct {
		Index     *int            `json:"index,omitempty"`
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
}

func ollamaBody(req *Request, model string, m *Model) *ollamaRequest {
	out := &ollamaRequest{Model: model, Stream: true}
	if req.System != "" {
		out.Messages = append(out.Messages, ollamaMessage{Role: "system", Content: req.System})
	}
	names := map[string]string{} // tool call ID → tool name, for tool results
	for _, msg := range req.sendMessages() {
		if msg.Role == RoleAssistant {
			om := ollamaMessage{Role: "assistant"}
			for _, b := range msg.Content {
				switch b.Type {
				case BlockText:
					om.Content += b.Text
				case BlockThinking:
					if om.Thinking != "" && b.Text != "" {
						om.Thinking += "\n\n"
					}
					om.Thinking += b.Text
				case BlockToolUse:
					var tc ollamaToolCall
					tc.ID = b.ID
					tc.Function.Name = b.Name
					tc.Function.Arguments = objectInput(b.Input)
					om.ToolCalls = append(om.ToolCalls, tc)
					names[b.ID] = b.Name
				}
			}
			out.Messages = append(out.Messages, om)
			continue
		}
		user := ollamaMessage{Role: "user"}
		for _, b := range msg.Content {
			switch b.Type {
			case BlockText:
				if user.Content != "" && b.Text != "" {
					user.Content += "\n"
				}
				user.Content += b.Text
			case BlockImage:
				user.Images = append(user.Images, b.Data)
			case BlockToolResult:
				tm := ollamaMessage{Role: "tool", ToolName: names[b.ToolUseID]}
				var texts []string
				for _, c := range b.Content {
					switch c.Type {
					case BlockText:
						texts = append(texts, c.Text)
					case BlockImage:
						tm.Images = append(tm.Images, c.Data)
					}
				}
				tm.Content = strings.Join(texts, "\n")
				if b.IsError {
					tm.Content = "Error: " + tm.Content
				}
				out.Messages = append(out.Messages, tm)
			}
		}
		if user.Content != "" || len(user.Images) > 0 {
			out.Messages = append(out.Messages, user)
		}
	}
	for _, t := range req.Tools {
		out.Tools = append(out.Tools, chatTool{Type: "function", Function: chatToolDef{Name: t.Name, Description: t.Description, Parameters: schemaOrEmpty(t.Schema)}})
	}
	opts := map[string]any{}
	if req.MaxTokens > 0 {
		opts["num_predict"] = req.MaxTokens
	}
	if req.Temperature != nil {
		opts["temperature"] = *req.Temperature
	}
	if len(opts) > 0 {
		out.Options = opts
	}
	switch e := req.Reasoning.Effort; e {
	case "":
	case "off", "none":
		out.Think = false
	case "low", "medium", "high":
		if m.reasoning() == ReasoningEffort {
			out.Think = e
		} else {
			out.Think = true
		}
	default:
		out.Think = true
	}
	return out
}

func (d *ollamaDecoder) thinking(s string) { d.cur = d.asm.appendThinking(d.cur, d.origin, s) }

func (d *ollamaDecoder) text(s string) { d.cur = d.asm.appendText(d.cur, s) }

// ollamaDecoder reads /api/chat lines. Tool calls arrive whole. Text that
// opens with <think> is split into reasoning and answer (thinktags.go).
type ollamaDecoder struct {
	asm      *assembler
	origin   string
	cur      int
	calls    int
	finished bool
	tags     thinkTags
}

func (d *ollamaDecoder) reset()      { *d = ollamaDecoder{asm: d.asm, origin: d.origin} }
func (d *ollamaDecoder) done() bool  { return d.finished }
func (d *ollamaDecoder) endOK() bool { return false }

type ollamaLine struct {
	Model   string `json:"model"`
	Message struct {
		Content   string           `json:"content"`
		Thinking  string           `json:"thinking"`
		ToolCalls []ollamaToolCall `json:"tool_calls"`
	} `json:"message"`
	Done            bool   `json:"done"`
	DoneReason      string `json:"done_reason"`
	PromptEvalCount int    `json:"prompt_eval_count"`
	EvalCount       int    `json:"eval_count"`
	Error           string `json:"error"`
}

func (d *ollamaDecoder) frame(_, data []byte) error {
	var l ollamaLine
	if err := json.Unmarshal(data, &l); err != nil {
		return fmt.Errorf("%s: decode line: %v", d.origin, err)
	}
	if l.Error != "" {
		return &APIError{Provider: d.origin, Status: http.StatusInternalServerError, Message: l.Error, inStream: true}
	}
	a := d.asm
	if l.Model != "" {
		a.model = l.Model
	}
	d.thinking(l.Message.Thinking)
	if s := l.Message.Content; s != "" {
		if d.tags.state == thinkOff {
			d.text(s)
		} else {
			d.tags.split(s, d.thinking, d.text)
		}
	}
	if len(l.Message.ToolCalls) > 0 || l.Done {
		d.tags.flush(d.thinking, d.text)
	}
	for _, tc := range l.Message.ToolCalls {
		id := tc.ID
		if id == "" {
			id = fmt.Sprintf("call_%d", d.calls)
		}
		d.calls++
		i := a.toolStart(id, tc.Function.Name)
		args := trimSpace(tc.Function.Arguments)
		if len(args) > 0 && args[0] == '"' {
			var s string
			if json.Unmarshal(args, &s) == nil {
				args = []byte(s)
			}
		}
		a.toolDelta(i, string(args))
		a.toolEnd(i, false)
		d.cur = -1
	}
	if l.Done {
		if l.PromptEvalCount > 0 || l.EvalCount > 0 {
			a.setUsage(Usage{Input: l.PromptEvalCount, Output: l.EvalCount})
		}
		d.finished = true
		a.finish(chatStop(l.DoneReason))
	}
	return nil
}
