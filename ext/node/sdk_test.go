package node_test

// The Node SDK under the real host: every feature of the SDK, in real
// Node processes (testdata/full/full.mjs and testdata/bare/bare.mjs). The
// tests are ext/internal/sdktest's; this file names the scripts and the
// texts Node prints.

import (
	"flag"
	"testing"

	"github.com/zut-go/zut/ext/internal/sdktest"
	"github.com/zut-go/zut/ext/node"
)

var update = flag.Bool("update", false, "rewrite the examples' copies of the SDK")

var sdk = &sdktest.SDK{
	Name: "Node", Runtime: "node", Language: "javascript", Package: "ext/node",
	FileName: node.FileName, Source: node.Source(),
	Full: "full/full.mjs", Bare: "bare/bare.mjs", Bench: []string{"bench/raw.mjs", "bench/sdk.mjs"},
	Keys: "keys.mjs", KeyArgs: []string{node.FileName},
	Examples: "clock and context-notes",
	Want: sdktest.Want{
		Fail:      "/fail: RangeError: boom",
		BadReturn: "/badreturn: the handler returned number; return a string or an object such as display(...)",
		StrayLog:  []string{"stray print to stdout", "stray write to stdout", "RangeError: boom"},
		Boom:      "text:boom: TypeError: kaput",
		BadResult: "text:badresult: the handler returned number; return a string or an object such as textResult(...)",
		Events:    `session_opened b2 {"v":1} | turn_start 1 | turn_end end_turn | agent_end completed Done. | custom ping {"n":2} from other`,
		Ask:       "production/1 true what! undo/1",
		LLM:       `Hello ["Hel","lo"]`,
		Entries:   `e1 1 {"n":1}`,
		App:       "app [true]",
		Undeclared: `select host=false ui.select: needs the capability "host_requests"; call ext.use('host_requests') before run() | ` +
			`print host=false print: needs the capability "ui2"; call ext.use('ui2') before run() | ` +
			`status priority host=false setStatus priority: needs the capability "ui2"; call ext.use('ui2') before run()`,
		OldHost:   `/ask: CapabilityError: ui.select: the host does not offer the capability "host_requests"; use a zut that does`,
		FutureLog: `ignored a frame of type "future_frame"`,
	},
}

func TestCommands(t *testing.T)               { sdk.Commands(t) }
func TestTools(t *testing.T)                  { sdk.Tools(t) }
func TestEventsAndInterceptions(t *testing.T) { sdk.EventsAndInterceptions(t) }
func TestHostRequestsAndUI(t *testing.T)      { sdk.HostRequestsAndUI(t) }

// TestUndeclared checks that an addition the extension did not declare
// fails at once with a CapabilityError, and that an extension without
// additions sees plain v2.
func TestUndeclared(t *testing.T) { sdk.Undeclared(t) }

// TestOldHost: host requests behind a zut without the additions fail at
// once with a CapabilityError naming the host.
func TestOldHost(t *testing.T) { sdk.OldHost(t) }

// TestFutureHost: the SDK ignores frames of unknown types and unknown
// members.
func TestFutureHost(t *testing.T) { sdk.FutureHost(t) }

// TestExampleCopies checks that the examples carry the SDK unchanged;
// -update rewrites their copies.
func TestExampleCopies(t *testing.T) { sdk.ExampleCopies(t, *update) }

// TestCanonicalKeyTable runs canonicalKey of zut_ext.mjs in a real Node
// over the shared table of key names, so that the SDK names keys as zut
// does.
func TestCanonicalKeyTable(t *testing.T) { sdk.CanonicalKeyTable(t) }

// TestBadInput and FuzzLines drive the SDK process on raw pipes with
// input the real host never sends.
func TestBadInput(t *testing.T) { sdk.BadInput(t) }
func FuzzLines(f *testing.F)    { sdk.FuzzLines(f) }

// BenchmarkToolCall measures the SDK's overhead per tool call (target: at
// most 0.3 ms) against a raw-JSON script.
func BenchmarkToolCall(b *testing.B) { sdk.BenchmarkToolCall(b) }
