package provider

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// ToolInputError says that a tool call's arguments are not a JSON object:
// the model was cut off by its output limit, or it wrote malformed JSON. It
// is carried by the EventToolEnd of that call; the block's Input then holds
// the raw text as a JSON string so nothing is lost and the message stays
// valid JSON.
type ToolInputError struct {
	Tool string // tool name
	ID   string // tool call ID
	Raw  string // the arguments as received
	Cut  bool   // the response stopped before the arguments were complete
}

func (e *ToolInputError) Error() string {
	if e.Cut {
		return fmt.Sprintf("tool call %s: arguments cut off by the output limit (%d bytes received); raise the max output tokens or ask for smaller steps", e.Tool, len(e.Raw))
	}
	return fmt.Sprintf("tool call %s: arguments are not a JSON object: %.80q", e.Tool, e.Raw)
}

// assembler builds the assistant message from decoded deltas and queues the
// events the stream hands out. Every decoder drives one; indices are
// positions in the message content.
type assembler struct {
	out     []Event
	blocks  []Block
	bufs    []*content // text, thinking text or tool arguments of each block
	open    []bool     // tool_use block still receiving arguments
	usage   Usage
	prices  *Prices
	started bool
	stopped bool
	model   string

	// limit bounds the bytes of bufs and signatures together; past it
	// err is set and nothing more is taken.
	limit    int64
	size     int64
	err      error
	provider string
}

func (a *assembler) reset() {
	*a = assembler{out: a.out[:0], prices: a.prices, model: a.model, limit: a.limit, provider: a.provider}
}

// grow accounts for n more bytes of content; false (with err set) once
// the limit is passed.
func (a *assembler) grow(n int) bool {
	if a.err != nil {
		return false
	}
	a.size += int64(n)
	if a.limit > 0 && a.size > a.limit {
		a.err = &LimitError{Provider: a.provider, What: "message", Limit: a.limit, Field: "MaxMessage"}
		return false
	}
	return true
}

func (a *assembler) emit(e Event) { a.out = append(a.out, e) }

// delta queues a text, thinking or tool arguments delta (written in
// place: an Event is large, and these are most of a response's).
func (a *assembler) delta(t EventType, i int, s string) {
	a.out = append(a.out, Event{})
	e := &a.out[len(a.out)-1]
	e.Type, e.Index, e.Text = t, i, s
}

// content is what a block has received (text, thinking or tool arguments).
// It only grows, and a strings.Builder never changes the bytes it holds,
// so the Text of a delta event may be a view of it: a delta decoded into
// bytes is copied once, into the block, and allocates nothing of its own.
//
// Its Grow doubles the buffer (append grows a large one by a quarter), so
// a long answer is copied about once as it grows.
type content struct{ strings.Builder }

// add appends b and returns it as a string that shares the block's bytes.
func (c *content) add(b []byte) string {
	n := c.Len()
	c.Grow(len(b))
	c.Write(b)
	return c.String()[n:]
}

// addString appends s.
func (c *content) addString(s string) {
	c.Grow(len(s))
	c.WriteString(s)
}

// takes reports whether block i is of type t (and, for a tool call, still
// open), so that a delta of n bytes (n > 0) goes to it, and accounts for
// the n bytes.
func (a *assembler) takes(i int, t BlockType, n int) bool {
	return n > 0 && a.valid(i, t) && (t != BlockToolUse || a.open[i]) && a.grow(n)
}

// start queues EventStart once.
func (a *assembler) start(model, requestID string) {
	if a.started {
		return
	}
	a.started = true
	if model != "" {
		a.model = model
	}
	a.emit(Event{Type: EventStart, Model: a.model, RequestID: requestID})
}

// blockOverhead is what one block costs beyond its content, roughly.
const blockOverhead = 256

