package provider

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
)

// authEntry is one provider's saved credentials in auth.json:
//
//	{"anthropic": {"api_key": "sk-ant-..."}, "openai": {"api_key": "sk-..."}}
type authEntry struct {
	APIKey string `json:"api_key"`
}

// AuthPath is the credentials file under the zut home directory.
func AuthPath(home string) string { return filepath.Join(home, "auth.json") }

// readAuth loads auth.json. A missing file is empty. A file other users can
// read is refused: the keys in it would no longer be secret.
func readAuth(home string) (map[string]authEntry, error) {
	if home == "" {
		return nil, nil
	}
	path := AuthPath(home)
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %v", path, err)
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("read %s: the file is readable by other users (mode %04o), so zut will not use the keys in it — run chmod 600 %s", path, fi.Mode().Perm(), path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %v", path, err)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("read %s: %v — the file should map provider names to {\"api_key\": \"...\"}", path, err)
	}
	// Unknown fields are an error, as in models.json: a typo ("apikey")
	// must not leave a key silently unused.
	entries := make(map[string]authEntry, len(raw))
	var names []string
	for name := range raw {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		var e authEntry
		dec := json.NewDecoder(bytes.NewReader(raw[name]))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&e); err != nil {
			return nil, fmt.Errorf("read %s: %s: %v — each provider takes {\"api_key\": \"...\"}", path, name, err)
		}
		entries[name] = e
	}
	return entries, nil
}

// SaveAPIKey stores key for provider in home's auth.json, creating the
// directory (0700) and the file (0600) as needed and keeping other entries.
// The file is replaced atomically. An empty key removes the entry.
func SaveAPIKey(home, provider, key string) error {
	if home == "" {
		return errors.New("save API key: no zut home directory; set ZUT_HOME")
	}
	if err := os.MkdirAll(home, 0o700); err != nil {
		return fmt.Errorf("save API key: %v", err)
	}
	entries, err := readAuth(home)
	if err != nil {
		return fmt.Errorf("save API key: %w", err)
	}
	if entries == nil {
		entries = map[string]authEntry{}
	}
	if key == "" {
		delete(entries, provider)
	} else {
		entries[provider] = authEntry{APIKey: key}
	}
	data, err := json.MarshalIndent(entries, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(home, ".auth-*.json")
	if err != nil {
		return fmt.Errorf("save API key: %v", err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil && runtime.GOOS != "windows" {
		tmp.Close()
		return fmt.Errorf("save API key: %v", err)
	}
	if _, err := tmp.Write(append(data, '\n')); err != nil {
		tmp.Close()
		return fmt.Errorf("save API key: %v", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("save API key: %v", err)
	}
	if err := os.Rename(tmp.Name(), AuthPath(home)); err != nil {
		return fmt.Errorf("save API key: %v", err)
	}
	return nil
}
