package mcp

import (
	"context"
	"encoding/json"
	"sort"
	"time"
)

// Tool is an MCP tool as zut offers it to the model.
type Tool struct {
	Name        string          // zut's name: mcp__<server>__<tool>
	Server      string          // the configured server name
	Tool        string          // the server's own name for it
	Title       string          // for people, may be ""
	Description string          // for the model
	InputSchema json.RawMessage // a JSON Schema object of type "object"
	Annotations json.RawMessage // the server's hints (untrusted), or nil
}

// Prompt is an MCP prompt as zut offers it, as a slash command
// /<Name> (mcp__<server>__<prompt>).
type Prompt struct {
	Name        string
	Server      string
	Prompt      string // the server's own name for it
	Title       string
	Description string
	Arguments   []PromptArgument
}

// Resource is a resource of a server.
type Resource struct {
	Server string
	ResourceInfo
}

// Template is a resource template of a server.
type Template struct {
	Server string
	TemplateInfo
}

// fetch (re)reads the lists named of c into s and publishes them; an
// error of the tools list is returned, others become notes.
func (m *Manager) fetch(s *server, c *Client, lists ...string) error {
	ctx, cancel := context.WithTimeout(m.ctx, m.timeout(s))
	defer cancel()
	for _, l := range lists {
		switch l {
		case "tools":
			infos, err := c.Tools(ctx)
			if err != nil {
				return err
			}
			tools, omitted := m.toolsOf(s, infos)
			m.mu.Lock()
			s.tools, s.omitted = tools, omitted
			m.mu.Unlock()
		case "prompts":
			infos, err := c.Prompts(ctx)
			if err != nil {
				m.note(s, "%v; its prompts are not offered", err)
			}
			n := newNamer(s.part)
			var prompts []Prompt
			for _, p := range infos {
				for i := range p.Arguments {
					p.Arguments[i].Description = clipString(p.Arguments[i].Description, maxDescription)
				}
				prompts = append(prompts, Prompt{Name: n.name(p.Name), Server: s.cfg.Name, Prompt: p.Name, Title: clipString(p.Title, 200),
					Description: clipString(p.Description, maxDescription), Arguments: p.Arguments})
			}
			m.mu.Lock()
			s.prompts = prompts
			m.mu.Unlock()
		case "resources":
			res, err := c.Resources(ctx)
			if err != nil {
				m.note(s, "%v; its resources are not offered", err)
			}
			tpl, err := c.Templates(ctx)
			if err != nil && !isMethodNotFound(err) {
				m.note(s, "%v; its resource templates are not offered", err)
			}
			m.mu.Lock()
			s.resources, s.templates = res, tpl
			m.mu.Unlock()
		}
	}
	return nil
}

func isMethodNotFound(err error) bool {
	var rpc *RPCError
	return asRPC(err, &rpc) && rpc.Code == CodeMethodNotFound
}

// toolsOf turns the server's tool list into zut's tools: filtered by
// allowed_tools and disabled_tools, without tools whose schema is not a
// JSON Schema, without repeated names and without tools that can only run
// as tasks; each skipped tool gets a note naming it.
// Past MaxToolsPerServer the rest are omitted: their own names are
// returned.
func (m *Manager) toolsOf(s *server, infos []ToolInfo) (out []Tool, omitted []string) {
	n := newNamer(s.part)
	seen := map[string]bool{}
	for _, t := range infos {
		if t.Name == "" {
			m.note(s, "mcp server %q lists a tool without a name; skipped it", s.cfg.Name)
			continue
		}
		if seen[t.Name] {
			m.note(s, "mcp server %q lists the tool %q twice; zut offers the first", s.cfg.Name, t.Name)
			continue
		}
		seen[t.Name] = true
		if !toolAllowed(s.cfg, t.Name, s.part) {
			continue
		}
		if len(t.InputSchema) > MaxSchema {
			m.note(s, "mcp server %q: tool %q skipped: its inputSchema is %d bytes, more than the %d zut offers the model", s.cfg.Name, t.Name, len(t.InputSchema), MaxSchema)
			continue
		}
		if err := checkInputSchema(t.InputSchema); err != nil {
			m.note(s, "mcp server %q: tool %q skipped: %v", s.cfg.Name, t.Name, err)
			continue
		}
		if t.Execution != nil && t.Execution.TaskSupport == "required" {
			m.note(s, "mcp server %q: tool %q skipped: it runs only as an MCP task, which zut does not support", s.cfg.Name, t.Name)
			continue
		}
		out = append(out, Tool{Name: n.name(t.Name), Server: s.cfg.Name, Tool: t.Name, Title: clipString(t.Title, 200),
			Description: clipString(t.Description, maxDescription), InputSchema: normalizeSchema(t.InputSchema), Annotations: t.Annotations})
	}
	if len(out) > MaxToolsPerServer {
		for _, t := range out[MaxToolsPerServer:] {
			omitted = append(omitted, t.Tool)
		}
		out = out[:MaxToolsPerServer]
		m.note(s, "mcp server %q offers %d tools; zut offers the model the first %d and leaves out %d (allowed_tools picks which; zut mcp list shows them all)",
			s.cfg.Name, len(out)+len(omitted), MaxToolsPerServer, len(omitted))
	}
	return out, omitted
}