// block opens a new block and returns its index.
func (a *assembler) block(b Block) int {
	a.grow(blockOverhead + len(b.Data) + len(b.ID) + len(b.Name)) // an endless run of empty blocks is bounded too
	a.blocks = append(a.blocks, b)
	a.bufs = append(a.bufs, new(content))
	a.open = append(a.open, b.Type == BlockToolUse)
	return len(a.blocks) - 1
}

func (a *assembler) valid(i int, t BlockType) bool {
	return i >= 0 && i < len(a.blocks) && a.blocks[i].Type == t
}

// text appends s to text block i.
func (a *assembler) text(i int, s string) {
	if a.takes(i, BlockText, len(s)) {
		a.bufs[i].addString(s)
		a.delta(EventTextDelta, i, s)
	}
}

// textBytes is text of bytes the caller keeps: the event's Text shares the
// block's copy of them.
func (a *assembler) textBytes(i int, b []byte) {
	if a.takes(i, BlockText, len(b)) {
		a.delta(EventTextDelta, i, a.bufs[i].add(b))
	}
}

// last returns cur when it is the last block and of b's type, else a new
// block b: where a wire without block indexes puts its next delta.
func (a *assembler) last(cur int, b Block) int {
	if !a.valid(cur, b.Type) || cur != len(a.blocks)-1 {
		cur = a.block(b)
	}
	return cur
}

// appendText adds s to block cur when it is the last block and holds
// text, else to a new text block; it returns the block written to. For
// wires whose deltas carry no block index (Chat, Ollama).
func (a *assembler) appendText(cur int, s string) int {
	if s == "" {
		return cur
	}
	cur = a.last(cur, Block{Type: BlockText, Origin: ""})
	a.text(cur, s)
	return cur
}

// appendTextBytes is appendText of bytes the caller keeps (see textBytes).
func (a *assembler) appendTextBytes(cur int, b []byte) int {
	if len(b) == 0 {
		return cur
	}
	cur = a.last(cur, Block{Type: BlockText, Origin: ""})
	a.textBytes(cur, b)
	return cur
}

// appendThinking is appendText for reasoning from origin.
func (a *assembler) appendThinking(cur int, origin, s string) int {
	if s == "" {
		return cur
	}
	cur = a.last(cur, Block{Type: BlockThinking, Origin: origin})
	a.thinking(cur, s)
	return cur
}

// appendThinkingBytes is appendThinking of bytes the caller keeps (see
// textBytes).
func (a *assembler) appendThinkingBytes(cur int, origin string, b []byte) int {
	if len(b) == 0 {
		return cur
	}
	cur = a.last(cur, Block{Type: BlockThinking, Origin: origin})
	a.thinkingBytes(cur, b)
	return cur
}

// thinking appends s to thinking block i.
func (a *assembler) thinking(i int, s string) {
	if a.takes(i, BlockThinking, len(s)) {
		a.bufs[i].addString(s)
		a.delta(EventThinkingDelta, i, s)
	}
}

// thinkingBytes is thinking of bytes the caller keeps (see textBytes).
func (a *assembler) thinkingBytes(i int, b []byte) {
	if a.takes(i, BlockThinking, len(b)) {
		a.delta(EventThinkingDelta, i, a.bufs[i].add(b))
	}
}

// signature sets (or extends) the opaque signature of thinking block i.
func (a *assembler) signature(i int, sig string) {
	if a.valid(i, BlockThinking) && a.grow(len(sig)) {
		a.blocks[i].Signature += sig
	}
}

// toolStart opens a tool_use block and queues EventToolStart.
func (a *assembler) toolStart(id, name string) int {
	i := a.block(Block{Type: BlockToolUse, ID: id, Name: name})
	a.emit(Event{Type: EventToolStart, Index: i, ToolID: id, ToolName: name})
	return i
}

// toolDelta appends a fragment of JSON arguments to tool block i.
func (a *assembler) toolDelta(i int, frag string) {
	if a.takes(i, BlockToolUse, len(frag)) {
		a.bufs[i].addString(frag)
		a.delta(EventToolDelta, i, frag)
	}
}

