package mcp

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// MaxConfigSize is the largest configuration file zut reads.
const MaxConfigSize = 1 << 20

// Origin says which configuration file a server comes from.
type Origin string

const (
	OriginGlobal  Origin = "global"  // $ZUT_HOME/mcp.json
	OriginProject Origin = "project" // .mcp.json in the project directory
	OriginFlag    Origin = "flag"    // --mcp-config FILE, for one run
)

// ServerConfig is one server of the configuration, with ${VAR}
// references expanded.
type ServerConfig struct {
	Name   string
	Origin Origin
	File   string // the file it was read from

	Transport string            // "stdio", "http" or "sse"
	Command   string            // stdio
	Args      []string          // stdio
	Env       map[string]string // stdio: added to zut's environment
	Dir       string            // stdio: working directory ("" is the project directory)
	URL       string            // http, sse
	Headers   map[string]string // http, sse: sent with every request

	// zut's own keys.
	AllowedTools  []string      // when not nil, only these tools are offered
	DisabledTools []string      // these tools are never offered
	Enabled       bool          // false: listed but not started
	Timeout       time.Duration // per request ("tool_timeout_sec", "timeout"); 0 takes the Manager's default
	StartTimeout  time.Duration // start to ready ("startup_timeout_sec"); 0 takes the Manager's default
	OAuth         *OAuthConfig  // a pre-registered OAuth client, or nil

	// Digest identifies the definition as written (before expansion), so
	// that a user's trust in a project server can be remembered until the
	// definition changes: "sha256:" and 64 hex digits.
	Digest string
	// Err is why the entry cannot be used; such a server is listed and
	// never started.
	Err error
}

// OAuthConfig is the "oauth" key of an HTTP server: a client registered
// with the authorization server beforehand (used instead of dynamic
// client registration), and the grant zut uses to get tokens.
type OAuthConfig struct {
	ClientID     string `json:"client_id,omitempty"`
	ClientSecret string `json:"client_secret,omitempty"`
	Scope        string `json:"scope,omitempty"`

	// Grant is how zut gets a token: "authorization_code" (the default:
	// the user approves in a browser), "client_credentials" (a machine
	// client with a secret or a private key, no user; SEP-1046), or
	// "cross_app" (Enterprise-Managed Authorization, SEP-990: an ID token
	// of the enterprise identity provider is exchanged there for an
	// identity assertion, which the server's authorization server turns
	// into an access token).
	Grant string `json:"grant,omitempty"`
	// TokenEndpointAuthMethod overrides how the client authenticates at
	// the token endpoint: "client_secret_basic", "client_secret_post",
	// "private_key_jwt" or "none". Empty: what the registration says,
	// else what the authorization server supports.
	TokenEndpointAuthMethod string `json:"token_endpoint_auth_method,omitempty"`
	// PrivateKey is a PEM private key (PKCS #8, or SEC 1 / PKCS #1) that
	// signs the client assertion of private_key_jwt; PrivateKeyFile names
	// a file holding one. SigningAlgorithm is ES256 (the default), ES384
	// or RS256.
	PrivateKey       string `json:"private_key,omitempty"`
	PrivateKeyFile   string `json:"private_key_file,omitempty"`
	SigningAlgorithm string `json:"signing_algorithm,omitempty"`
	// ClientMetadataURL is an https URL where zut's client metadata
	// document is published (Client ID Metadata Documents); when the
	// authorization server supports them, it is the client id and no
	// registration happens.
	ClientMetadataURL string `json:"client_metadata_url,omitempty"`
	// IDP is the identity provider of the cross_app grant.
	IDP *IDPConfig `json:"idp,omitempty"`
}

// The grants of OAuthConfig.Grant.
const (
	GrantAuthorizationCode = "authorization_code"
	GrantClientCredentials = "client_credentials"
	GrantCrossApp          = "cross_app"
)

// IDPConfig is the enterprise identity provider of the cross_app grant:
// its token endpoint (RFC 8693 token exchange), zut's client id there,
// and the user's ID token from it (usually "${VAR}" from the environment,
// as a single sign-on tool leaves it).
type IDPConfig struct {
	Issuer        string `json:"issuer,omitempty"`
	TokenEndpoint string `json:"token_endpoint"`
	ClientID      string `json:"client_id,omitempty"`
	ClientSecret  string `json:"client_secret,omitempty"`
	IDToken       string `json:"id_token"`
}

