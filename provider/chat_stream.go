package provider

import (
	"encoding/json"
	"fmt"
	"strconv"
)

// chatDecoder reads Chat Completions chunks. Only choice 0 is assembled.
// Tool calls are accumulated by their index; a call arriving with a new ID
// at an index already in use starts a new call (Ollama numbers every call
// 0). The stream is complete at [DONE], or at the end of the body once a
// finish_reason arrived.
type chatDecoder struct {
	asm      *assembler
	origin   string
	cur      int // block receiving text or reasoning, -1 none
	calls    map[int]int
	stop     StopReason
	finished bool
	usage    Usage
	ncalls   int
	refused  bool
	scratch  []byte
	slow     bool // skip the fast path (tests compare both)
	tags     thinkTags
	rawThink bool // leave <think> in the text (quirk raw_think_tags)
}

func (d *chatDecoder) reset() {
	*d = chatDecoder{asm: d.asm, origin: d.origin, scratch: d.scratch, rawThink: d.rawThink}
}

func (d *chatDecoder) done() bool { return d.finished }

func (d *chatDecoder) endOK() bool {
	if d.stop == "" {
		return false
	}
	d.end()
	return true
}

func (d *chatDecoder) end() {
	d.finished = true
	d.flushText()
	d.closeCalls()
	d.asm.finish(d.stop)
}

type chatChunk struct {
	Model   string       `json:"model"`
	Choices []chatChoice `json:"choices"`
	Usage   *chatUsage   `json:"usage"`
	Error   json.RawMessage
	XGroq   *struct {
		Usage *chatUsage `json:"usage"`
	} `json:"x_groq"` // Groq reports usage here
}

type chatChoice struct {
	Index        int        `json:"index"`
	Delta        chatDelta  `json:"delta"`
	FinishReason *string    `json:"finish_reason"`
	Usage        *chatUsage `json:"usage"` // Kimi puts usage here
}

