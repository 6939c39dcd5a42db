package python_test

// The Python SDK under the real host: every feature of the SDK, in real
// Python processes (testdata/full/full.py and testdata/bare/bare.py). The
// tests are ext/internal/sdktest's; this file names the scripts and the
// texts Python prints.

import (
	"flag"
	"testing"

	"github.com/zut-go/zut/ext/internal/sdktest"
	"github.com/zut-go/zut/ext/python"
)

var update = flag.Bool("update", false, "rewrite the examples' copies of the SDK")

var sdk = &sdktest.SDK{
	Name: "Python", Runtime: "python3", Language: "python", Package: "ext/python",
	FileName: python.FileName, Source: python.Source(),
	Full: "full/full.py", Bare: "bare/bare.py", Bench: []string{"bench/raw.py", "bench/sdk.py"},
	Keys: "keys.py",
	KeyEnv: func(dir string) []string {
		return []string{"PYTHONPATH=" + dir, "PYTHONDONTWRITEBYTECODE=1"}
	},
	Examples: "hello-py and ask",
	Want: sdktest.Want{
		Fail:      "/fail: ValueError: boom",
		BadReturn: "/badreturn: the handler returned int; return a str or a dict such as display(...)",
		StrayLog:  []string{"stray print to stdout", "stray from a child", "stray write to fd 1", "ValueError: boom"},
		Boom:      "text:boom: RuntimeError: kaput",
		BadResult: "text:badresult: the handler returned int; return a str or a dict such as text_result(...)",
		Events:    `session_opened b2 {"v": 1} | turn_start 1 | turn_end end_turn | agent_end completed Done. | custom ping {"n": 2} from other`,
		Ask:       "production/1 True what! undo/1",
		LLM:       "Hello ['Hel', 'lo']",
		Entries:   `e1 1 {"n": 1}`,
		App:       "app [True]",
		Undeclared: "select host=False ui.select: needs the capability 'host_requests'; call ext.use('host_requests') before run() | " +
			"print host=False print: needs the capability 'ui2'; call ext.use('ui2') before run() | " +
			"status priority host=False set_status priority: needs the capability 'ui2'; call ext.use('ui2') before run()",
		OldHost:   "/ask: CapabilityError: ui.select: the host does not offer the capability 'host_requests'; use a zut that does",
		FutureLog: `ignored a frame of type 'future_frame'`,
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

// TestCanonicalKeyTable runs zut_ext.canonical_key in a real Python over
// the shared table of key names, so that the SDK names keys as zut does.
func TestCanonicalKeyTable(t *testing.T) { sdk.CanonicalKeyTable(t) }

// TestBadInput and FuzzLines drive the SDK process on raw pipes with
// input the real host never sends.
func TestBadInput(t *testing.T) { sdk.BadInput(t) }
func FuzzLines(f *testing.F)    { sdk.FuzzLines(f) }

// BenchmarkToolCall measures the SDK's overhead per tool call (target: at
// most 0.3 ms) against a raw-JSON script.
func BenchmarkToolCall(b *testing.B) { sdk.BenchmarkToolCall(b) }
