package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
)

// Responses is a client of the OpenAI Responses API. Requests are stateless
// (store false): the whole conversation is sent each time, with reasoning
// items carried back through their encrypted content. It is safe for
// concurrent use.
type Responses struct {
	Config
	// Codex speaks to ChatGPT's Codex backend (WireCodex): the request
	// always has instructions and no max_output_tokens, and a sign-in's
	// requests name the ChatGPT account.
	Codex bool
}

// codexInstructions stand in for an empty system prompt: the Codex
// backend refuses a request without instructions.
const codexInstructions = "You are a helpful coding assistant."

// Stream sends req and returns its response stream.
func (c *Responses) Stream(ctx context.Context, req *Request) (Stream, error) {
	model, err := c.modelID(req)
	if err != nil {
		return nil, err
	}
	rb := responsesBody(req, model, c.Model, c.Provider)
	var signed func(http.Header, Bearer)
	if c.Codex {
		rb.MaxOutputTokens = nil
		if rb.Instructions == "" {
			rb.Instructions = codexInstructions
		}
		// The backend cannot look up earlier reasoning items by id when
		// nothing is stored, so they are not sent back.
		rb.Input = slices.DeleteFunc(rb.Input, func(item json.RawMessage) bool {
			return bytes.HasPrefix(item, []byte(`{"type":"reasoning"`))
		})
		signed = codexSigned
	}
	body, err := marshalWithTools(rb, &rb.Tools)
	if err != nil {
		return nil, err
	}
	h := http.Header{"Content-Type": {"application/json"}, "Accept": {"text/event-stream"}}
	if c.APIKey != "" {
		h.Set("Authorization", "Bearer "+c.APIKey)
	}
	if c.Codex {
		h.Set("Openai-Beta", "responses=experimental")
		if h.Get("Originator") == "" {
			h.Set("Originator", "zut")
		}
	}
	asm := &assembler{}
	return newStream(ctx, &call{
		signed: signed,
		cfg:    &c.Config,
		url:    openAIBase(c.BaseURL) + "/responses",
		header: h,
		body:   body,
		model:  model,
		frames: sseFrames,
		dec:    &responsesDecoder{asm: asm, origin: c.Provider},
		asm:    asm,
	}), nil
}

type responsesRequest struct {
	Model           string              `json:"model"`
	Instructions    string              `json:"instructions,omitempty"`
	Input           []json.RawMessage   `json:"input"`
	Tools           []responsesTool     `json:"tools,omitempty"`
	ToolChoice      any                 `json:"tool_choice,omitempty"`
	MaxOutputTokens *int                `json:"max_output_tokens,omitempty"`
	Reasoning       *responsesReasoning `json:"reasoning,omitempty"`
	Include         []string            `json:"include,omitempty"`
	Temperature     *float64            `json:"temperature,omitempty"`
	Store           bool                `json:"store"`
	Stream          bool                `json:"stream"`
}

type responsesTool struct {
	Type        string          `json:"type"`
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
	Strict      bool            `json:"strict"`
}

type responsesReasoning struct {
	Effort  string `json:"effort,omitempty"`
	Summary string `json:"summary,omitempty"`
}

type responsesMessage struct {
	Role    string `json:"role"`
	Content any    `json:"content"`
}

type responsesPart struct {
	Type     string `json:"type"`
	Text     string `json:"text,omitempty"`
	ImageURL string `json:"image_url,omitempty"`
	Detail   string `json:"detail,omitempty"` // images: "auto"
}