// toolDeltaBytes is toolDelta of bytes the caller keeps (see textBytes).
func (a *assembler) toolDeltaBytes(i int, b []byte) {
	if a.takes(i, BlockToolUse, len(b)) {
		a.delta(EventToolDelta, i, a.bufs[i].add(b))
	}
}

// toolEnd closes tool block i: its arguments become Input and EventToolEnd
// is queued. cut says the response ended before the block was closed.
func (a *assembler) toolEnd(i int, cut bool) {
	if !a.valid(i, BlockToolUse) || !a.open[i] {
		return
	}
	a.open[i] = false
	input, err := toolInput([]byte(a.bufs[i].String()))
	if err != nil {
		err = &ToolInputError{Tool: a.blocks[i].Name, ID: a.blocks[i].ID, Raw: a.bufs[i].String(), Cut: cut}
	}
	a.blocks[i].Input = input
	e := Event{Type: EventToolEnd, Index: i, ToolID: a.blocks[i].ID, ToolName: a.blocks[i].Name, Input: input}
	if err != nil {
		e.Err = err
	}
	a.emit(e)
}

// toolInput turns received argument text into a JSON object: empty text is
// {}, anything that is not an object is kept as a JSON string.
func toolInput(raw []byte) (json.RawMessage, error) {
	if len(trimSpace(raw)) == 0 {
		return json.RawMessage("{}"), nil
	}
	if i := skipSpace(raw, 0); raw[i] == '{' && json.Valid(raw) {
		return json.RawMessage(compactJSON(raw)), nil
	}
	s, _ := json.Marshal(string(raw))
	return s, errInvalidInput
}

var errInvalidInput = errors.New("arguments are not a JSON object")

func trimSpace(b []byte) []byte {
	i := skipSpace(b, 0)
	j := len(b)
	for j > i {
		switch b[j-1] {
		case ' ', '\t', '\n', '\r':
			j--
			continue
		}
		break
	}
	return b[i:j]
}

// compactJSON returns valid JSON without insignificant space.
func compactJSON(b []byte) []byte {
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		return append([]byte(nil), b...)
	}
	return buf.Bytes()
}

// setUsage records the running usage of the response and queues EventUsage.
func (a *assembler) setUsage(u Usage) {
	if a.prices != nil {
		u.CostUSD = a.prices.Cost(u)
	}
	a.usage = u
	a.emit(Event{Type: EventUsage, Usage: u})
}

// finish closes open tool blocks and queues EventStop. A tool block still
// open at this point was cut off.
func (a *assembler) finish(stop StopReason) {
	if a.stopped {
		return
	}
	for i := range a.blocks {
		if a.open[i] {
			a.toolEnd(i, true)
		}
	}
	if stop == "" {
		stop = StopEndTurn
	}
	if stop == StopEndTurn && len(a.toolUses()) > 0 {
		stop = StopToolUse
	}
	a.stopped = true
	a.emit(Event{Type: EventStop, Stop: stop, Usage: a.usage, Model: a.model})
}

func (a *assembler) toolUses() []int {
	var out []int
	for i, b := range a.blocks {
		if b.Type == BlockToolUse {
			out = append(out, i)
		}
	}
	return out
}

// message returns the assistant message assembled so far. Empty text and
// thinking blocks (a block opened but never filled) are kept so indices
// stay stable.
func (a *assembler) message() Message {
	m := Message{Role: RoleAssistant, Content: make([]Block, len(a.blocks))}
	for i, b := range a.blocks {
		switch b.Type {
		case BlockText, BlockThinking:
			b.Text = strings.Clone(a.bufs[i].String())
		case BlockToolUse:
			if a.open[i] {
				b.Input, _ = toolInput([]byte(a.bufs[i].String()))
			}
		}
		m.Content[i] = b
	}
	return m
}
