// Command rpcguard is a test extension for zut's RPC mode: it cancels
// every "clear" session switch, every fork and every compaction, hides
// the word "secret" from the user and blocks answers that say "forbidden",
// so that the golden transcripts show how those reach an RPC client.
package main

import (
	"strings"

	"github.com/zut-go/zut/ext"
)

func main() {
	e := ext.New("rpcguard", "1.0.0")
	e.InterceptBeforeSessionSwitch(func(reason string) ext.CancelDecision {
		if reason == "clear" {
			return ext.CancelDecision{Cancel: true, Reason: "this conversation is kept"}
		}
		return ext.CancelDecision{}
	})
	e.InterceptBeforeFork(func(ev ext.BeforeForkEvent) ext.CancelDecision {
		return ext.CancelDecision{Cancel: true, Reason: "no branches today"}
	})
	e.InterceptBeforeCompact(func(ev ext.CompactEvent) ext.CancelDecision {
		return ext.CancelDecision{Cancel: true, Reason: "keep every word"}
	})
	e.InterceptAssistantMessage(func(text string) ext.AssistantMessageDecision {
		if strings.Contains(text, "forbidden") {
			return ext.AssistantMessageDecision{Block: true, Reason: "the answer was withheld"}
		}
		return ext.AssistantMessageDecision{ReplaceText: strings.ReplaceAll(text, "secret", "[redacted]")}
	})
	e.Run()
}
