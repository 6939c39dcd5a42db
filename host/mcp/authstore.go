package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/zut-go/zut/proto/regular"
)

// storedAuth is what zut keeps about one server's authorization, in
// $ZUT_HOME/mcp-auth/<server>-<hash>.json (mode 0600, directory 0700):
// the client registration and the tokens. It is never written anywhere
// else and never logged.
type storedAuth struct {
	Resource              string    `json:"resource"` // the MCP server's canonical URL
	Issuer                string    `json:"issuer,omitempty"`
	AuthorizationEndpoint string    `json:"authorization_endpoint,omitempty"`
	TokenEndpoint         string    `json:"token_endpoint,omitempty"`
	ClientID              string    `json:"client_id,omitempty"`
	ClientSecret          string    `json:"client_secret,omitempty"`
	Registered            bool      `json:"registered,omitempty"` // ClientID came from dynamic registration
	AuthMethod            string    `json:"token_endpoint_auth_method,omitempty"`
	Grant                 string    `json:"grant,omitempty"`
	RedirectURI           string    `json:"redirect_uri,omitempty"`
	AccessToken           string    `json:"access_token,omitempty"`
	RefreshToken          string    `json:"refresh_token,omitempty"`
	Expiry                time.Time `json:"expiry,omitzero"`
	Scope                 string    `json:"scope,omitempty"`
}

// AuthFile is where the authorization of the server called name at
// serverURL is stored under home. The URL is part of the name, so that a
// server whose URL changes never gets another server's tokens.
func AuthFile(home, name, serverURL string) string {
	if home == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(serverURL))
	return filepath.Join(home, "mcp-auth", fileName(name)+"-"+hex.EncodeToString(sum[:6])+".json")
}

func loadAuth(path string) (*storedAuth, error) {
	if path == "" {
		return nil, nil
	}
	f, err := os.OpenFile(path, os.O_RDONLY|openNonblock, 0)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("read %s: not a regular file; remove it", path)
	}
	data, err := io.ReadAll(io.LimitReader(f, 256<<10))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	var a storedAuth
	if err := json.Unmarshal(data, &a); err != nil {
		return nil, fmt.Errorf("read %s: %v; remove it to authorize again", path, err)
	}
	return &a, nil
}

// saveAuth writes a atomically with mode 0600.
func saveAuth(path string, a *storedAuth) error {
	if path == "" {
		return nil
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("save authorization: %w", err)
	}
	_ = os.Chmod(dir, 0o700)
	data, err := json.MarshalIndent(a, "", "  ")
	if err != nil {
		return fmt.Errorf("save authorization: %w", err)
	}
	return regular.WriteAtomic(path, append(data, '\n'), 0o600)
}
