package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// client returns the connection of s, waiting (bounded) while it starts
// and restarting it when it stopped and may be restarted.
func (m *Manager) client(ctx context.Context, s *server) (*Client, error) {
	// stopped → starting → ready takes three rounds.
	for attempt := 0; attempt < 5; attempt++ {
		m.mu.Lock()
		if m.closing {
			m.mu.Unlock()
			return nil, fmt.Errorf("mcp server %q: zut is shutting down", s.cfg.Name)
		}
		switch s.state {
		case StateReady:
			c := s.client
			m.mu.Unlock()
			if isClosed(c.Done()) { // it ended before its monitor noticed
				m.stopped(s, c)
				continue
			}
			return c, nil
		case StateStopped:
			if s.restarts >= maxRestarts {
				err := s.err
				m.mu.Unlock()
				return nil, fmt.Errorf("mcp server %q stopped (%v) and was restarted %d times already; fix it and restart zut (its log is %s)",
					s.cfg.Name, err, maxRestarts, LogPath(m.opts.Home, s.cfg.Name))
			}
			s.restarts++
			s.state, s.ready = StateStarting, make(chan struct{})
			m.goStart(s)
			m.mu.Unlock()
			m.note(s, "restarting mcp server %q", s.cfg.Name)
			m.changed(m.opts.Callbacks.ServersChanged)
			continue
		case StateStarting:
			ready := s.ready
			m.mu.Unlock()
			if m.opts.Callbacks.Waiting != nil {
				m.opts.Callbacks.Waiting(s.cfg.Name)
			}
			wait := m.waitTimeout(s)
			t := time.NewTimer(wait)
			select {
			case <-ready:
				t.Stop()
				continue
			case <-t.C:
				return nil, fmt.Errorf("mcp server %q is still starting after %v; try again later or see its log %s",
					s.cfg.Name, wait, LogPath(m.opts.Home, s.cfg.Name))
			case <-ctx.Done():
				t.Stop()
				return nil, ctx.Err()
			}
		case StateFailed:
			err := s.err
			m.mu.Unlock()
			return nil, err
		case StateUntrusted:
			m.mu.Unlock()
			return nil, fmt.Errorf("mcp server %q comes from this project's .mcp.json and is not trusted yet", s.cfg.Name)
		case StateDisabled:
			m.mu.Unlock()
			return nil, fmt.Errorf("mcp server %q is disabled in %s", s.cfg.Name, s.cfg.File)
		default:
			err := s.err
			m.mu.Unlock()
			return nil, err
		}
	}
	return nil, fmt.Errorf("mcp server %q could not be started; see its log %s", s.cfg.Name, LogPath(m.opts.Home, s.cfg.Name))
}

// server finds the server of a name zut made (mcp__<server>__...).
func (m *Manager) serverOf(name string) (*server, string, error) {
	part, rest, ok := SplitName(name)
	if !ok {
		return nil, "", fmt.Errorf("%q is not the name of an MCP tool (they start with %s)", name, Prefix)
	}
	m.mu.Lock()
	s := m.byPart[part]
	m.mu.Unlock()
	if s == nil {
		return nil, "", fmt.Errorf("no mcp server for %q is configured", name)
	}
	return s, rest, nil
}

// open finds the server of name (mcp__<server>__...), a client of it
// (waiting for a server still starting, restarting a stopped one), and
// what find, called under m.mu, reads from the server: the server's own
// name for what zut calls name, "" when it offers none.
func (m *Manager) open(ctx context.Context, name string, find func(*server) string) (*server, *Client, string, error) {
	s, _, err := m.serverOf(name)
	if err != nil {
		return nil, nil, "", err
	}
	c, err := m.client(ctx, s)
	if err != nil {
		return nil, nil, "", err
	}
	m.mu.Lock()
	own := find(s)
	m.mu.Unlock()
	return s, c, own, nil
}

