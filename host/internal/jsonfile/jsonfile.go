// Package jsonfile edits the JSON files zut rewrites for the user
// (extension.json's "enabled", the "mcpServers" of an MCP configuration,
// the trust and OAuth stores): a JSON object split into its members in the
// file's order, so that a rewrite keeps every key it does not touch
// (proto/regular's WriteAtomic then replaces the file). host and host/mcp
// share it.
package jsonfile

import (
	"bytes"
	"encoding/json"
	"errors"
)

// Member is one member of a JSON object.
type Member struct {
	Key   string
	Value json.RawMessage
}

// Members splits the JSON object in data into its members, in order.
// Anything but one object (another value, or data after the object) is an
// error; a *json.SyntaxError keeps its offset.
func Members(data []byte) ([]Member, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("not a JSON object")
	}
	var out []Member
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		out = append(out, Member{key, v})
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(data[dec.InputOffset():])) > 0 {
		return nil, errors.New("data after the object")
	}
	return out, nil
}

// Encode writes members as a JSON object indented by two spaces, each
// line after the first prefixed with indent (the object's own place in an
// enclosing one). An empty list is "{}".
func Encode(members []Member, indent string) []byte {
	if len(members) == 0 {
		return []byte("{}")
	}
	var b bytes.Buffer
	b.WriteString("{\n")
	for i, m := range members {
		b.WriteString(indent + "  ")
		b.Write(quote(m.Key))
		b.WriteString(": ")
		var v bytes.Buffer
		if err := json.Indent(&v, m.Value, indent+"  ", "  "); err != nil {
			b.Write(m.Value)
		} else {
			b.Write(v.Bytes())
		}
		if i < len(members)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString(indent + "}")
	return b.Bytes()
}

// quote encodes s as a JSON string, without the HTML escapes of
// json.Marshal (a key with "<" stays readable).
func quote(s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s) // a string always encodes
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}
