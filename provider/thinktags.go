package provider

import "strings"

const (
	thinkOpen  = "<think>"
	thinkClose = "</think>"
)

// thinkTags splits the reasoning that some models write into their text,
// between <think> and </think>, from the answer that follows: DeepSeek R1
// and its distills, Qwen3 and QwQ when a server (llama.cpp, vLLM, LM
// Studio, older Ollama) has no reasoning parser switched on. Only a
// <think> at the very start of the text counts, after blank space; a tag
// split over several deltas is held back until it is whole. The zero
// value splits; a thinkTags in state thinkOff passes text through.
type thinkTags struct {
	state   uint8
	started bool   // some reasoning was emitted
	held    string // text not yet emitted: a partial tag, or leading blanks
}

const (
	thinkUndecided uint8 = iota // before the first text
	thinkInside                 // after <think>
	thinkAfter                  // after </think>, dropping the blank lines
	thinkOff                    // plain text from here on
)

const blanks = " \t\r\n"

// split takes the next piece of text and hands what can be told apart to
// think and text.
func (t *thinkTags) split(s string, think, text func(string)) {
	switch t.state {
	case thinkOff:
		text(s)
	case thinkUndecided:
		t.held += s
		rest := strings.TrimLeft(t.held, blanks)
		switch {
		case rest == "" || strings.HasPrefix(thinkOpen, rest):
			// Blank so far, or a tag still arriving.
		case strings.HasPrefix(rest, thinkOpen):
			t.state, t.held = thinkInside, ""
			t.split(rest[len(thinkOpen):], think, text)
		default:
			t.state = thinkOff
			text(t.flushHeld())
		}
	case thinkInside:
		buf := t.held + s
		t.held = ""
		if i := strings.Index(buf, thinkClose); i >= 0 {
			t.think(strings.TrimRight(buf[:i], blanks), think)
			t.state = thinkAfter
			t.split(buf[i+len(thinkClose):], think, text)
			return
		}
		// Hold back a partial </think> and the blanks before it, which
		// are dropped if the tag follows.
		cut := len(buf) - partialSuffix(buf, thinkClose)
		cut = len(strings.TrimRight(buf[:cut], blanks))
		t.think(buf[:cut], think)
		t.held = buf[cut:]
	case thinkAfter:
		if s = strings.TrimLeft(s, blanks); s != "" {
			t.state = thinkOff
			text(s)
		}
	}
}

// think emits reasoning without the blank lines that follow <think>.
func (t *thinkTags) think(s string, think func(string)) {
	if !t.started {
		s = strings.TrimLeft(s, blanks)
	}
	if s != "" {
		t.started = true
		think(s)
	}
}

// flush hands over what is held back, at the end of the text: a <think>
// that never closed keeps its text as reasoning.
func (t *thinkTags) flush(think, text func(string)) {
	if t.held == "" {
		return
	}
	switch t.state {
	case thinkInside:
		t.think(t.flushHeld(), think)
	case thinkUndecided:
		t.state = thinkOff
		text(t.flushHeld())
	default:
		t.held = ""
	}
}

func (t *thinkTags) flushHeld() string {
	s := t.held
	t.held = ""
	return s
}

// partialSuffix returns the length of the longest end of s that is a
// proper beginning of tag.
func partialSuffix(s, tag string) int {
	for n := min(len(tag)-1, len(s)); n > 0; n-- {
		if strings.HasSuffix(s, tag[:n]) {
			return n
		}
	}
	return 0
}