// Config is the merged configuration: every server by name, a later file
// overriding an earlier one (global, then project, then --mcp-config).
type Config struct {
	Servers  []ServerConfig // sorted by name
	Problems []error        // files that could not be read; each names its file
	// Notes say what a file holds that zut does not adopt (Codex's
	// model), to be shown once.
	Notes []string
}

// Server returns the server called name.
func (c *Config) Server(name string) (ServerConfig, bool) {
	for _, s := range c.Servers {
		if s.Name == name {
			return s, true
		}
	}
	return ServerConfig{}, false
}

// LoadOptions say where configuration files are.
type LoadOptions struct {
	Home   string   // $ZUT_HOME: mcp.json
	CWD    string   // the project directory: .mcp.json
	Flags  []string // --mcp-config files, in order
	Getenv func(string) string
	// CodexFile is Codex's ~/.codex/config.toml ("" reads none): its
	// [mcp_servers] come before every other file's (codex.go).
	CodexFile string
}

// GlobalFile and ProjectFile are the two configuration files of a scope.
func GlobalFile(home string) string { return filepath.Join(home, "mcp.json") }
func ProjectFile(cwd string) string { return filepath.Join(cwd, ".mcp.json") }

// LoadConfig reads the configuration. A missing file is no error. A file
// of the project or global scope that cannot be read or parsed is a
// Problem and its servers are skipped; a --mcp-config file that cannot be
// read is an error, since the user named it for this run.
func LoadConfig(opts LoadOptions) (*Config, error) {
	getenv := opts.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	byName := map[string]ServerConfig{}
	cfg := &Config{}
	type source struct {
		path   string
		origin Origin
	}
	if opts.CodexFile != "" {
		data, err := ReadConfigFile(opts.CodexFile)
		switch {
		case errors.Is(err, os.ErrNotExist):
		case err != nil:
			cfg.Problems = append(cfg.Problems, err)
		default:
			servers, notes, err := parseCodex(data, opts.CodexFile, getenv)
			if err != nil {
				cfg.Problems = append(cfg.Problems, err)
			}
			cfg.Notes = append(cfg.Notes, notes...)
			for _, s := range servers {
				byName[s.Name] = s
			}
		}
	}
	var sources []source
	if opts.Home != "" {
		sources = append(sources, source{GlobalFile(opts.Home), OriginGlobal})
	}
	if opts.CWD != "" {
		sources = append(sources, source{ProjectFile(opts.CWD), OriginProject})
	}
	for _, f := range opts.Flags {
		sources = append(sources, source{f, OriginFlag})
	}
	for _, src := range sources {
		data, err := ReadConfigFile(src.path)
		if err != nil {
			if src.origin != OriginFlag && errors.Is(err, os.ErrNotExist) {
				continue
			}
			if src.origin == OriginFlag {
				return nil, err
			}
			cfg.Problems = append(cfg.Problems, err)
			continue
		}
		servers, err := parseConfig(data, src.path, src.origin, getenv, opts.CWD)
		if err != nil {
			if src.origin == OriginFlag {
				return nil, err
			}
			cfg.Problems = append(cfg.Problems, err)
			continue
		}
		for _, s := range servers {
			byName[s.Name] = s
		}
	}
	for _, s := range byName {
		cfg.Servers = append(cfg.Servers, s)
	}
	sort.Slice(cfg.Servers, func(i, j int) bool { return cfg.Servers[i].Name < cfg.Servers[j].Name })
	return cfg, nil
}

// ReadConfigFile reads a configuration file: a regular file (a symlink to
// one is fine) of at most MaxConfigSize bytes. A FIFO, a device or a
// directory is an error, and opening never waits for a writer.
func ReadConfigFile(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("read mcp config %s: %w", path, os.ErrNotExist)
		}
		return nil, fmt.Errorf("read mcp config %s: %w", path, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("read mcp config %s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		what := "not a regular file"
		if fi.IsDir() {
			what = "a directory"
		} else if fi.Mode()&os.ModeNamedPipe != 0 {
			what = "a named pipe"
		}
		return nil, fmt.Errorf("read mcp config %s: it is %s; it must be a JSON file", path, what)
	}
	if fi.Size() > MaxConfigSize {
		return nil, fmt.Errorf("read mcp config %s: %d bytes is more than the %d-byte limit", path, fi.Size(), MaxConfigSize)
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxConfigSize+1))
	if err != nil {
		return nil, fmt.Errorf("read mcp config %s: %w", path, err)
	}
	if len(data) > MaxConfigSize {
		return nil, fmt.Errorf("read mcp config %s: more than the %d-byte limit", path, MaxConfigSize)
	}
	return data, nil
}

