package telegram_test

import (
	"strings"
	"testing"

	"github.com/zut-go/zut/agent/bot/telegram"
)

// A long answer as a model writes it: paragraphs, lists, emphasis, code.
var benchAnswer = strings.Repeat("Some **bold** text, `code`, a [link](https://example.com) and snake_case.\n\n- item one\n- item *two*\n\n```go\nfunc f() { return a < b }\n```\n\n", 700)

func BenchmarkMarkdown(b *testing.B) {
	b.SetBytes(int64(len(benchAnswer)))
	for b.Loop() {
		telegram.Markdown(benchAnswer)
	}
}

func BenchmarkSplitAndRender(b *testing.B) {
	f := telegram.Markdown(benchAnswer)
	b.SetBytes(int64(len(benchAnswer)))
	for b.Loop() {
		for _, p := range telegram.Split(f, telegram.MaxMessage) {
			_ = p.HTML()
		}
	}
}