// toolAllowed applies allowed_tools and disabled_tools, whose entries may
// be the server's tool name or zut's full name.
func toolAllowed(cfg ServerConfig, tool, part string) bool {
	full := newNamer(part).name(tool)
	match := func(list []string) bool { return contains(list, tool) || contains(list, full) }
	if cfg.AllowedTools != nil && !match(cfg.AllowedTools) {
		return false
	}
	return !match(cfg.DisabledTools)
}

// listChanged runs on a connection's reader goroutine: it schedules a
// refresh of list on a goroutine of the Manager, coalescing bursts.
func (m *Manager) listChanged(s *server, list string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closing || s.client == nil {
		return
	}
	if s.dirty == nil {
		s.dirty = map[string]bool{}
	}
	s.dirty[list] = true
	if s.refreshing {
		return
	}
	s.refreshing = true
	c := s.client
	m.wg.Add(1)
	go m.refresh(s, c)
}

func (m *Manager) refresh(s *server, c *Client) {
	defer m.wg.Done()
	for {
		m.mu.Lock()
		var lists []string
		for l := range s.dirty {
			lists = append(lists, l)
		}
		sort.Strings(lists)
		s.dirty = nil
		if len(lists) == 0 || m.closing || s.client != c {
			s.refreshing = false
			m.mu.Unlock()
			return
		}
		m.mu.Unlock()
		if err := m.fetch(s, c, lists...); err != nil {
			m.note(s, "refresh the tools of mcp server %q: %v", s.cfg.Name, err)
		}
		for _, l := range lists {
			switch l {
			case "tools":
				m.changed(m.opts.Callbacks.ToolsChanged)
			case "prompts":
				m.changed(m.opts.Callbacks.PromptsChanged)
			case "resources":
				m.changed(m.opts.Callbacks.ResourcesChanged)
			}
		}
	}
}

// Tools lists the tools of every server that is ready (or stopped and
// restartable), sorted by name.
func (m *Manager) Tools() []Tool {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []Tool
	for _, s := range m.servers {
		if s.state == StateReady || s.state == StateStopped && s.restarts < maxRestarts {
			out = append(out, s.tools...)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Prompts lists the prompts of every ready server, sorted by name.
func (m *Manager) Prompts() []Prompt {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []Prompt
	for _, s := range m.servers {
		if s.state == StateReady {
			out = append(out, s.prompts...)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Resources lists the resources of every ready server, by server then in
// the server's order.
func (m *Manager) Resources() []Resource {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []Resource
	for _, s := range m.servers {
		if s.state == StateReady {
			for _, r := range s.resources {
				out = append(out, Resource{Server: s.cfg.Name, ResourceInfo: r})
			}
		}
	}
	return out
}

// Templates lists the resource templates of every ready server.
func (m *Manager) Templates() []Template {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []Template
	for _, s := range m.servers {
		if s.state == StateReady {
			for _, t := range s.templates {
				out = append(out, Template{Server: s.cfg.Name, TemplateInfo: t})
			}
		}
	}
	return out
}

func (m *Manager) timeout(s *server) time.Duration {
	if s.cfg.Timeout > 0 {
		return s.cfg.Timeout
	}
	return m.opts.CallTimeout
}