type chatDelta struct {
	Content          json.RawMessage `json:"content"`
	ReasoningContent *string         `json:"reasoning_content"`
	Reasoning        *string         `json:"reasoning"`
	Refusal          *string         `json:"refusal"`
	ToolCalls        []struct {
		Index    *int   `json:"index"`
		ID       string `json:"id"`
		Function struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
}

type chatUsage struct {
	PromptTokens        int `json:"prompt_tokens"`
	CompletionTokens    int `json:"completion_tokens"`
	PromptTokensDetails struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
	CompletionTokensDetails struct {
		ReasoningTokens *int `json:"reasoning_tokens"`
	} `json:"completion_tokens_details"`
	PromptCacheHitTokens int `json:"prompt_cache_hit_tokens"` // DeepSeek
}

// chatContentPart is one element of a content array (Mistral's reasoning
// models send [{"type":"thinking","thinking":[{"type":"text",...}]}]).
type chatContentPart struct {
	Type     string            `json:"type"`
	Text     string            `json:"text"`
	Thinking []chatContentPart `json:"thinking"`
}

func (d *chatDecoder) frame(_, data []byte) error {
	if d.finished {
		return nil
	}
	if string(trimSpace(data)) == "[DONE]" {
		d.end()
		return nil
	}
	if !d.slow && d.fastChunk(data) {
		return nil
	}
	var ch chatChunk
	if err := json.Unmarshal(data, &ch); err != nil {
		return fmt.Errorf("%s: decode chat chunk: %v", d.origin, err)
	}
	if len(ch.Error) > 0 && string(ch.Error) != "null" {
		e := &APIError{Provider: d.origin, inStream: true}
		parseErrorBody(e, data)
		e.Status = streamErrorStatus(firstNonEmpty(e.Type, e.Code))
		if n, err := strconv.Atoi(e.Code); err == nil && n >= 400 && n < 600 {
			e.Status, e.Code = n, ""
		}
		return e
	}
	a := d.asm
	if ch.Model != "" {
		a.model = ch.Model
	}
	for _, c := range ch.Choices {
		if c.Index != 0 {
			continue
		}
		dl := c.Delta
		if dl.ReasoningContent != nil {
			d.thinking(*dl.ReasoningContent)
		}
		if dl.Reasoning != nil {
			d.thinking(*dl.Reasoning)
		}
		d.content(dl.Content)
		if dl.Refusal != nil && *dl.Refusal != "" {
			d.refused = true
			d.flushText()
			d.emitText(*dl.Refusal)
		}
		for _, tc := range dl.ToolCalls {
			d.toolCall(tc.Index, tc.ID, tc.Function.Name, tc.Function.Arguments)
		}
		if c.Usage != nil {
			d.setUsage(c.Usage)
		}
		if c.FinishReason != nil && *c.FinishReason != "" {
			d.stop = chatStop(*c.FinishReason)
			if d.refused && d.stop == StopEndTurn {
				d.stop = StopRefusal
			}
			d.flushText()
			d.closeCalls()
		}
	}
	if ch.Usage != nil {
		d.setUsage(ch.Usage)
	} else if ch.XGroq != nil && ch.XGroq.Usage != nil {
		d.setUsage(ch.XGroq.Usage)
	}
	return nil
}

// content handles delta.content: a string, or an array of parts.
func (d *chatDecoder) content(raw json.RawMessage) {
	if len(raw) == 0 || string(raw) == "null" {
		return
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		d.text(s)
		return
	}
	var parts []chatContentPart
	if json.Unmarshal(raw, &parts) != nil {
		return
	}
	for _, p := range parts {
		switch p.Type {
		case "text":
			d.text(p.Text)
		case "thinking":
			for _, t := range p.Thinking {
				d.thinking(t.Text)
			}
		}
	}
}

// text takes a piece of the answer's text, which may open with
// <think>...</think> reasoning (thinktags.go).
func (d *chatDecoder) text(s string) {
	if s == "" {
		return
	}
	if d.rawThink || d.tags.state == thinkOff {
		d.emitText(s)
		return
	}
	d.tags.split(s, d.thinking, d.emitText)
}

// flushText emits the text held back by the <think> splitter.
func (d *chatDecoder) flushText() {
	if d.tags.held != "" {
		d.tags.flush(d.thinking, d.emitText)
	}
}

func (d *chatDecoder) emitText(s string) { d.cur = d.asm.appendText(d.cur, s) }

func (d *chatDecoder) thinking(s string) { d.cur = d.asm.appendThinking(d.cur, d.origin, s) }

// toolCall applies one tool call fragment.
func (d *chatDecoder) toolCall(index *int, id, name string, args json.RawMessage) {
	d.flushText()
	a := d.asm
	if d.calls == nil {
		d.calls = map[int]int{}
	}
	var key int
	switch {
	case index != nil:
		key = *index
	case id != "":
		key = d.ncalls // no index: a new ID is a new call
	default:
		key = max(d.ncalls-1, 0)
	}
	i, ok := d.calls[key]
	if ok && id != "" && a.blocks[i].ID != "" && a.blocks[i].ID != id {
		a.toolEnd(i, false) // the index is reused for another call
		ok = false
	}
	if !ok {
		if id == "" {
			id = fmt.Sprintf("call_%d", d.ncalls)
		}
		i = a.toolStart(id, name)
		d.calls[key] = i
		d.ncalls++
		d.cur = -1
	} else if name != "" && a.blocks[i].Name == "" {
		a.blocks[i].Name = name
	}
	switch t := trimSpace(args); {
	case len(t) == 0 || string(t) == "null":
	case t[0] == '"':
		var s string
		if json.Unmarshal(t, &s) == nil {
			a.toolDelta(i, s)
		}
	default:
		a.toolDelta(i, string(t)) // arguments sent as an object
	}
}

// closeCalls ends the open tool calls in order.
func (d *chatDecoder) closeCalls() {
	a := d.asm
	for i := range a.blocks {
		if a.open[i] {
			a.toolEnd(i, d.stop == StopMaxTokens)
		}
	}
}

func (d *chatDecoder) setUsage(u *chatUsage) {
	cached := max(u.PromptTokensDetails.CachedTokens, u.PromptCacheHitTokens)
	d.usage = Usage{
		Input:     max(u.PromptTokens-cached, 0),
		Output:    u.CompletionTokens,
		CacheRead: cached,
	}
	if r := u.CompletionTokensDetails.ReasoningTokens; r != nil {
		d.usage.Reasoning, d.usage.ReasoningKnown = *r, true
	}
	d.asm.setUsage(d.usage)
}

func chatStop(s string) StopReason {
	switch s {
	case "stop", "end_turn", "eos":
		return StopEndTurn
	case "length", "max_tokens":
		return StopMaxTokens
	case "tool_calls", "function_call", "tool_use":
		return StopToolUse
	case "content_filter", "refusal":
		return StopRefusal
	}
	return StopReason(s)
}

// fastChunk decodes the common chunk that only adds text or reasoning to
// choice 0, without encoding/json. It returns false, having changed
// nothing, for anything else.
func (d *chatDecoder) fastChunk(data []byte) bool {
	m, ok := objectMembers(data)
	if !ok {
		return false
	}
	var choices []byte
	for k, v, ok := m.next(); ok; k, v, ok = m.next() {
		switch string(k) {
		case "choices":
			choices = v
		case "model":
			if !isString(v, d.asm.model) {
				return false
			}
		case "usage", "error", "x_groq":
			if string(v) != "null" {
				return false
			}
		}
	}
	if m.failed() || len(choices) < 2 || choices[0] != '[' {
		return false
	}
	i := skipSpace(choices, 1)
	end := skipValue(choices, i)
	if end < 0 || skipSpace(choices, end) != len(choices)-1 {
		return false // not exactly one choice
	}
	cm, ok := objectMembers(choices[i:end])
	if !ok {
		return false
	}
	var delta []byte
	for k, v, ok := cm.next(); ok; k, v, ok = cm.next() {
		switch string(k) {
		case "index":
			if n, ok := jsonInt(v); !ok || n != 0 {
				return false
			}
		case "delta":
			delta = v
		case "finish_reason", "usage":
			if string(v) != "null" {
				return false
			}
		}
	}
	if cm.failed() || delta == nil {
		return false
	}
	dm, ok := objectMembers(delta)
	if !ok {
		return false
	}
	var text, reasoning []byte
	for k, v, ok := dm.next(); ok; k, v, ok = dm.next() {
		switch string(k) {
		case "content":
			if string(v) == "null" {
				continue
			}
			if v[0] != '"' {
				return false
			}
			text = v
		case "reasoning_content", "reasoning":
			if v[0] == '"' {
				if reasoning != nil {
					return false
				}
				reasoning = v
			} else if string(v) != "null" {
				return false
			}
		case "role":
		default:
			if string(v) != "null" && string(v) != `""` {
				return false
			}
		}
	}
	if dm.failed() || (text == nil && reasoning == nil) {
		return false
	}
	// Answer text alone with no <think> splitting to do, or reasoning
	// alone: it goes to its block without a string of its own.
	switch {
	case reasoning == nil && (d.rawThink || d.tags.state == thinkOff):
		b, ok := unquoteBytes(text, &d.scratch)
		if !ok {
			return false
		}
		d.cur = d.asm.appendTextBytes(d.cur, b)
		return true
	case text == nil:
		b, ok := unquoteBytes(reasoning, &d.scratch)
		if !ok {
			return false
		}
		d.cur = d.asm.appendThinkingBytes(d.cur, d.origin, b)
		return true
	}
	var t, r string
	if text != nil {
		if t, ok = unquote(text, &d.scratch); !ok {
			return false
		}
	}
	if reasoning != nil {
		if r, ok = unquote(reasoning, &d.scratch); !ok {
			return false
		}
	}
	d.thinking(r)
	d.text(t)
	return true
}
