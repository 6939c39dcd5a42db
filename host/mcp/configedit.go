package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// member is one member of a JSON object, kept in the file's order.
type member struct {
	key   string
	value json.RawMessage
}

// decodeObject reads a JSON object into its members, in order.
func decodeObject(data []byte) ([]member, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("not a JSON object")
	}
	var out []member
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
		out = append(out, member{key, v})
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	return out, nil
}

// encodeObject writes members as an indented JSON object.
func encodeObject(members []member, indent string) []byte {
	if len(members) == 0 {
		return []byte("{}")
	}
	var b bytes.Buffer
	b.WriteString("{\n")
	for i, m := range members {
		b.WriteString(indent + "  " + strconv.Quote(m.key) + ": ")
		var v bytes.Buffer
		if err := json.Indent(&v, m.value, indent+"  ", "  "); err != nil {
			b.Write(m.value)
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

// editServers applies edit to the "mcpServers" members of the file at
// path and writes it back atomically, keeping every other key and the
// order of the members. A missing file starts empty.
func editServers(path string, perm os.FileMode, edit func([]member) ([]member, error)) error {
	data, err := ReadConfigFile(path)
	if errors.Is(err, os.ErrNotExist) {
		data, err = []byte("{}"), nil
	}
	if err != nil {
		return err
	}
	top, err := decodeObject(data)
	if err != nil {
		return fmt.Errorf("edit mcp config %s: %v; fix or remove the file", path, err)
	}
	idx := -1
	for i, m := range top {
		if m.key == "mcpServers" {
			idx = i
		}
	}
	var servers []member
	if idx >= 0 {
		if servers, err = decodeObject(top[idx].value); err != nil {
			return fmt.Errorf("edit mcp config %s: \"mcpServers\": %v", path, err)
		}
	}
	if servers, err = edit(servers); err != nil {
		return err
	}
	val := encodeObject(servers, "  ")
	if idx >= 0 {
		top[idx].value = val
	} else {
		top = append(top, member{"mcpServers", val})
	}
	// encodeObject re-indents values; the servers object is already
	// indented for its place, so compact it first.
	var compact bytes.Buffer
	if err := json.Compact(&compact, val); err == nil {
		for i := range top {
			if top[i].key == "mcpServers" {
				top[i].value = compact.Bytes()
			}
		}
	}
	out := append(encodeObject(top, ""), '\n')
	if fi, err := os.Stat(path); err == nil {
		perm = fi.Mode().Perm()
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return writeFileAtomic(path, out, perm)
}

// AddServer adds the server name, defined by entry (a JSON object such as
// {"command": "npx", "args": [...]}), to the configuration file at path,
// which is created with mode perm when missing. A server of that name
// already there is an error.
func AddServer(path, name string, entry json.RawMessage, perm os.FileMode) error {
	if !isJSONObject(entry) {
		return fmt.Errorf("add mcp server %q: the definition is not a JSON object", name)
	}
	return editServers(path, perm, func(ms []member) ([]member, error) {
		for _, m := range ms {
			if m.key == name {
				return nil, fmt.Errorf("add mcp server %q: %s already has a server of that name; remove it first with `zut mcp remove %s`", name, path, name)
			}
		}
		return append(ms, member{name, entry}), nil
	})
}

// RemoveServer removes the server name from the file at path; found is
// false (and nothing is written) when it is not there.
func RemoveServer(path, name string) (found bool, err error) {
	if _, err := ReadConfigFile(path); errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	errNotFound := errors.New("not found")
	err = editServers(path, 0o644, func(ms []member) ([]member, error) {
		for i, m := range ms {
			if m.key == name {
				return append(ms[:i:i], ms[i+1:]...), nil
			}
		}
		return nil, errNotFound
	})
	if errors.Is(err, errNotFound) {
		return false, nil
	}
	return err == nil, err
}

// HasServer reports whether the file at path defines the server name.
func HasServer(path, name string) bool {
	data, err := ReadConfigFile(path)
	if err != nil {
		return false
	}
	var top struct {
		Servers map[string]json.RawMessage `json:"mcpServers"`
	}
	if json.Unmarshal(data, &top) != nil {
		return false
	}
	_, ok := top.Servers[name]
	return ok
}
