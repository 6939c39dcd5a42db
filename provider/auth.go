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
	"time"
)

// authEntry is one provider's saved credentials in auth.json: an API key,
// or a subscription sign-in in the shape pi writes (so a pi user can copy
// theirs):
//
//	{"openai": {"api_key": "sk-..."},
//	 "anthropic": {"type": "oauth", "access": "...", "refresh": "...", "expires": 1767225600000}}
//
// Expires is in milliseconds since the epoch. pi's API key shape,
// {"type": "api_key", "key": "..."}, is read too.
type authEntry struct {
	APIKey string `json:"api_key,omitempty"`

	Type    string `json:"type,omitempty"` // "oauth", "api_key" (pi's), or "" with api_key
	Key     string `json:"key,omitempty"`  // pi's api_key entries
	Access  string `json:"access,omitempty"`
	Refresh string `json:"refresh,omitempty"`
	Expires int64  `json:"expires,omitempty"`
	// AccountID is the ChatGPT account a Codex request names
	// (chatgpt-account-id); Account is what the provider said about the
	// account (an email address), for zut auth status.
	AccountID string `json:"accountId,omitempty"`
	Account   string `json:"account,omitempty"`
}

// key is the entry's API key ("" for a sign-in).
func (e authEntry) key() string {
	if e.Type == "api_key" && e.APIKey == "" {
		return e.Key
	}
	if e.Type == "" {
		return e.APIKey
	}
	return ""
}

// oauth reports whether the entry is a subscription sign-in.
func (e authEntry) oauth() bool { return e.Type == "oauth" }

// usable reports whether the entry holds a credential zut can send.
func (e authEntry) usable() bool {
	return e.key() != "" || (e.oauth() && (e.Access != "" || e.Refresh != ""))
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
	return parseAuth(path, data)
}

// parseAuth decodes the bytes of auth.json.
func parseAuth(path string, data []byte) (map[string]authEntry, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("read %s: %v — the file should map provider names to {\"api_key\": \"...\"}", path, err)
	}
	entries := make(map[string]authEntry, len(raw))
	var names []string
	for name := range raw {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		var probe struct {
			Type string `json:"type"`
		}
		if err := json.Unmarshal(raw[name], &probe); err != nil {
			return nil, fmt.Errorf("read %s: %s: %v — each provider takes {\"api_key\": \"...\"}", path, name, err)
		}
		var e authEntry
		dec := json.NewDecoder(bytes.NewReader(raw[name]))
		// Unknown fields of a key entry are an error, as in models.json: a
		// typo ("apikey") must not leave a key silently unused. A sign-in
		// copied from another tool may carry fields of its own.
		if probe.Type == "" {
			dec.DisallowUnknownFields()
		}
		if err := dec.Decode(&e); err != nil {
			return nil, fmt.Errorf("read %s: %s: %v — each provider takes {\"api_key\": \"...\"} or a sign-in {\"type\": \"oauth\", ...}", path, name, err)
		}
		switch e.Type {
		case "", "oauth", "api_key":
		default:
			return nil, fmt.Errorf("read %s: %s: unknown type %q — use \"oauth\" for a sign-in, or {\"api_key\": \"...\"}", path, name, e.Type)
		}
		entries[name] = e
	}
	return entries, nil
}

// updateAuth reads home's auth.json, lets edit change the entries and
// writes the file back atomically (temporary file and rename, mode 0600),
// creating the directory (0700) as needed. op names the change in errors.
func updateAuth(home, op string, edit func(map[string]authEntry) error) error {
	if home == "" {
		return fmt.Errorf("%s: no zut home directory; set ZUT_HOME", op)
	}
	if err := os.MkdirAll(home, 0o700); err != nil {
		return fmt.Errorf("%s: %v", op, err)
	}
	entries, err := readAuth(home)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	if entries == nil {
		entries = map[string]authEntry{}
	}
	if err := edit(entries); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	data, err := json.MarshalIndent(entries, "", "  ")
	if err != nil {
		return err
	}
	// WriteFile keeps the mode of an existing file, and readAuth above
	// refused one that others may read, so the file stays 0600.
	if err := WriteFile(AuthPath(home), append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	return nil
}

// SaveAPIKey stores key for provider in home's auth.json, creating the
// directory (0700) and the file (0600) as needed and keeping other entries.
// The file is replaced atomically. An empty key removes the entry. A
// saved key replaces a subscription sign-in of the same provider.
func SaveAPIKey(home, provider, key string) error {
	return updateAuth(home, "save API key", func(entries map[string]authEntry) error {
		if key == "" {
			delete(entries, provider)
		} else {
			entries[provider] = authEntry{APIKey: key}
		}
		return nil
	})
}

// Credential is what auth.json holds for one provider, for zut auth
// status and logout. Secrets are masked.
type Credential struct {
	Provider string
	// Kind is "key" or "subscription".
	Kind string
	// Masked is the key or access token, masked (see MaskKey).
	Masked string
	// Account is the account the provider named at sign-in ("" when it
	// said nothing).
	Account string
	// Expires is when the access token of a sign-in expires (zero for keys
	// and when unknown); zut renews it with the refresh token.
	Expires time.Time
	// Renewable reports whether a sign-in has a refresh token.
	Renewable bool
}

// SavedCredentials lists what home's auth.json holds, by provider name.
// The error says what is wrong with the file.
func SavedCredentials(home string) (map[string]Credential, error) {
	entries, err := readAuth(home)
	out := map[string]Credential{}
	for name, e := range entries {
		c := Credential{Provider: name}
		switch {
		case e.oauth():
			c.Kind, c.Masked, c.Account, c.Renewable = "subscription", MaskKey(e.Access), e.Account, e.Refresh != ""
			if e.Expires > 0 {
				c.Expires = time.UnixMilli(e.Expires)
			}
		case e.key() != "":
			c.Kind, c.Masked = "key", MaskKey(e.key())
		default:
			continue
		}
		out[name] = c
	}
	return out, err
}
