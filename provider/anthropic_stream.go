package provider

import (
	"encoding/json"
	"fmt"
)

// anthropicDecoder reads the Messages event stream: message_start,
// content_block_start/delta/stop, message_delta, message_stop, ping and
// error. Unknown events and block types are skipped.
type anthropicDecoder struct {
	asm      *assembler
	origin   string
	blocks   []int // wire index → message index (-1: skipped block)
	stop     StopReason
	usage    Usage
	finished bool
	scratch  []byte
	slow     bool // skip the fast path (tests compare both)
}

func (d *anthropicDecoder) reset() {
	*d = anthropicDecoder{asm: d.asm, origin: d.origin, blocks: d.blocks[:0], scratch: d.scratch}
}

func (d *anthropicDecoder) done() bool { return d.finished }

// endOK: a Messages stream is only complete with message_stop.
func (d *anthropicDecoder) endOK() bool { return false }

type anthropicEvent struct {
	Type    string `json:"type"`
	Index   int    `json:"index"`
	Message struct {
		ID    string          `json:"id"`
		Model string          `json:"model"`
		Usage *anthropicUsage `json:"usage"`
	} `json:"message"`
	ContentBlock struct {
		Type     string          `json:"type"`
		Text     string          `json:"text"`
		Thinking string          `json:"thinking"`
		Data     string          `json:"data"`
		ID       string          `json:"id"`
		Name     string          `json:"name"`
		Input    json.RawMessage `json:"input"`
	} `json:"content_block"`
	Delta struct {
		Type        string `json:"type"`
		Text        string `json:"text"`
		Thinking    string `json:"thinking"`
		Signature   string `json:"signature"`
		PartialJSON string `json:"partial_json"`
		StopReason  string `json:"stop_reason"`
	} `json:"delta"`
	Usage *anthropicUsage `json:"usage"`
	Error struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
}

type anthropicUsage struct {
	InputTokens              *int `json:"input_tokens"`
	OutputTokens             *int `json:"output_tokens"`
	CacheCreationInputTokens *int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     *int `json:"cache_read_input_tokens"`
	OutputTokensDetails      struct {
		ThinkingTokens *int `json:"thinking_tokens"`
	} `json:"output_tokens_details"`
}

func (d *anthropicDecoder) frame(name, data []byte) error {
	if string(name) == "content_block_delta" && !d.slow && d.fastDelta(data) {
		return nil
	}
	var ev anthropicEvent
	if err := json.Unmarshal(data, &ev); err != nil {
		return fmt.Errorf("anthropic: decode %q event: %v", name, err)
	}
	if ev.Type == "" {
		ev.Type = string(name)
	}
	a := d.asm
	switch ev.Type {
	case "message_start":
		if ev.Message.Model != "" {
			a.model = ev.Message.Model
		}
		if ev.Message.Usage != nil {
			d.addUsage(ev.Message.Usage)
		}
	case "content_block_start":
		i := -1
		cb := ev.ContentBlock
		switch cb.Type {
		case "text":
			i = a.block(Block{Type: BlockText})
			a.text(i, cb.Text)
		case "thinking":
			i = a.block(Block{Type: BlockThinking, Origin: d.origin})
			a.thinking(i, cb.Thinking)
		case "redacted_thinking":
			i = a.block(Block{Type: BlockRedactedThinking, Data: cb.Data, Origin: d.origin})
		case "tool_use":
			i = a.toolStart(cb.ID, cb.Name)
			if in := trimSpace(cb.Input); len(in) > 2 && in[0] == '{' {
				a.toolDelta(i, string(in)) // input given whole (non-streaming proxies)
			}
		}
		d.setBlock(ev.Index, i)
	case "content_block_delta":
		i := d.block(ev.Index)
		switch ev.Delta.Type {
		case "text_delta":
			a.text(i, ev.Delta.Text)
		case "thinking_delta":
			a.thinking(i, ev.Delta.Thinking)
		case "signature_delta":
			a.signature(i, ev.Delta.Signature)
		case "input_json_delta":
			a.toolDelta(i, ev.Delta.PartialJSON)
		}
	case "content_block_stop":
		if i := d.block(ev.Index); i >= 0 {
			a.toolEnd(i, false)
		}
	case "message_delta":
		if ev.Delta.StopReason != "" {
			d.stop = anthropicStop(ev.Delta.StopReason)
		}
		if ev.Usage != nil {
			d.addUsage(ev.Usage)
		}
	case "message_stop":
		d.finished = true
		a.finish(d.stop)
	case "error":
		return &APIError{
			Provider: d.origin,
			Status:   streamErrorStatus(ev.Error.Type),
			Type:     ev.Error.Type,
			Message:  ev.Error.Message,
			inStream: true,
		}
	}
	return nil
}

// addUsage merges a usage object: message_start gives input and cache
// counts, message_delta a running output total (and sometimes the rest).
func (d *anthropicDecoder) addUsage(u *anthropicUsage) {
	if u.InputTokens != nil {
		d.usage.Input = *u.InputTokens
	}
	if u.OutputTokens != nil {
		d.usage.Output = *u.OutputTokens
	}
	if u.CacheCreationInputTokens != nil {
		d.usage.CacheWrite = *u.CacheCreationInputTokens
	}
	if u.CacheReadInputTokens != nil {
		d.usage.CacheRead = *u.CacheReadInputTokens
	}
	if r := u.OutputTokensDetails.ThinkingTokens; r != nil {
		d.usage.Reasoning, d.usage.ReasoningKnown = *r, true
	}
	d.asm.setUsage(d.usage)
}

