package provider

import (
	"encoding/binary"
	"encoding/json"
	"sync"
)

// A request carries the same tool definitions turn after turn, and
// encoding/json scans every byte of a json.RawMessage it writes (the
// schemas are most of a request's first bytes). marshalWithTools writes
// the tools' JSON once per distinct list and adds it to each body as is.

// wireTool is a tool as one wire writes it: appendKey appends what its
// JSON depends on, unambiguously, starting with a byte of its own type
// (the same tool is other JSON on another wire).
type wireTool interface {
	appendKey(b []byte) []byte
}

func appendField[S string | json.RawMessage](b []byte, s S) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func (t anthropicTool) appendKey(b []byte) []byte {
	b = appendField(appendField(appendField(append(b, 'a'), t.Name), t.Description), t.InputSchema)
	if t.CacheControl != nil {
		b = appendField(b, t.CacheControl.Type)
	}
	return append(b, 0)
}

func (t chatTool) appendKey(b []byte) []byte {
	b = appendField(appendField(appendField(appendField(append(b, 'c'), t.Type), t.Function.Name), t.Function.Description), t.Function.Parameters)
	return append(b, 0)
}

func (t responsesTool) appendKey(b []byte) []byte {
	b = appendField(appendField(appendField(appendField(append(b, 'r'), t.Type), t.Name), t.Description), t.Parameters)
	if t.Strict {
		b = append(b, 1)
	}
	return append(b, 0)
}

// toolsCacheSize bounds the lists kept: a session has one or a few (the
// list changes when an MCP server or an extension adds tools).
const toolsCacheSize = 8

var toolsCache struct {
	sync.Mutex
	lists map[string][]byte // key of the list → its JSON array
}

// toolsJSON is the JSON array of tools, from the cache when the same list
// was written before.
func toolsJSON[T wireTool](tools []T) ([]byte, error) {
	key := make([]byte, 0, 32<<10)
	for _, t := range tools {
		key = t.appendKey(key)
	}
	toolsCache.Lock()
	b, ok := toolsCache.lists[string(key)]
	toolsCache.Unlock()
	if ok {
		return b, nil
	}
	b, err := json.Marshal(tools)
	if err != nil {
		return nil, err
	}
	toolsCache.Lock()
	if toolsCache.lists == nil || len(toolsCache.lists) >= toolsCacheSize {
		toolsCache.lists = make(map[string][]byte, toolsCacheSize)
	}
	toolsCache.lists[string(key)] = b
	toolsCache.Unlock()
	return b, nil
}

// marshalWithTools is json.Marshal of body, a struct whose field *tools
// is tagged `json:"tools,omitempty"`, with the tools written by
// toolsJSON: the body is marshalled without them and the array is added
// as its last member. The body's tools are as they were on return.
func marshalWithTools[T wireTool](body any, tools *[]T) ([]byte, error) {
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
