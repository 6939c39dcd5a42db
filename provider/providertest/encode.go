package providertest

import (
	"encoding/json"
	"fmt"

	"github.com/zut-go/zut/provider"
)

// encode renders a reply as the frames of wire's response body, each frame
// written and flushed on its own. Frames from tail on close the response
// (stop reason, usage, end marker); Cut never sends them.
func encode(wire provider.Wire, rec Recorded, r Reply) (frames []string, tail int) {
	model := rec.Model
	if model == "" {
		model = "test-model"
	}
	switch wire {
	case provider.WireAnthropic:
		return anthropicFrames(model, r)
	case provider.WireResponses:
		return responsesFrames(model, r)
	case provider.WireOllama:
		return ollamaFrames(model, r)
	}
	return chatFrames(model, r)
}

// split cuts s into about n pieces at rune boundaries (no empty pieces).
func split(s string, n int) []string {
	if n <= 0 {
		n = 3
	}
	rs := []rune(s)
	if len(rs) == 0 {
		return nil
	}
	size := max((len(rs)+n-1)/n, 1)
	var out []string
	for i := 0; i < len(rs); i += size {
		out = append(out, string(rs[i:min(i+size, len(rs))]))
	}
	return out
}

func stopOf(r Reply) provider.StopReason {
	if r.Stop != "" {
		return r.Stop
	}
	if len(r.Tools) > 0 {
		return provider.StopToolUse
	}
	return provider.StopEndTurn
}

func args(t ToolCall) string {
	if t.Args == "" {
		return "{}"
	}
	return t.Args
}

func toolID(t ToolCall, i int) string {
	if t.ID != "" {
		return t.ID
	}
	return fmt.Sprintf("call_%d", i+1)
}

func js(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

type obj = map[string]any

// members is a JSON object written in the order given, where the order
// matters: the Messages API writes a delta event's members as type, index,
// delta, and the delta's as type and then its string, and a client may
// read that form on a faster path than any other (provider's exactDelta).
type members []member

type member struct {
	key   string
	value any
}

func (m members) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	for i, f := range m {
		if i > 0 {
			b = append(b, ',')
		}
		k, err := json.Marshal(f.key)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(f.value)
		if err != nil {
			return nil, err
		}
		b = append(append(append(b, k...), ':'), v...)
	}
	return append(b, '}'), nil
}

func sse(event string, data any) string {
	if event == "" {
		return "data: " + js(data) + "\n\n"
	}
	return "event: " + event + "\ndata: " + js(data) + "\n\n"
}

func anthropicFrames(model string, r Reply) ([]string, int) {
	u := r.Usage
	out := []string{sse("message_start", obj{"type": "message_start", "message": obj{
		"id": "msg_test", "type": "message", "role": "assistant", "model": model, "content": []any{},
		"usage": obj{"input_tokens": u.Input, "output_tokens": 1, "cache_read_input_tokens": u.CacheRead, "cache_creation_input_tokens": u.CacheWrite}}})}
	idx := 0
	block := func(start obj, deltas []members) {
		out = append(out, sse("content_block_start", obj{"type": "content_block_start", "index": idx, "content_block": start}))
		for _, d := range deltas {
			out = append(out, sse("content_block_delta", members{{"type", "content_block_delta"}, {"index", idx}, {"delta", d}}))
		}
		out = append(out, sse("content_block_stop", obj{"type": "content_block_stop", "index": idx}))
		idx++
	}
	if r.Thinking != "" {
		var ds []members
		for _, p := range split(r.Thinking, r.Chunks) {
			ds = append(ds, members{{"type", "thinking_delta"}, {"thinking", p}})
		}
		ds = append(ds, members{{"type", "signature_delta"}, {"signature", "test-signature"}})
		block(obj{"type": "thinking", "thinking": "", "signature": ""}, ds)
	}
	if r.Text != "" {
		var ds []members
		for _, p := range split(r.Text, r.Chunks) {
			ds = append(ds, members{{"type", "text_delta"}, {"text", p}})
		}
		block(obj{"type": "text", "text": ""}, ds)
	}
	for i, t := range r.Tools {
		ds := []members{{{"type", "input_json_delta"}, {"partial_json", ""}}}
		for _, p := range split(args(t), r.Chunks) {
			ds = append(ds, members{{"type", "input_json_delta"}, {"partial_json", p}})
		}
		block(obj{"type": "tool_use", "id": toolID(t, i), "name": t.Name, "input": obj{}}, ds)
	}
	tail := len(out)
	out = append(out,
		sse("message_delta", obj{"type": "message_delta", "delta": obj{"stop_reason": string(stopOf(r)), "stop_sequence": nil}, "usage": obj{"output_tokens": u.Output}}),
		sse("message_stop", obj{"type": "message_stop"}))
	return out, tail
}

