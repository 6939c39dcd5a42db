package mcp

import (
	"encoding/json"
)

// The protocol revisions zut speaks, newest first. The first is offered in
// initialize; a server may answer with any of them.
var Versions = []string{"2025-11-25", "2025-06-18", "2025-03-26"}

// Implementation names a client or a server.
type Implementation struct {
	Name    string `json:"name"`
	Title   string `json:"title,omitempty"`
	Version string `json:"version"`
}

// ServerCapabilities is what a server said it offers in initialize. A nil
// member means the server does not offer it.
type ServerCapabilities struct {
	Tools       *ListCapability     `json:"tools,omitempty"`
	Prompts     *ListCapability     `json:"prompts,omitempty"`
	Resources   *ResourceCapability `json:"resources,omitempty"`
	Logging     json.RawMessage     `json:"logging,omitempty"`
	Completions json.RawMessage     `json:"completions,omitempty"`
	Tasks       json.RawMessage     `json:"tasks,omitempty"`
}

// ListCapability is the tools or prompts capability.
type ListCapability struct {
	ListChanged bool `json:"listChanged,omitempty"`
}

// ResourceCapability is the resources capability.
type ResourceCapability struct {
	Subscribe   bool `json:"subscribe,omitempty"`
	ListChanged bool `json:"listChanged,omitempty"`
}

// Names lists the capabilities present, for reports: "tools(listChanged)".
func (c ServerCapabilities) Names() []string {
	var out []string
	list := func(name string, l *ListCapability) {
		if l == nil {
			return
		}
		if l.ListChanged {
			name += "(listChanged)"
		}
		out = append(out, name)
	}
	list("tools", c.Tools)
	list("prompts", c.Prompts)
	if c.Resources != nil {
		name := "resources"
		switch {
		case c.Resources.ListChanged && c.Resources.Subscribe:
			name += "(listChanged,subscribe)"
		case c.Resources.ListChanged:
			name += "(listChanged)"
		case c.Resources.Subscribe:
			name += "(subscribe)"
		}
		out = append(out, name)
	}
	for _, raw := range []struct {
		name string
		v    json.RawMessage
	}{{"logging", c.Logging}, {"completions", c.Completions}, {"tasks", c.Tasks}} {
		if len(raw.v) > 0 && string(raw.v) != "null" {
			out = append(out, raw.name)
		}
	}
	return out
}

type initializeParams struct {
	ProtocolVersion string         `json:"protocolVersion"`
	Capabilities    map[string]any `json:"capabilities"`
	ClientInfo      Implementation `json:"clientInfo"`
}

type initializeResult struct {
	ProtocolVersion string             `json:"protocolVersion"`
	Capabilities    ServerCapabilities `json:"capabilities"`
	ServerInfo      Implementation     `json:"serverInfo"`
	Instructions    string             `json:"instructions,omitempty"`
}

// ToolInfo is a tool as the server lists it.
type ToolInfo struct {
	Name         string          `json:"name"`
	Title        string          `json:"title,omitempty"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	Annotations  json.RawMessage `json:"annotations,omitempty"`
	Execution    *struct {
		TaskSupport string `json:"taskSupport,omitempty"`
	} `json:"execution,omitempty"`
}

// PromptInfo is a prompt as the server lists it.
type PromptInfo struct {
	Name        string           `json:"name"`
	Title       string           `json:"title,omitempty"`
	Description string           `json:"description,omitempty"`
	Arguments   []PromptArgument `json:"arguments,omitempty"`
}

// PromptArgument is one argument of a prompt.
type PromptArgument struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
}

// ResourceInfo is a resource as the server lists it.
type ResourceInfo struct {
	URI         string `json:"uri"`
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	MIMEType    string `json:"mimeType,omitempty"`
	Size        *int64 `json:"size,omitempty"`
}

// TemplateInfo is a resource template (an RFC 6570 URI template).
type TemplateInfo struct {
	URITemplate string `json:"uriTemplate"`
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	MIMEType    string `json:"mimeType,omitempty"`
}

// Content is one content item of a tool result, a prompt message or (as
// Type "resource") an embedded resource. Which fields are set depends on
// Type:
//
//	text           Text
//	image, audio   MIMEType, Data (base64, as sent)
//	resource_link  URI, Name, Title, Description, MIMEType
//	resource       Resource
type Content struct {
	Type        string            `json:"type"`
	Text        string            `json:"text,omitempty"`
	MIMEType    string            `json:"mimeType,omitempty"`
	Data        string            `json:"data,omitempty"`
	URI         string            `json:"uri,omitempty"`
	Name        string            `json:"name,omitempty"`
	Title       string            `json:"title,omitempty"`
	Description string            `json:"description,omitempty"`
	Resource    *ResourceContents `json:"resource,omitempty"`
}

// ResourceContents is the content of a resource: Text, or Blob (base64).
type ResourceContents struct {
	URI      string  `json:"uri"`
	MIMEType string  `json:"mimeType,omitempty"`
	Text     *string `json:"text,omitempty"`
	Blob     *string `json:"blob,omitempty"`
}

// Result is the outcome of tools/call, in terms independent of the
// protocol: the content items, the structured content when the tool sent
// one, and whether the tool reported an error.
type Result struct {
	Content    []Content       `json:"content"`
	Structured json.RawMessage `json:"structuredContent,omitempty"`
	IsError    bool            `json:"isError,omitempty"`
	Server     string          `json:"-"` // the configured name of the server that answered
}

// PromptMessage is one message of a prompt.
type PromptMessage struct {
	Role    string  `json:"role"`
	Content Content `json:"content"`
}

// PromptResult is the answer to prompts/get.
type PromptResult struct {
	Description string          `json:"description,omitempty"`
	Messages    []PromptMessage `json:"messages"`
}

// ReadResult is the answer to resources/read.
type ReadResult struct {
	Contents []ResourceContents `json:"contents"`
}

// Progress is one progress notification of a running call.
type Progress struct {
	Progress float64
	Total    float64 // 0 when unknown
	Message  string
}

type progressParams struct {
	ProgressToken json.RawMessage `json:"progressToken"`
	Progress      float64         `json:"progress"`
	Total         *float64        `json:"total,omitempty"`
	Message       string          `json:"message,omitempty"`
}