// rawServer is one entry of "mcpServers" as written.
type rawServer struct {
	Type          string            `json:"type"`
	Command       string            `json:"command"`
	Args          []string          `json:"args"`
	Env           map[string]string `json:"env"`
	CWD           string            `json:"cwd"`
	URL           string            `json:"url"`
	Headers       map[string]string `json:"headers"`
	AllowedTools  []string          `json:"allowed_tools"`
	DisabledTools []string          `json:"disabled_tools"`
	Enabled       *bool             `json:"enabled"`
	Timeout       json.RawMessage   `json:"timeout"`
	ToolTimeout   json.RawMessage   `json:"tool_timeout_sec"`    // Codex's name
	StartTimeout  json.RawMessage   `json:"startup_timeout_sec"` // Codex's name
	OAuth         *OAuthConfig      `json:"oauth"`
}

func parseConfig(data []byte, path string, origin Origin, getenv func(string) string, project string) ([]ServerConfig, error) {
	var top struct {
		Servers map[string]json.RawMessage `json:"mcpServers"`
	}
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, fmt.Errorf("parse mcp config %s: %v; it must be a JSON object with \"mcpServers\"", path, err)
	}
	var out []ServerConfig
	for name, raw := range top.Servers {
		out = append(out, parseServer(name, raw, path, origin, getenv, project))
	}
	return out, nil
}

func parseServer(name string, raw json.RawMessage, path string, origin Origin, getenv func(string) string, project string) ServerConfig {
	s := ServerConfig{Name: name, Origin: origin, File: path, Enabled: true, Digest: digest(name, raw)}
	fail := func(format string, v ...any) ServerConfig {
		s.Err = fmt.Errorf("mcp server %q in %s: %s", name, path, fmt.Sprintf(format, v...))
		return s
	}
	if strings.TrimSpace(name) == "" {
		return fail("the server name is empty")
	}
	var r rawServer
	if err := json.Unmarshal(raw, &r); err != nil {
		return fail("%v", err)
	}
	if r.Enabled != nil {
		s.Enabled = *r.Enabled
	}
	s.AllowedTools, s.DisabledTools, s.OAuth = r.AllowedTools, r.DisabledTools, r.OAuth
	for _, t := range []struct {
		key string
		raw json.RawMessage
		to  *time.Duration
	}{{"timeout", r.Timeout, &s.Timeout}, {"tool_timeout_sec", r.ToolTimeout, &s.Timeout}, {"startup_timeout_sec", r.StartTimeout, &s.StartTimeout}} {
		if len(t.raw) == 0 || string(t.raw) == "null" {
			continue
		}
		d, err := parseTimeout(t.raw)
		if err != nil {
			return fail("%s: %v", t.key, err)
		}
		*t.to = d
	}
	ex := expander{getenv: getenv}
	if o := r.OAuth; o != nil {
		// Secrets and tokens come from the environment as ${VAR}.
		for _, f := range []*string{&o.ClientID, &o.ClientSecret, &o.Scope, &o.PrivateKey, &o.PrivateKeyFile, &o.ClientMetadataURL} {
			*f = ex.expand(*f)
		}
		if o.IDP != nil {
			for _, f := range []*string{&o.IDP.TokenEndpoint, &o.IDP.ClientID, &o.IDP.ClientSecret, &o.IDP.IDToken, &o.IDP.Issuer} {
				*f = ex.expand(*f)
			}
		}
		switch o.Grant {
		case "", GrantAuthorizationCode, GrantClientCredentials, GrantCrossApp:
		default:
			return fail("oauth: unknown grant %q; use %q, %q or %q", o.Grant, GrantAuthorizationCode, GrantClientCredentials, GrantCrossApp)
		}
	}
	switch r.Type {
	case "", "stdio", "http", "sse", "streamable-http":
	default:
		return fail("unknown type %q; use \"stdio\", \"http\" or \"sse\"", r.Type)
	}
	switch {
	case r.Type == "stdio" || r.Type == "" && r.Command != "":
		if r.Command == "" {
			return fail("a stdio server needs \"command\"")
		}
		s.Transport = "stdio"
		s.Command = ex.expand(r.Command)
		for _, a := range r.Args {
			s.Args = append(s.Args, ex.expand(a))
		}
		if len(r.Env) > 0 {
			s.Env = map[string]string{}
			for k, v := range r.Env {
				s.Env[k] = ex.expand(v)
			}
		}
		if r.CWD != "" {
			s.Dir = ex.expand(r.CWD)
			if !filepath.IsAbs(s.Dir) {
				s.Dir = filepath.Join(filepath.Dir(path), s.Dir)
			}
		}
	case r.URL != "" || r.Type != "":
		if r.URL == "" {
			return fail("a %s server needs \"url\"", r.Type)
		}
		s.Transport = "http"
		if r.Type == "sse" {
			s.Transport = "sse"
		}
		s.URL = ex.expand(r.URL)
		if len(r.Headers) > 0 {
			s.Headers = map[string]string{}
			for k, v := range r.Headers {
				s.Headers[k] = ex.expand(v)
			}
		}
		if err := ex.err(); err != nil {
			return fail("%v", err)
		}
		if err := checkServerURL(s.URL); err != nil {
			return fail("%v", err)
		}
	default:
		return fail("give \"command\" (a local server) or \"url\" (a remote one)")
	}
	if err := ex.err(); err != nil {
		return fail("%v", err)
	}
	return s
}

