package provider

import (
	"strings"
	"testing"
)

// TestThinkTags feeds each text whole, split at every byte, and one byte
// at a time; the reasoning and the answer must come out the same.
func TestThinkTags(t *testing.T) {
	tests := []struct{ in, think, text string }{
		{"Hello", "", "Hello"},
		{"", "", ""},
		{"\n\n", "", "\n\n"},
		{"<think>a</think>b", "a", "b"},
		{"  \n<think>\nplan\n</think>\n\nanswer", "plan", "answer"},
		{"<think></think>answer", "", "answer"},
		{"<think>unfinished </thi", "unfinished </thi", ""},
		{"<think>x</think>", "x", ""},
		{"<think>a < b </think> c </think>", "a < b", "c </think>"},
		{"<thinking>", "", "<thinking>"},
		{"<thi", "", "<thi"},
		{"text <think>a</think>", "", "text <think>a</think>"},
		{"<think>é 日本</think>語", "é 日本", "語"},
		{"<think>one\n\ntwo \n</think>x", "one\n\ntwo", "x"},
		{"<think>a \n", "a \n", ""},
	}
	for _, tc := range tests {
		var cuts [][]string
		cuts = append(cuts, []string{tc.in})
		for i := 1; i < len(tc.in); i++ {
			cuts = append(cuts, []string{tc.in[:i], tc.in[i:]})
		}
		cuts = append(cuts, strings.Split(tc.in, ""))
		for _, pieces := range cuts {
			var tags thinkTags
			var think, text strings.Builder
			for _, p := range pieces {
				tags.split(p, func(s string) { think.WriteString(s) }, func(s string) { text.WriteString(s) })
			}
			tags.flush(func(s string) { think.WriteString(s) }, func(s string) { text.WriteString(s) })
			if think.String() != tc.think || text.String() != tc.text {
				t.Errorf("split(%q as %q) = think %q, text %q; want %q, %q", tc.in, pieces, think.String(), text.String(), tc.think, tc.text)
				break
			}
		}
	}
}
