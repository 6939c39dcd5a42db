package provider

import (
	"encoding/json"
	"fmt"
)

// responsesDecoder reads the Responses event stream. Output items are keyed
// by output_index; text parts by output_index and content_index. The stream
// is complete at response.completed or response.incomplete.
type responsesDecoder struct {
	asm      *assembler
	origin   string
	items    map[int]int    // output_index → block (function calls, reasoning)
	texts    map[[2]int]int // output_index, content_index → text block
	summary  map[int]int    // output_index → last summary_index seen
	refused  bool
	finished bool
	scratch  []byte
	slow     bool // skip the fast path (tests compare both)
}

func (d *responsesDecoder) reset() {
	*d = responsesDecoder{asm: d.asm, origin: d.origin, scratch: d.scratch}
}

func (d *responsesDecoder) done() bool  { return d.finished }
func (d *responsesDecoder) endOK() bool { return false }

type responsesEvent struct {
	Type         string          `json:"type"`
	OutputIndex  int             `json:"output_index"`
	ContentIndex int             `json:"content_index"`
	SummaryIndex int             `json:"summary_index"`
	Delta        string          `json:"delta"`
	Item         responsesItem   `json:"item"`
	Response     responsesResult `json:"response"`
	// error events
	Code    json.RawMessage `json:"code"`
	Message string          `json:"message"`
	Error   *struct {
		Type    string          `json:"type"`
		Code    json.RawMessage `json:"code"`
		Message string          `json:"message"`
	} `json:"error"`
}

