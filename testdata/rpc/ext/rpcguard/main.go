// Command rpcguard is a test extension for zut's RPC mode: it cancels
// every "clear" session switch, every fork and every compaction, so that
// the golden transcripts show how those refusals reach an RPC client.
package main

import "github.com/zut-go/zut/ext"

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
	e.Run()
}
