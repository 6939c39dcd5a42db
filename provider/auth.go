package provider

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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

// AuthError is an auth.json that zut refused because other users may
// read it: the keys in it are not used.
type AuthError struct {
	Path string
	Mode fs.FileMode
}

func (e *AuthError) Error() string {
	return fmt.Sprintf("read %s: the file is readable by other users (mode %04o), so zut will not use the keys in it — run chmod 600 %s", e.Path, e.Mode, e.Path)
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
	f, err := OpenRegular(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("read %s: %v", path, err)
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm()&0o077 != 0 {
		return nil, &AuthError{Path: path, Mode: fi.Mode().Perm()}
	}
	if fi.Size() > MaxConfigFile {
		return nil, &FileError{Op: "read", Path: path, Limit: MaxConfigFile, Err: ErrTooLarge}
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxConfigFile+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %v", path, err)
	}
	if len(data) > MaxConfigFile {
		return nil, &FileError{Op: "read", Path: path, Limit: MaxConfigFile, Err: ErrTooLarge}
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
	// WriteFile keeps the mode of an existing file, and readAuth above
	// refused one that others may read, so the file stays 0600.
	if err := WriteFile(AuthPath(home), append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("save API key: %w", err)
	}
	return nil
}