// parseTimeout reads a timeout: a number of seconds or a Go duration.
func parseTimeout(raw json.RawMessage) (time.Duration, error) {
	var secs float64
	if err := json.Unmarshal(raw, &secs); err == nil {
		if secs <= 0 {
			return 0, fmt.Errorf("%v must be positive", secs)
		}
		return time.Duration(secs * float64(time.Second)), nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return 0, fmt.Errorf("give seconds (120) or a duration (\"2m\")")
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%q is not a positive duration such as \"90s\"", s)
	}
	return d, nil
}

// digest hashes a definition as written, independent of key order and
// spacing.
func digest(name string, raw json.RawMessage) string {
	var v any
	canon := raw
	if json.Unmarshal(raw, &v) == nil {
		if b, err := json.Marshal(v); err == nil {
			canon = b
		}
	}
	sum := sha256.Sum256(append([]byte(name+"\n"), canon...))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// expander expands ${VAR} and ${VAR:-default}; an unset VAR without a
// default is an error (the value is left empty).
type expander struct {
	getenv  func(string) string
	missing []string
}

func (e *expander) expand(s string) string {
	if !strings.Contains(s, "${") {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			b.WriteString(s)
			return b.String()
		}
		inner := s[i+2 : i+j]
		name, def, hasDef := strings.Cut(inner, ":-")
		if !validVarName(name) {
			b.WriteString(s[:i+j+1])
			s = s[i+j+1:]
			continue
		}
		b.WriteString(s[:i])
		v := e.getenv(name)
		switch {
		case v != "":
			b.WriteString(v)
		case hasDef:
			b.WriteString(def)
		default:
			e.missing = append(e.missing, name)
		}
		s = s[i+j+1:]
	}
}

func (e *expander) err() error {
	if len(e.missing) == 0 {
		return nil
	}
	var uniq []string
	for _, m := range e.missing {
		if !contains(uniq, m) {
			uniq = append(uniq, m)
		}
	}
	return fmt.Errorf("${%s} is not set; set it, or write ${%s:-default}", strings.Join(uniq, "}, ${"), uniq[0])
}

func validVarName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if r == '_' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || i > 0 && r >= '0' && r <= '9' {
			continue
		}
		return false
	}
	return true
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// checkServerURL accepts http and https URLs with a host and no fragment.
func checkServerURL(raw string) error {
	_, err := parseURL(raw)
	return err
}

// isJSONObject reports whether data is a JSON object.
func isJSONObject(data []byte) bool {
	data = bytes.TrimSpace(data)
	return len(data) > 0 && data[0] == '{' && json.Valid(data)
}