func (d *anthropicDecoder) setBlock(wire, i int) {
	if wire < 0 || wire > 1<<16 {
		return
	}
	for len(d.blocks) <= wire {
		d.blocks = append(d.blocks, -1)
	}
	d.blocks[wire] = i
}

func (d *anthropicDecoder) block(wire int) int {
	if wire < 0 || wire >= len(d.blocks) {
		return -1
	}
	return d.blocks[wire]
}

// The content_block_delta events as the Messages API writes them, member
// for member: the prefix up to the index, and after it the delta's opening
// up to its string (text, thinking or tool arguments).
const (
	deltaPrefix   = `{"type":"content_block_delta","index":`
	textOpen      = `,"delta":{"type":"text_delta","text":`
	thinkingOpen  = `,"delta":{"type":"thinking_delta","thinking":`
	argumentsOpen = `,"delta":{"type":"input_json_delta","partial_json":`
)

// exactDelta decodes a content_block_delta written exactly as the API
// writes it (deltaPrefix, the index, one of the openings, the string, "}}")
// in one pass: only the index and the string vary, and the rest is compared
// as bytes. Anything else, including the same event with its members in
// another order or spaced out, is left to fastDelta (ok false, nothing
// changed).
func (d *anthropicDecoder) exactDelta(data []byte) bool {
	if len(data) < len(deltaPrefix) || string(data[:len(deltaPrefix)]) != deltaPrefix {
		return false
	}
	rest := data[len(deltaPrefix):]
	n := 0
	for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' {
		n++
	}
	index, ok := jsonInt(rest[:n])
	if !ok {
		return false
	}
	rest = rest[n:]
	var apply func(int, []byte)
	switch {
	case hasPrefix(rest, textOpen):
		apply, rest = d.asm.textBytes, rest[len(textOpen):]
	case hasPrefix(rest, thinkingOpen):
		apply, rest = d.asm.thinkingBytes, rest[len(thinkingOpen):]
	case hasPrefix(rest, argumentsOpen):
		apply, rest = d.asm.toolDeltaBytes, rest[len(argumentsOpen):]
	default:
		return false
	}
	if len(rest) < 4 || rest[0] != '"' || string(rest[len(rest)-2:]) != "}}" {
		return false
	}
	// unquoteBytes fails on a quote left unescaped: raw is then not one
	// string but several members.
	str, ok := unquoteBytes(rest[:len(rest)-2], &d.scratch)
	if !ok {
		return false
	}
	apply(d.block(index), str)
	return true
}

func hasPrefix(b []byte, prefix string) bool {
	return len(b) >= len(prefix) && string(b[:len(prefix)]) == prefix
}

// fastDelta decodes the common content_block_delta without encoding/json.
// It returns false (having changed nothing) for anything unusual.
func (d *anthropicDecoder) fastDelta(data []byte) bool {
	if d.exactDelta(data) {
		return true
	}
	m, ok := objectMembers(data)
	if !ok {
		return false
	}
	index, haveIndex := 0, false
	var delta []byte
	for k, v, ok := m.next(); ok; k, v, ok = m.next() {
		switch string(k) {
		case "type":
			if !isString(v, "content_block_delta") {
				return false
			}
		case "index":
			if index, haveIndex = jsonInt(v); !haveIndex {
				return false
			}
		case "delta":
			if delta != nil {
				return false // encoding/json merges repeated objects
			}
			delta = v
		case "message", "content_block", "usage", "error":
			return false // the event's other fields: encoding/json checks their types
		}
	}
	if m.failed() || !haveIndex || delta == nil {
		return false
	}
	dm, ok := objectMembers(delta)
	if !ok {
		return false
	}
	var typ, text, thinking, partial []byte
	for k, v, ok := dm.next(); ok; k, v, ok = dm.next() {
		switch string(k) {
		case "type":
			typ = v
		case "text":
			text = v
		case "thinking":
			thinking = v
		case "partial_json":
			partial = v
		case "signature", "stop_reason":
			return false
		}
	}
	if dm.failed() || typ == nil {
		return false
	}
	// encoding/json reads every member into its field, so a member the
	// delta's type does not use must still be a string (or null).
	for _, v := range [][]byte{text, thinking, partial} {
		if v != nil && v[0] != '"' && string(v) != "null" {
			return false
		}
	}
	var apply func(int, []byte)
	switch {
	case isString(typ, "text_delta"):
		apply = d.asm.textBytes
	case isString(typ, "thinking_delta"):
		apply, text = d.asm.thinkingBytes, thinking
	case isString(typ, "input_json_delta"):
		apply, text = d.asm.toolDeltaBytes, partial
	default:
		return false
	}
	if text == nil {
		return false
	}
	s, ok := unquoteBytes(text, &d.scratch)
	if !ok {
		return false
	}
	apply(d.block(index), s)
	return true
}

func anthropicStop(s string) StopReason {
	switch s {
	case "end_turn", "stop_sequence":
		return StopEndTurn
	case "tool_use":
		return StopToolUse
	case "max_tokens", "model_context_window_exceeded":
		return StopMaxTokens
	case "refusal":
		return StopRefusal
	case "pause_turn":
		return StopPauseTurn
	}
	return StopReason(s)
}
