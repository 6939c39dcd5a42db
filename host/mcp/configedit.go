package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/zut-go/zut/host/internal/jsonfile"
	"github.com/zut-go/zut/proto/regular"
)

// editServers applies edit to the "mcpServers" members of the file at
// path and writes it back atomically, keeping every other key and the
// order of the members. A missing file starts empty.
func editServers(path string, perm os.FileMode, edit func([]jsonfile.Member) ([]jsonfile.Member, error)) error {
	data, err := ReadConfigFile(path)
	if errors.Is(err, os.ErrNotExist) {
		data, err = []byte("{}"), nil
	}
	if err != nil {
		return err
	}
	top, err := jsonfile.Members(data)
	if err != nil {
		return fmt.Errorf("edit mcp config %s: %v; fix or remove the file", path, err)
	}
	idx := -1
	for i, m := range top {
		if m.Key == "mcpServers" {
			idx = i
		}
	}
	var servers []jsonfile.Member
	if idx >= 0 {
		if servers, err = jsonfile.Members(top[idx].Value); err != nil {
			return fmt.Errorf("edit mcp config %s: \"mcpServers\": %v", path, err)
		}
	}
	if servers, err = edit(servers); err != nil {
		return err
	}
	val := jsonfile.Encode(servers, "  ")
	if idx >= 0 {
		top[idx].Value = val
	} else {
		top = append(top, jsonfile.Member{Key: "mcpServers", Value: val})
	}
	// Encode re-indents values; the servers object is already
	// indented for its place, so compact it first.
	var compact bytes.Buffer
	if err := json.Compact(&compact, val); err == nil {
		for i := range top {
			if top[i].Key == "mcpServers" {
				top[i].Value = compact.Bytes()
			}
		}
	}
	out := append(jsonfile.Encode(top, ""), '\n')
	if fi, err := os.Stat(path); err == nil {
		perm = fi.Mode().Perm()
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return regular.WriteAtomic(path, out, perm)
}

// AddServer adds the server name, defined by entry (a JSON object such as
// {"command": "npx", "args": [...]}), to the configuration file at path,
// which is created with mode perm when missing. A server of that name
// already there is an error.
func AddServer(path, name string, entry json.RawMessage, perm os.FileMode) error {
	if !isJSONObject(entry) {
		return fmt.Errorf("add mcp server %q: the definition is not a JSON object", name)
	}
	return editServers(path, perm, func(ms []jsonfile.Member) ([]jsonfile.Member, error) {
		for _, m := range ms {
			if m.Key == name {
				return nil, fmt.Errorf("add mcp server %q: %s already has a server of that name; remove it first with `zut mcp remove %s`", name, path, name)
			}
		}
		return append(ms, jsonfile.Member{Key: name, Value: entry}), nil
	})
}

// RemoveServer removes the server name from the file at path; found is
// false (and nothing is written) when it is not there.
func RemoveServer(path, name string) (found bool, err error) {
	if _, err := ReadConfigFile(path); errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	errNotFound := errors.New("not found")
	err = editServers(path, 0o644, func(ms []jsonfile.Member) ([]jsonfile.Member, error) {
		for i, m := range ms {
			if m.Key == name {
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