type responsesFunctionCall struct {
	Type      string `json:"type"`
	CallID    string `json:"call_id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type responsesFunctionOutput struct {
	Type   string `json:"type"`
	CallID string `json:"call_id"`
	Output string `json:"output"`
}

type responsesReasoningItem struct {
	Type             string          `json:"type"`
	ID               string          `json:"id"`
	Summary          []responsesPart `json:"summary"`
	EncryptedContent string          `json:"encrypted_content,omitempty"`
}

// responsesBody builds a Responses request body.
func responsesBody(req *Request, model string, m *Model, origin string) *responsesRequest {
	out := &responsesRequest{Model: model, Instructions: req.System, Stream: true, Temperature: req.Temperature, Input: []json.RawMessage{}}
	add := func(v any) { out.Input = append(out.Input, mustJSON(v)) }
	for _, msg := range req.sendMessages() {
		if msg.Role == RoleAssistant {
			var text strings.Builder
			flush := func() {
				if text.Len() > 0 {
					add(responsesMessage{Role: "assistant", Content: text.String()})
					text.Reset()
				}
			}
			for _, b := range msg.Content {
				switch b.Type {
				case BlockText:
					text.WriteString(b.Text)
				case BlockThinking:
					if b.Origin == origin && b.Signature != "" && b.ID != "" {
						flush()
						item := responsesReasoningItem{Type: "reasoning", ID: b.ID, Summary: []responsesPart{}, EncryptedContent: b.Signature}
						if b.Text != "" {
							item.Summary = append(item.Summary, responsesPart{Type: "summary_text", Text: b.Text})
						}
						add(item)
					}
				case BlockToolUse:
					flush()
					add(responsesFunctionCall{Type: "function_call", CallID: b.ID, Name: b.Name, Arguments: argumentsText(b.Input)})
				}
			}
			flush()
			continue
		}
		var parts, toolImages []responsesPart
		for _, b := range msg.Content {
			switch b.Type {
			case BlockText:
				if b.Text != "" {
					parts = append(parts, responsesPart{Type: "input_text", Text: b.Text})
				}
			case BlockImage:
				parts = append(parts, responsesPart{Type: "input_image", ImageURL: dataURL(b), Detail: "auto"})
			case BlockToolResult:
				var texts []string
				for _, c := range b.Content {
					switch c.Type {
					case BlockText:
						texts = append(texts, c.Text)
					case BlockImage:
						toolImages = append(toolImages, responsesPart{Type: "input_image", ImageURL: dataURL(c), Detail: "auto"})
					}
				}
				text := strings.Join(texts, "\n")
				if b.IsError {
					text = "Error: " + text
				}
				add(responsesFunctionOutput{Type: "function_call_output", CallID: b.ToolUseID, Output: text})
			}
		}
		if len(toolImages) > 0 {
			lead := responsesPart{Type: "input_text", Text: "Images returned by the tool calls above:"}
			add(responsesMessage{Role: "user", Content: append([]responsesPart{lead}, toolImages...)})
		}
		if len(parts) > 0 {
			add(responsesMessage{Role: "user", Content: parts})
		}
	}
	for _, t := range req.Tools {
		out.Tools = append(out.Tools, responsesTool{Type: "function", Name: t.Name, Description: t.Description, Parameters: schemaOrEmpty(t.Schema)})
	}
	if len(req.Tools) > 0 {
		switch req.ToolsMode.Mode {
		case "any":
			out.ToolChoice = "required"
		case "none":
			out.ToolChoice = "none"
		case "tool":
			out.ToolChoice = map[string]string{"type": "function", "name": req.ToolsMode.Name}
		}
	}
	maxTokens := req.MaxTokens
	if maxTokens <= 0 && m != nil && m.MaxOutput > 0 {
		maxTokens = m.defaultMaxTokens()
	}
	if maxTokens > 0 {
		out.MaxOutputTokens = &maxTokens
	}
	effort := req.Reasoning.Effort
	if effort == "" && req.Reasoning.BudgetTokens > 0 {
		effort = "medium"
	}
	style := m.reasoning()
	reasons := style == ReasoningEffort || style == ReasoningAlways || (m == nil && effort != "")
	if reasons && effort != "off" && effort != "none" {
		out.Reasoning = &responsesReasoning{Summary: "auto"}
		switch effort {
		case "minimal", "low", "medium", "high":
			out.Reasoning.Effort = effort
		case "max":
			out.Reasoning.Effort = "high"
		}
		out.Include = []string{"reasoning.encrypted_content"}
		out.Temperature = nil
	}
	return out
}

// codexSigned names the ChatGPT account of a sign-in.
func codexSigned(h http.Header, b Bearer) {
	if b.AccountID != "" {
		h.Set("Chatgpt-Account-Id", b.AccountID)
	}
}

func dataURL(b Block) string { return "data:" + b.MIMEType + ";base64," + b.Data }
