package mcp

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// CallError is a request to a server that failed: the server answered
// with a JSON-RPC error, or its answer could not be used.
type CallError struct {
	Server string
	Method string
	Err    error // often an *RPCError
}

func (e *CallError) Error() string {
	return fmt.Sprintf("mcp server %q: %s: %v", e.Server, e.Method, e.Err)
}

func (e *CallError) Unwrap() error { return e.Err }

// StoppedError is the error of every request to a server whose connection
// ended: its process exited, it sent something that ended the
// connection, or zut closed it.
type StoppedError struct {
	Server string
	Log    string // the server's log file
	Err    error  // why
}

func (e *StoppedError) Error() string {
	if e.Log == "" {
		return fmt.Sprintf("mcp server %q stopped: %v", e.Server, e.Err)
	}
	return fmt.Sprintf("mcp server %q stopped: %v; its log is %s", e.Server, e.Err, e.Log)
}

func (e *StoppedError) Unwrap() error { return e.Err }

// TimeoutError is a request that got no answer in time. zut told the
// server it cancelled the request.
type TimeoutError struct {
	Server string
	Method string
	After  time.Duration
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("mcp server %q sent no answer to %s within %v; raise \"tool_timeout_sec\" in its configuration (or MCP_TOOL_TIMEOUT, in milliseconds) if it needs longer", e.Server, e.Method, e.After)
}

// CancelledError is a request abandoned because the user cancelled it
// (Esc, Ctrl-C, or zut stopping). zut told the server so
// (notifications/cancelled). It unwraps to context.Canceled.
type CancelledError struct {
	Server string
	Method string
}

func (e *CancelledError) Error() string {
	return fmt.Sprintf("mcp server %q: %s cancelled by the user", e.Server, e.Method)
}

func (e *CancelledError) Unwrap() error { return context.Canceled }

// errClosed is the cause of StoppedError after Close.
var errClosed = errors.New("closed by zut")

// sessionExpiredError is an HTTP 404 for a request that carried a
// session id: the server forgot the session, and a new initialize starts
// another (Streamable HTTP, session management rule 4).
type sessionExpiredError struct{}

func (sessionExpiredError) Error() string { return "the server ended the session (HTTP 404)" }

func asRPC(err error, target **RPCError) bool { return errors.As(err, target) }
