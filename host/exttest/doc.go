// Package exttest is zut's extension conformance tester, the engine of
// "zut ext test". It runs one extension through every phase of protocol v2
// and zut's additions the way a careful host would (handshake,
// registration, calls, events and interceptions, tool_cancel, panels,
// state, robustness, additions) and reports each check with the section of
// the spec or the clarification (C1..C23) it comes from, its status and the
// frames that show it.
//
// Test runs the checks and returns a Report; Run is the command line
// (Synopsis). Every deadline counts the extension's own time, not its
// waiting for a CPU (see deadline), and every "no frame after X" rule is
// observed for a grace period (Timeouts.Grace).
// The tester owns the extension processes it starts: each runs in a process
// group of its own and is reaped, with its group, before Test returns.
package exttest
