package provider

import (
	"bytes"
	"encoding/json"
	"slices"
	"sync"
)

// A request carries the same tool definitions turn after turn, and
// encoding/json scans every byte of a json.RawMessage it writes (the
// schemas are most of a request's first bytes). marshalWithTools writes
// the tools' JSON once per distinct list and adds it to each body as is.

// wireTool is a tool as one wire writes it (T itself): equal reports
// whether two write the same JSON, detached is a copy that shares no
// bytes with the caller's (the cache keeps it).
type wireTool[T any] interface {
	equal(T) bool
	detached() T
}

func (t anthropicTool) equal(u anthropicTool) bool {
	return t.Name == u.Name && t.Description == u.Description && bytes.Equal(t.InputSchema, u.InputSchema) &&
		(t.CacheControl == nil) == (u.CacheControl == nil) && (t.CacheControl == nil || *t.CacheControl == *u.CacheControl)
}

func (t anthropicTool) detached() anthropicTool {
	t.InputSchema = bytes.Clone(t.InputSchema)
	if t.CacheControl != nil {
		c := *t.CacheControl
		t.CacheControl = &c
	}
	return t
}

func (t chatTool) equal(u chatTool) bool {
	return t.Type == u.Type && t.Function.Name == u.Function.Name && t.Function.Description == u.Function.Description &&
		bytes.Equal(t.Function.Parameters, u.Function.Parameters)
}

func (t chatTool) detached() chatTool {
	t.Function.Parameters = bytes.Clone(t.Function.Parameters)
	return t
}

func (t responsesTool) equal(u responsesTool) bool {
	return t.Type == u.Type && t.Name == u.Name && t.Description == u.Description &&
		bytes.Equal(t.Parameters, u.Parameters) && t.Strict == u.Strict
}

func (t responsesTool) detached() responsesTool {
	t.Parameters = bytes.Clone(t.Parameters)
	return t
}

// toolsCacheSize bounds the lists kept: a session has one or a few (the
// list changes when an MCP server or an extension adds tools).
const toolsCacheSize = 8

// toolsCache holds the lists written last, newest first; an entry's tools
// are a []T of one wire's tool type, so a list is only ever found by the
// wire that wrote it.
var toolsCache struct {
	sync.Mutex
	entries []toolsEntry
}

type toolsEntry struct {
	tools any    // []T, detached
	json  []byte // its JSON array
}

// toolsJSON is the JSON array of tools, from the cache when the same list
// was written before.
func toolsJSON[T wireTool[T]](tools []T) ([]byte, error) {
	toolsCache.Lock()
	for _, e := range toolsCache.entries {
		if l, ok := e.tools.([]T); ok && slices.EqualFunc(l, tools, T.equal) {
			toolsCache.Unlock()
			return e.json, nil
		}
	}
	toolsCache.Unlock()
	b, err := json.Marshal(tools)
	if err != nil {
		return nil, err
	}
	kept := make([]T, len(tools))
	for i, t := range tools {
		kept[i] = t.detached()
	}
	toolsCache.Lock()
	if len(toolsCache.entries) >= toolsCacheSize {
		toolsCache.entries = toolsCache.entries[:toolsCacheSize-1]
	}
	toolsCache.entries = slices.Insert(toolsCache.entries, 0, toolsEntry{kept, b})
	toolsCache.Unlock()
	return b, nil
}

// marshalWithTools is json.Marshal of body, a struct whose field *tools
// is tagged `json:"tools,omitempty"`, with the tools written by
// toolsJSON: the body is marshalled without them and the array is added
// as its last member. The body's tools are as they were on return.
func marshalWithTools[T wireTool[T]](body any, tools *[]T) ([]byte, error) {
	list := *tools
	if len(list) == 0 {
		return json.Marshal(body)
	}
	arr, err := toolsJSON(list)
	if err != nil {
		return nil, err
	}
	*tools = nil
	b, err := json.Marshal(body)
	*tools = list
	if err != nil {
		return nil, err
	}
	return spliceMember(b, "tools", arr), nil
}

// spliceMember adds "name":value as the last member of the JSON object
// obj (as json.Marshal writes one: no space before its closing brace).
func spliceMember(obj []byte, name string, value []byte) []byte {
	end := len(obj) - 1 // the '}'
	out := make([]byte, 0, len(obj)+len(name)+len(value)+4)
	out = append(out, obj[:end]...)
	if end > 1 {
		out = append(out, ',')
	}
	out = append(out, '"')
	out = append(out, name...)
	out = append(out, '"', ':')
	out = append(out, value...)
	return append(out, '}')
}
