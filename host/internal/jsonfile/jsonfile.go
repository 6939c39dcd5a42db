// Package jsonfile edits the JSON files zut rewrites for the user
// (extension.json's "enabled", the "mcpServers" of an MCP configuration,
// the trust and OAuth stores): a JSON object split into its members in the
// file's order, so that a rewrite keeps every key it does not touch, and
// an atomic replacement of the file through a temporary file beside it.
// host and host/mcp share it.
package jsonfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
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

// WriteAtomic replaces path with data: a temporary file in the same
// directory is given mode perm, written, synced and renamed over path, so
// that a reader sees the old file or the new one, never a part. The
// temporary file is removed on any error.
func WriteAtomic(path string, data []byte, perm os.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+"-*.tmp")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	fail := func(err error) error {
		f.Close()
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Chmod(perm); err != nil {
		return fail(err)
	}
	if _, err := f.Write(data); err != nil {
		return fail(err)
	}
	if err := f.Sync(); err != nil {
		return fail(err)
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