func chatFrames(model string, r Reply) ([]string, int) {
	chunk := func(delta obj, finish any) string {
		return sse("", obj{"id": "chatcmpl-test", "object": "chat.completion.chunk", "created": 1, "model": model,
			"choices": []obj{{"index": 0, "delta": delta, "logprobs": nil, "finish_reason": finish}}})
	}
	out := []string{chunk(obj{"role": "assistant", "content": ""}, nil)}
	for _, p := range split(r.Thinking, r.Chunks) {
		out = append(out, chunk(obj{"reasoning_content": p}, nil))
	}
	for _, p := range split(r.Text, r.Chunks) {
		out = append(out, chunk(obj{"content": p}, nil))
	}
	for i, t := range r.Tools {
		out = append(out, chunk(obj{"tool_calls": []obj{{"index": i, "id": toolID(t, i), "type": "function", "function": obj{"name": t.Name, "arguments": ""}}}}, nil))
		for _, p := range split(args(t), r.Chunks) {
			out = append(out, chunk(obj{"tool_calls": []obj{{"index": i, "function": obj{"arguments": p}}}}, nil))
		}
	}
	finish := map[provider.StopReason]string{provider.StopToolUse: "tool_calls", provider.StopMaxTokens: "length", provider.StopRefusal: "content_filter"}[stopOf(r)]
	if finish == "" {
		finish = "stop"
	}
	u := r.Usage
	tail := len(out)
	out = append(out, chunk(obj{}, finish),
		sse("", obj{"id": "chatcmpl-test", "object": "chat.completion.chunk", "created": 1, "model": model, "choices": []any{},
			"usage": obj{"prompt_tokens": u.Input + u.CacheRead, "completion_tokens": u.Output, "total_tokens": u.Input + u.CacheRead + u.Output,
				"prompt_tokens_details": obj{"cached_tokens": u.CacheRead}, "completion_tokens_details": obj{"reasoning_tokens": u.Reasoning}}}),
		"data: [DONE]\n\n")
	return out, tail
}

func responsesFrames(model string, r Reply) ([]string, int) {
	seq := 0
	ev := func(typ string, fields obj) string {
		fields["type"] = typ
		fields["sequence_number"] = seq
		seq++
		return sse(typ, fields)
	}
	out := []string{ev("response.created", obj{"response": obj{"id": "resp_test", "status": "in_progress", "model": model, "output": []any{}}})}
	oi := 0
	if r.Thinking != "" {
		out = append(out, ev("response.output_item.added", obj{"output_index": oi, "item": obj{"id": "rs_test", "type": "reasoning", "summary": []any{}}}))
		for _, p := range split(r.Thinking, r.Chunks) {
			out = append(out, ev("response.reasoning_summary_text.delta", obj{"item_id": "rs_test", "output_index": oi, "summary_index": 0, "delta": p}))
		}
		out = append(out, ev("response.output_item.done", obj{"output_index": oi, "item": obj{"id": "rs_test", "type": "reasoning",
			"summary": []obj{{"type": "summary_text", "text": r.Thinking}}, "encrypted_content": "test-encrypted"}}))
		oi++
	}
	if r.Text != "" {
		out = append(out, ev("response.output_item.added", obj{"output_index": oi, "item": obj{"id": "msg_test", "type": "message", "role": "assistant", "content": []any{}}}))
		for _, p := range split(r.Text, r.Chunks) {
			out = append(out, ev("response.output_text.delta", obj{"item_id": "msg_test", "output_index": oi, "content_index": 0, "delta": p}))
		}
		out = append(out, ev("response.output_item.done", obj{"output_index": oi, "item": obj{"id": "msg_test", "type": "message", "role": "assistant",
			"content": []obj{{"type": "output_text", "text": r.Text, "annotations": []any{}}}}}))
		oi++
	}
	for i, t := range r.Tools {
		id := fmt.Sprintf("fc_%d", i+1)
		out = append(out, ev("response.output_item.added", obj{"output_index": oi, "item": obj{"id": id, "type": "function_call", "call_id": toolID(t, i), "name": t.Name, "arguments": ""}}))
		for _, p := range split(args(t), r.Chunks) {
			out = append(out, ev("response.function_call_arguments.delta", obj{"item_id": id, "output_index": oi, "delta": p}))
		}
		out = append(out, ev("response.output_item.done", obj{"output_index": oi, "item": obj{"id": id, "type": "function_call", "call_id": toolID(t, i), "name": t.Name, "arguments": args(t), "status": "completed"}}))
		oi++
	}
	u := r.Usage
	tail := len(out)
	usage := obj{"input_tokens": u.Input + u.CacheRead, "output_tokens": u.Output,
		"input_tokens_details": obj{"cached_tokens": u.CacheRead}, "output_tokens_details": obj{"reasoning_tokens": u.Reasoning}}
	switch stopOf(r) {
	case provider.StopMaxTokens:
		out = append(out, ev("response.incomplete", obj{"response": obj{"id": "resp_test", "status": "incomplete", "model": model,
			"incomplete_details": obj{"reason": "max_output_tokens"}, "usage": usage}}))
	default:
		out = append(out, ev("response.completed", obj{"response": obj{"id": "resp_test", "status": "completed", "model": model, "usage": usage}}))
	}
	return out, tail
}

func ollamaFrames(model string, r Reply) ([]string, int) {
	line := func(msg obj, done bool, extra obj) string {
		l := obj{"model": model, "created_at": "2026-01-01T00:00:00Z", "message": msg, "done": done}
		for k, v := range extra {
			l[k] = v
		}
		return js(l) + "\n"
	}
	var out []string
	for _, p := range split(r.Thinking, r.Chunks) {
		out = append(out, line(obj{"role": "assistant", "content": "", "thinking": p}, false, nil))
	}
	for _, p := range split(r.Text, r.Chunks) {
		out = append(out, line(obj{"role": "assistant", "content": p}, false, nil))
	}
	for i, t := range r.Tools {
		out = append(out, line(obj{"role": "assistant", "content": "", "tool_calls": []obj{{"id": toolID(t, i),
			"function": obj{"name": t.Name, "arguments": json.RawMessage(args(t))}}}}, false, nil))
	}
	tail := len(out)
	reason := "stop"
	if stopOf(r) == provider.StopMaxTokens {
		reason = "length"
	}
	out = append(out, line(obj{"role": "assistant", "content": ""}, true,
		obj{"done_reason": reason, "prompt_eval_count": r.Usage.Input, "eval_count": r.Usage.Output}))
	return out, tail
}
