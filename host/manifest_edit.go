package host

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// SetEnabled rewrites dir/extension.json with "enabled" set to enabled,
// keeping every other member, known or not, in its order. The file is
// replaced atomically and keeps its permissions. The manifest must be a
// JSON object; it need not be otherwise valid, so that a broken extension
// can still be disabled.
func SetEnabled(dir string, enabled bool) error {
	file := filepath.Join(dir, ManifestFile)
	data, err := readRegular(file, MaxManifest)
	if err != nil {
		return &ManifestError{File: file, Err: err}
	}
	members, err := orderedMembers(data)
	if err != nil {
		return &ManifestError{File: file, Err: fmt.Errorf("not a JSON object: %s", jsonErrorAt(data, err))}
	}
	value := json.RawMessage("true")
	if !enabled {
		value = json.RawMessage("false")
	}
	found := false
	for i := range members {
		if members[i].key == "enabled" {
			members[i].value, found = value, true
		}
	}
	if !found {
		members = append(members, member{key: "enabled", value: value})
	}
	out, err := encodeMembers(members)
	if err != nil {
		return &ManifestError{File: file, Err: err}
	}
	return writeFileAtomic(file, out)
}

type member struct {
	key   string
	value json.RawMessage
}

// orderedMembers splits a JSON object into its members, in order.
func orderedMembers(data []byte) ([]member, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("starts with %v", tok)
	}
	var members []member
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
		members = append(members, member{key, v})
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err == nil {
		return nil, fmt.Errorf("data after the object")
	}
	return members, nil
}

// encodeMembers writes members as an indented JSON object.
func encodeMembers(members []member) ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteString("{\n")
	for i, m := range members {
		key, err := json.Marshal(m.key)
		if err != nil {
			return nil, err
		}
		var val bytes.Buffer
		if err := json.Indent(&val, m.value, "  ", "  "); err != nil {
			return nil, err
		}
		fmt.Fprintf(&buf, "  %s: %s", key, val.Bytes())
		if i < len(members)-1 {
			buf.WriteByte(',')
		}
		buf.WriteByte('\n')
	}
	buf.WriteString("}\n")
	return buf.Bytes(), nil
}

// writeFileAtomic replaces file with data through a temporary file in the
// same directory, keeping the old file's permissions (0644 for a new one).
func writeFileAtomic(file string, data []byte) error {
	mode := os.FileMode(0o644)
	if fi, err := os.Stat(file); err == nil {
		mode = fi.Mode().Perm()
	}
	return writeFileMode(file, data, mode)
}

// writeFileMode replaces file with data through a temporary file in the
// same directory, giving it mode.
func writeFileMode(file string, data []byte, mode os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(file), "."+filepath.Base(file)+"-*.tmp")
	if err != nil {
		return fmt.Errorf("rewrite %s: %w", file, err)
	}
	defer os.Remove(tmp.Name()) // no-op after the rename
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("rewrite %s: %w", file, err)
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return fmt.Errorf("rewrite %s: %w", file, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("rewrite %s: %w", file, err)
	}
	if err := os.Rename(tmp.Name(), file); err != nil {
		return fmt.Errorf("rewrite %s: %w", file, err)
	}
	return nil
}
