package provider

import (
	"io"
	"strconv"
)

var eventNames = [...]string{
	EventRequest:       "request",
	EventRetry:         "retry",
	EventStart:         "start",
	EventTextDelta:     "text_delta",
	EventThinkingDelta: "thinking_delta",
	EventToolStart:     "tool_start",
	EventToolDelta:     "tool_delta",
	EventToolEnd:       "tool_end",
	EventUsage:         "usage",
	EventStop:          "stop",
}

// String returns the event type's name, for example "text_delta".
func (t EventType) String() string {
	if t > 0 && int(t) < len(eventNames) && eventNames[t] != "" {
		return eventNames[t]
	}
	return "event(" + strconv.Itoa(int(t)) + ")"
}

// Output reports whether the event carries model output (text, thinking or
// a tool call). Once output has reached the caller a failed stream is not
// retried, since the caller may already have shown or used it.
func (e Event) Output() bool { return e.Type.output() }

func (t EventType) output() bool {
	switch t {
	case EventTextDelta, EventThinkingDelta, EventToolStart, EventToolDelta, EventToolEnd:
		return true
	}
	return false
}

// newDecoder returns the stream decoder of a wire.
func newDecoder(w Wire, asm *assembler, origin string) decoder {
	switch w {
	case WireAnthropic:
		return &anthropicDecoder{asm: asm, origin: origin}
	case WireResponses, WireCodex:
		return &responsesDecoder{asm: asm, origin: origin}
	case WireOllama:
		return &ollamaDecoder{asm: asm, origin: origin}
	}
	return &chatDecoder{asm: asm, origin: origin}
}

// framesFor returns how a wire's response body is framed.
func framesFor(w Wire) func(io.Reader) frameReader {
	if w == WireOllama {
		return ndjsonFrames
	}
	return sseFrames
}