// Call runs the tool zut calls name (mcp__<server>__<tool>) with args, a
// JSON object. A server still starting is waited for (Callbacks.Waiting),
// a stopped one restarted. progress, when not nil, receives the server's
// progress notifications until Call returns, from another goroutine. The
// call ends with the server's "timeout" (or Options.CallTimeout) or when
// ctx ends; the server is then told it is cancelled. A tool that failed
// is a Result with IsError; an error means the call could not be made or
// answered (it names the server).
func (m *Manager) Call(ctx context.Context, name string, args json.RawMessage, progress func(Progress)) (*Result, error) {
	s, c, tool, err := m.open(ctx, name, func(s *server) (tool string) {
		for _, t := range s.tools {
			if t.Name == name {
				tool = t.Tool
			}
		}
		return tool
	})
	if err != nil {
		return nil, err
	}
	if tool == "" {
		return nil, fmt.Errorf("mcp server %q offers no tool %q (its tools may have changed)", s.cfg.Name, name)
	}
	limit := m.timeout(s)
	cctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	res, err := c.CallTool(cctx, tool, args, progress)
	var stopped *StoppedError
	if errors.As(err, &stopped) && isClosed(c.Done()) {
		// Record the end now, not when the monitor sees it: a server
		// out of restarts loses its tools before the model's next turn.
		m.stopped(s, c)
		m.mu.Lock()
		gone := s.state == StateStopped && s.restarts >= maxRestarts
		m.mu.Unlock()
		if gone { // whoever recorded the end, the tools are gone before Call returns
			m.changed(m.opts.Callbacks.ToolsChanged)
		}
	}
	if err != nil && errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
		return nil, &TimeoutError{Server: s.cfg.Name, Method: fmt.Sprintf("tools/call %q", tool), After: limit}
	}
	return res, err
}

// Prompt fills the prompt zut calls name (mcp__<server>__<prompt>) with
// args.
func (m *Manager) Prompt(ctx context.Context, name string, args map[string]string) (*PromptResult, error) {
	s, c, prompt, err := m.open(ctx, name, func(s *server) (prompt string) {
		for _, p := range s.prompts {
			if p.Name == name {
				prompt = p.Prompt
			}
		}
		return prompt
	})
	if err != nil {
		return nil, err
	}
	if prompt == "" {
		return nil, fmt.Errorf("mcp server %q offers no prompt %q", s.cfg.Name, name)
	}
	cctx, cancel := context.WithTimeout(ctx, m.timeout(s))
	defer cancel()
	return c.Prompt(cctx, prompt, args)
}

// ReadResource reads uri from the server called server (its configured
// name).
func (m *Manager) ReadResource(ctx context.Context, server, uri string) (*ReadResult, error) {
	m.mu.Lock()
	s := m.byName[server]
	m.mu.Unlock()
	if s == nil {
		return nil, fmt.Errorf("no mcp server %q is configured", server)
	}
	c, err := m.client(ctx, s)
	if err != nil {
		return nil, err
	}
	cctx, cancel := context.WithTimeout(ctx, m.timeout(s))
	defer cancel()
	return c.ReadResource(cctx, uri)
}

// ResourceToolName is the name of the tool that reads MCP resources.
const ResourceToolName = "mcp_resource"

// ResourceToolDescription and ResourceToolSchema define that tool.
const ResourceToolDescription = "Read a resource of an MCP server by its URI, or list the resources of a server when uri is omitted. " +
	"Resource links in MCP tool results name the server and URI to read."

var ResourceToolSchema = json.RawMessage(`{"type":"object","properties":{` +
	`"server":{"type":"string","description":"The MCP server's name, as configured."},` +
	`"uri":{"type":"string","description":"The resource URI; omit it to list the server's resources."}},` +
	`"required":["server"],"additionalProperties":false}`)

