// Package ext is the Go SDK for writing zut extensions. An extension is a
// program that speaks extension protocol v2 over its stdin and stdout; this
// package does the handshake, registration and dispatch so that an author
// writes handlers only.
//
// A typical main:
//
//	e := ext.New("hello", "1.0.0")
//	e.Command("hello", "say hi", func(args string) ext.Response {
//		return ext.Prompt("Greet me in one short sentence.")
//	})
//	e.Run()
//
// Registrations made before Run, or inside an OnHello function, are sent
// after hello_ack and before ready; registrations made later are sent at
// once and still become callable.
//
// Handlers run concurrently where the protocol allows: every tool call,
// command and interception runs on its own goroutine, while events and
// panel keys are delivered one at a time, in the order the host sent them,
// on a single goroutine. Frames are written one whole line at a time, so
// every method of Extension is safe for concurrent use. A handler that
// panics produces an error reply (an is_error tool result, a command
// response with an error, an allowing interception), never a crash.
//
// The additions beyond protocol v2 (docs/protocol.md, "Additions beyond
// v2") are methods of Extension too: dialogs (Select, Confirm, Input,
// Overlay) and other requests to the host (Messages, SetModel,
// SetActiveTools, Complete, Option, Send, ...), the added events and
// interceptors, and UI frames (Print, SetHeader, Shortcut, SetEditor,
// ToolRenderer, ...). Each needs a capability in the hello: registrations
// made before Run declare theirs, and Use declares the ones handlers use
// at run time. A handler may call a request and wait for the answer; the
// SDK goes on reading and dispatching meanwhile.
//
// Stdout belongs to the protocol: Run points os.Stdout at os.Stderr so that
// a stray fmt.Println lands in the extension's log instead of corrupting a
// frame. Use Logf for diagnostics.
package ext
