package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
)

// maxPages bounds a paginated listing, against a server whose cursor
// never ends.
const maxPages = 1000

// listAll fetches every page of a paginated list method, decoding the
// items under key of each result into out (appended).
func listAll[T any](ctx context.Context, c *Client, method, key string) ([]T, error) {
	var all []T
	cursor := ""
	seen := map[string]bool{}
	for page := 0; ; page++ {
		if page == maxPages {
			return all, &CallError{Server: c.name, Method: method, Err: fmt.Errorf("more than %d pages; stopped", maxPages)}
		}
		var params any
		if cursor != "" {
			params = map[string]string{"cursor": cursor}
		}
		raw, err := c.request(ctx, method, params, nil)
		if err != nil {
			return all, err
		}
		var res map[string]json.RawMessage
		if err := json.Unmarshal(raw, &res); err != nil {
			return all, &CallError{Server: c.name, Method: method, Err: fmt.Errorf("unusable result: %v", err)}
		}
		var items []T
		if err := json.Unmarshal(res[key], &items); err != nil && len(res[key]) > 0 {
			return all, &CallError{Server: c.name, Method: method, Err: fmt.Errorf("unusable %q: %v", key, err)}
		}
		all = append(all, items...)
		var next string
		if n := res["nextCursor"]; len(n) > 0 && string(n) != "null" {
			if err := json.Unmarshal(n, &next); err != nil {
				return all, &CallError{Server: c.name, Method: method, Err: errors.New("nextCursor is not a string")}
			}
		}
		if next == "" {
			return all, nil
		}
		if seen[next] {
			return all, &CallError{Server: c.name, Method: method, Err: errors.New("the server repeated a cursor; stopped")}
		}
		seen[next] = true
		cursor = next
	}
}

// Tools lists every tool of the server (all pages), as sent. Servers
// without the tools capability have none.
func (c *Client) Tools(ctx context.Context) ([]ToolInfo, error) {
	if c.caps.Tools == nil {
		return nil, nil
	}
	return listAll[ToolInfo](ctx, c, "tools/list", "tools")
}

// Prompts lists every prompt of the server.
func (c *Client) Prompts(ctx context.Context) ([]PromptInfo, error) {
	if c.caps.Prompts == nil {
		return nil, nil
	}
	return listAll[PromptInfo](ctx, c, "prompts/list", "prompts")
}

// Resources lists every resource of the server.
func (c *Client) Resources(ctx context.Context) ([]ResourceInfo, error) {
	if c.caps.Resources == nil {
		return nil, nil
	}
	return listAll[ResourceInfo](ctx, c, "resources/list", "resources")
}

// Templates lists every resource template of the server.
func (c *Client) Templates(ctx context.Context) ([]TemplateInfo, error) {
	if c.caps.Resources == nil {
		return nil, nil
	}
	return listAll[TemplateInfo](ctx, c, "resources/templates/list", "resourceTemplates")
}

// CallTool calls the server's tool name (the server's own name, not
// zut's) with args, a JSON object (nil for none). progress, when not
// nil, receives progress notifications until CallTool returns, on the
// connection's reader goroutine. When ctx ends, the server is told the
// call is cancelled.
func (c *Client) CallTool(ctx context.Context, name string, args json.RawMessage, progress func(Progress)) (*Result, error) {
	params := map[string]any{"name": name}
	if len(args) > 0 && string(args) != "null" {
		if !isJSONObject(args) {
			return nil, fmt.Errorf("call tool %q of mcp server %q: the arguments must be a JSON object", name, c.name)
		}
		params["arguments"] = args
	} else {
		params["arguments"] = map[string]any{}
	}
	raw, err := c.request(ctx, "tools/call", params, progress)
	if err != nil {
		return nil, err
	}
	var res struct {
		Result
		Content *[]Content `json:"content"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, &CallError{Server: c.name, Method: "tools/call", Err: fmt.Errorf("unusable result: %v", err)}
	}
	if res.Content == nil {
		return nil, &CallError{Server: c.name, Method: "tools/call", Err: errors.New("the result has no \"content\" array")}
	}
	res.Result.Content = *res.Content
	res.Result.Server = c.name
	return &res.Result, nil
}

// Prompt gets the prompt name filled with args.
func (c *Client) Prompt(ctx context.Context, name string, args map[string]string) (*PromptResult, error) {
	params := map[string]any{"name": name}
	if len(args) > 0 {
		params["arguments"] = args
	}
	raw, err := c.request(ctx, "prompts/get", params, nil)
	if err != nil {
		return nil, err
	}
	var res PromptResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, &CallError{Server: c.name, Method: "prompts/get", Err: fmt.Errorf("unusable result: %v", err)}
	}
	return &res, nil
}

// ReadResource reads the resource at uri.
func (c *Client) ReadResource(ctx context.Context, uri string) (*ReadResult, error) {
	raw, err := c.request(ctx, "resources/read", map[string]string{"uri": uri}, nil)
	if err != nil {
		return nil, err
	}
	var res ReadResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, &CallError{Server: c.name, Method: "resources/read", Err: fmt.Errorf("unusable result: %v", err)}
	}
	return &res, nil
}