// ResourceTool runs the mcp_resource tool: args is {"server", "uri"?}.
// Bad arguments and failures are results with IsError, worded for the
// model; it never returns nil.
func (m *Manager) ResourceTool(ctx context.Context, args json.RawMessage) *Result {
	var a struct {
		Server *string `json:"server"`
		URI    string  `json:"uri"`
	}
	dec := json.NewDecoder(strings.NewReader(string(args)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil || a.Server == nil || *a.Server == "" {
		return errorResult("mcp_resource: give {\"server\": name, \"uri\": uri}; the servers are: " + m.serverNames())
	}
	server := *a.Server
	if a.URI == "" {
		return m.listResources(server)
	}
	res, err := m.ReadResource(ctx, server, a.URI)
	if err != nil {
		return errorResult("mcp_resource: " + err.Error())
	}
	out := &Result{}
	for _, rc := range res.Contents {
		rc := rc
		out.Content = append(out.Content, Content{Type: "resource", Resource: &rc})
	}
	if len(out.Content) == 0 {
		out.Content = []Content{{Type: "text", Text: "(the resource is empty)"}}
	}
	return out
}

func (m *Manager) listResources(server string) *Result {
	m.mu.Lock()
	s := m.byName[server]
	m.mu.Unlock()
	if s == nil {
		return errorResult(fmt.Sprintf("mcp_resource: no mcp server %q; the servers are: %s", server, m.serverNames()))
	}
	var b strings.Builder
	for _, r := range m.Resources() {
		if r.Server == server {
			fmt.Fprintf(&b, "%s  %s", r.URI, r.Name)
			if r.MIMEType != "" {
				fmt.Fprintf(&b, " (%s)", r.MIMEType)
			}
			if r.Description != "" {
				fmt.Fprintf(&b, ": %s", r.Description)
			}
			b.WriteByte('\n')
		}
	}
	for _, t := range m.Templates() {
		if t.Server == server {
			fmt.Fprintf(&b, "%s  %s (template: fill in the {placeholders})\n", t.URITemplate, t.Name)
		}
	}
	if b.Len() == 0 {
		return &Result{Content: []Content{{Type: "text", Text: fmt.Sprintf("mcp server %q lists no resources", server)}}}
	}
	return &Result{Content: []Content{{Type: "text", Text: strings.TrimRight(b.String(), "\n")}}}
}

func (m *Manager) serverNames() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var names []string
	for _, s := range m.servers {
		if s.state == StateReady {
			names = append(names, s.cfg.Name)
		}
	}
	if len(names) == 0 {
		return "(none is ready)"
	}
	return strings.Join(names, ", ")
}

func errorResult(msg string) *Result {
	return &Result{Content: []Content{{Type: "text", Text: msg}}, IsError: true}
}

// ParseMention splits a mention "@server:uri" (the @ is optional).
func ParseMention(s string) (server, uri string, ok bool) {
	s = strings.TrimPrefix(s, "@")
	server, uri, ok = strings.Cut(s, ":")
	return server, uri, ok && server != "" && uri != ""
}

// PromptArgs maps the words typed after /<prompt> to its arguments:
// name=value words set arguments by name; other words fill the arguments
// in order, the last one taking the rest of the line. Double quotes group
// words. A missing required argument is an error naming it.
func PromptArgs(p Prompt, line string) (map[string]string, error) {
	words := splitWords(line)
	out := map[string]string{}
	var positional []string
	for _, w := range words {
		if k, v, ok := strings.Cut(w, "="); ok && argNamed(p, k) {
			out[k] = v
			continue
		}
		positional = append(positional, w)
	}
	var free []PromptArgument
	for _, a := range p.Arguments {
		if _, set := out[a.Name]; !set {
			free = append(free, a)
		}
	}
	for i, w := range positional {
		if len(free) == 0 {
			return nil, fmt.Errorf("/%s takes %d arguments; %q is one too many", p.Name, len(p.Arguments), w)
		}
		if i >= len(free)-1 {
			last := free[len(free)-1].Name
			if _, ok := out[last]; ok {
				out[last] += " " + w
			} else {
				out[last] = w
			}
			continue
		}
		out[free[i].Name] = w
	}
	for _, a := range p.Arguments {
		if _, ok := out[a.Name]; a.Required && !ok {
			return nil, fmt.Errorf("/%s needs the argument %q%s", p.Name, a.Name, describeArg(a))
		}
	}
	return out, nil
}

func describeArg(a PromptArgument) string {
	if a.Description == "" {
		return ""
	}
	return " (" + a.Description + ")"
}

func argNamed(p Prompt, k string) bool {
	for _, a := range p.Arguments {
		if a.Name == k {
			return true
		}
	}
	return false
}

func splitWords(s string) []string {
	var out []string
	var cur strings.Builder
	in, quoted := false, false
	for _, r := range s {
		switch {
		case r == '"':
			quoted = !quoted
			in = true
		case !quoted && (r == ' ' || r == '\t' || r == '\n'):
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if in {
		out = append(out, cur.String())
	}
	return out
}

// Text is the prompt's messages as text for the conversation: each
// message's text (other content described), "assistant" messages marked.
func (r *PromptResult) Text() string {
	var parts []string
	for _, msg := range r.Messages {
		res := Result{Content: []Content{msg.Content}}
		t := res.Text()
		if msg.Role == "assistant" {
			t = "[assistant] " + t
		}
		parts = append(parts, t)
	}
	return strings.Join(parts, "\n\n")
}
