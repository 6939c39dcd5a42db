// Package mcp is zut's Model Context Protocol client. It owns everything
// between zut and the MCP servers a user configured: reading the
// configuration files (.mcp.json in the project, $ZUT_HOME/mcp.json, a
// --mcp-config file), starting each server over its transport (a child
// process speaking newline-delimited JSON-RPC on stdio, Streamable HTTP, or
// the older HTTP+SSE transport), the initialize handshake and version
// negotiation, OAuth for remote servers, and the lists of tools, prompts
// and resources each server offers, named for zut as mcp__<server>__<name>.
//
// A Manager runs every configured server: it starts them in parallel
// without making its caller wait, reports list changes through callbacks,
// routes tool calls, prompt and resource requests to the right server, and
// stops everything on Close. A Client is one connection to one server; the
// Manager builds its Clients and most callers need nothing else.
//
// The package imports the standard library only.
package mcp