type responsesItem struct {
	Type      string `json:"type"`
	ID        string `json:"id"`
	CallID    string `json:"call_id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
	Summary   []struct {
		Text string `json:"text"`
	} `json:"summary"`
	EncryptedContent string `json:"encrypted_content"`
}

type responsesResult struct {
	Model             string `json:"model"`
	Status            string `json:"status"`
	IncompleteDetails *struct {
		Reason string `json:"reason"`
	} `json:"incomplete_details"`
	Error *struct {
		Code    json.RawMessage `json:"code"`
		Message string          `json:"message"`
	} `json:"error"`
	Usage *struct {
		InputTokens        int `json:"input_tokens"`
		OutputTokens       int `json:"output_tokens"`
		InputTokensDetails struct {
			CachedTokens int `json:"cached_tokens"`
		} `json:"input_tokens_details"`
		OutputTokensDetails struct {
			ReasoningTokens *int `json:"reasoning_tokens"`
		} `json:"output_tokens_details"`
	} `json:"usage"`
}

func (d *responsesDecoder) frame(name, data []byte) error {
	if string(name) == "response.output_text.delta" && !d.slow && d.fastDelta(data) {
		return nil
	}
	var ev responsesEvent
	if err := json.Unmarshal(data, &ev); err != nil {
		return fmt.Errorf("%s: decode %q event: %v", d.origin, name, err)
	}
	if ev.Type == "" {
		ev.Type = string(name)
	}
	a := d.asm
	switch ev.Type {
	case "response.created", "response.in_progress":
		if ev.Response.Model != "" {
			a.model = ev.Response.Model
		}
	case "response.output_item.added":
		switch ev.Item.Type {
		case "function_call":
			i := a.toolStart(firstNonEmpty(ev.Item.CallID, ev.Item.ID), ev.Item.Name)
			a.toolDelta(i, ev.Item.Arguments)
			d.setItem(ev.OutputIndex, i)
		case "reasoning":
			d.setItem(ev.OutputIndex, a.block(Block{Type: BlockThinking, ID: ev.Item.ID, Origin: d.origin}))
		}
	case "response.output_text.delta":
		d.text(ev.OutputIndex, ev.ContentIndex, ev.Delta)
	case "response.refusal.delta":
		d.refused = true
		d.text(ev.OutputIndex, ev.ContentIndex, ev.Delta)
	case "response.function_call_arguments.delta":
		if i, ok := d.item(ev.OutputIndex); ok {
			a.toolDelta(i, ev.Delta)
		}
	case "response.reasoning_summary_text.delta", "response.reasoning_text.delta":
		i, ok := d.item(ev.OutputIndex)
		if !ok {
			i = a.block(Block{Type: BlockThinking, Origin: d.origin})
			d.setItem(ev.OutputIndex, i)
		}
		if d.summary == nil {
			d.summary = map[int]int{}
		}
		if last, seen := d.summary[ev.OutputIndex]; seen && last != ev.SummaryIndex {
			a.thinking(i, "\n\n")
		}
		d.summary[ev.OutputIndex] = ev.SummaryIndex
		a.thinking(i, ev.Delta)
	case "response.output_item.done":
		i, ok := d.item(ev.OutputIndex)
		switch ev.Item.Type {
		case "function_call":
			if !ok {
				i = a.toolStart(firstNonEmpty(ev.Item.CallID, ev.Item.ID), ev.Item.Name)
				a.toolDelta(i, ev.Item.Arguments)
			} else if a.bufs[i].Len() == 0 {
				a.toolDelta(i, ev.Item.Arguments)
			}
			a.toolEnd(i, false)
		case "reasoning":
			if !ok {
				i = a.block(Block{Type: BlockThinking, ID: ev.Item.ID, Origin: d.origin})
				d.setItem(ev.OutputIndex, i)
			}
			if a.bufs[i].Len() == 0 {
				for k, s := range ev.Item.Summary {
					if k > 0 {
						a.thinking(i, "\n\n")
					}
					a.thinking(i, s.Text)
				}
			}
			a.signature(i, ev.Item.EncryptedContent)
		}
	case "response.completed", "response.incomplete":
		d.usage(ev.Response)
		stop := StopEndTurn
		if r := ev.Response.IncompleteDetails; r != nil && ev.Type == "response.incomplete" {
			switch r.Reason {
			case "max_output_tokens":
				stop = StopMaxTokens
			case "content_filter":
				stop = StopRefusal
			default:
				stop = StopReason(r.Reason)
			}
		}
		if d.refused {
			stop = StopRefusal
		}
		d.finished = true
		a.finish(stop)
	case "response.failed":
		e := &APIError{Provider: d.origin, inStream: true, Type: "response_failed"}
		if r := ev.Response.Error; r != nil {
			e.Code, e.Message = codeString(r.Code), r.Message
		}
		e.Status = streamErrorStatus(e.Code)
		return e
	case "error":
		e := &APIError{Provider: d.origin, inStream: true, Code: codeString(ev.Code), Message: ev.Message}
		if ev.Error != nil {
			e.Type, e.Message = ev.Error.Type, ev.Error.Message
			e.Code = firstNonEmpty(codeString(ev.Error.Code), e.Code)
		}
		e.Status = streamErrorStatus(firstNonEmpty(e.Code, e.Type))
		return e
	}
	return nil
}

func (d *responsesDecoder) usage(r responsesResult) {
	if r.Usage == nil {
		return
	}
	u := r.Usage
	cached := u.InputTokensDetails.CachedTokens
	usage := Usage{
		Input:     max(u.InputTokens-cached, 0),
		Output:    u.OutputTokens,
		CacheRead: cached,
	}
	if r := u.OutputTokensDetails.ReasoningTokens; r != nil {
		usage.Reasoning, usage.ReasoningKnown = *r, true
	}
	d.asm.setUsage(usage)
}

func (d *responsesDecoder) setItem(out, i int) {
	if d.items == nil {
		d.items = map[int]int{}
	}
	d.items[out] = i
}

func (d *responsesDecoder) item(out int) (int, bool) {
	i, ok := d.items[out]
	return i, ok
}

func (d *responsesDecoder) text(out, content int, s string) {
	key := [2]int{out, content}
	i, ok := d.texts[key]
	if !ok {
		if d.texts == nil {
			d.texts = map[[2]int]int{}
		}
		i = d.asm.block(Block{Type: BlockText})
		d.texts[key] = i
	}
	d.asm.text(i, s)
}

// fastDelta decodes response.output_text.delta without encoding/json.
func (d *responsesDecoder) fastDelta(data []byte) bool {
	m, ok := objectMembers(data)
	if !ok {
		return false
	}
	out, content := -1, -1
	var delta []byte
	for k, v, ok := m.next(); ok; k, v, ok = m.next() {
		switch string(k) {
		case "type":
			if !isString(v, "response.output_text.delta") {
				return false
			}
		case "output_index":
			if out, ok = jsonInt(v); !ok {
				return false
			}
		case "content_index":
			if content, ok = jsonInt(v); !ok {
				return false
			}
		case "delta":
			delta = v
		case "summary_index", "item", "response", "code", "message", "error":
			return false // the event's other fields: encoding/json checks their types
		}
	}
	if m.failed() || out < 0 || content < 0 || delta == nil {
		return false
	}
	s, ok := unquoteBytes(delta, &d.scratch)
	if !ok {
		return false
	}
	if i, ok := d.texts[[2]int{out, content}]; ok {
		d.asm.textBytes(i, s) // the block exists: no string of its own
		return true
	}
	d.text(out, content, string(s))
	return true
}
