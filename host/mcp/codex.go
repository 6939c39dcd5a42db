package mcp

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
)

// Codex keeps its MCP servers in ~/.codex/config.toml, one table per
// server:
//
//	[mcp_servers.docs]
//	command = "npx"
//	args = ["-y", "docs-server"]
//	env = { API_KEY = "..." }
//	startup_timeout_sec = 20
//	tool_timeout_sec = 60
//
//	[mcp_servers.linear]
//	url = "https://mcp.linear.app/mcp"
//	bearer_token_env_var = "LINEAR_TOKEN"
//
// zut reads them as servers of the user's own (OriginCodex, below the
// other files: a server of the same name in mcp.json or .mcp.json wins).
// zut has one timeout per request, the initialize request included, so a
// server's Timeout is the larger of startup_timeout_sec and
// tool_timeout_sec. The file's model and model_provider are not adopted:
// Config.Notes says so.

// OriginCodex: ~/.codex/config.toml.
const OriginCodex Origin = "codex"

// CodexFile is Codex's configuration file under the home directory.
func CodexFile(userHome string) string { return filepath.Join(userHome, ".codex", "config.toml") }

// parseCodex reads the servers of a Codex config.toml and the notes on
// what zut does not adopt from it.
func parseCodex(data []byte, path string, getenv func(string) string) ([]ServerConfig, []string, error) {
	doc, err := ParseTOML(data)
	if err != nil {
		return nil, nil, fmt.Errorf("parse Codex config %s: %v; zut reads its [mcp_servers] only once it parses", path, err)
	}
	var notes []string
	var adopted []string
	for _, k := range []string{"model", "model_provider"} {
		if v, ok := doc[k].(string); ok && v != "" {
			adopted = append(adopted, fmt.Sprintf("%s = %q", k, v))
		}
	}
	if len(adopted) > 0 {
		notes = append(notes, fmt.Sprintf("%s sets %s; zut does not adopt it (choose a model with --model, /model or config.json's \"model\")", path, strings.Join(adopted, ", ")))
	}
	servers, _ := doc["mcp_servers"].(map[string]any)
	names := make([]string, 0, len(servers))
	for name := range servers {
		names = append(names, name)
	}
	sort.Strings(names)
	var out []ServerConfig
	for _, name := range names {
		out = append(out, codexServer(name, servers[name], path, getenv))
	}
	return out, notes, nil
}

// codexServer maps one [mcp_servers.NAME] table onto a server, through
// the JSON form .mcp.json uses, so both are checked alike.
func codexServer(name string, v any, path string, getenv func(string) string) ServerConfig {
	fail := func(format string, a ...any) ServerConfig {
		return ServerConfig{Name: name, Origin: OriginCodex, File: path,
			Err: fmt.Errorf("mcp server %q in %s: %s", name, path, fmt.Sprintf(format, a...))}
	}
	t, ok := v.(map[string]any)
	if !ok {
		return fail("[mcp_servers.%s] is not a table", name)
	}
	r := map[string]any{}
	str := func(k string) (string, bool, error) {
		x, ok := t[k]
		if !ok {
			return "", false, nil
		}
		s, isStr := x.(string)
		if !isStr {
			return "", false, fmt.Errorf("%s must be a string", k)
		}
		return s, true, nil
	}
	strMap := func(k string) (map[string]string, error) {
		x, ok := t[k]
		if !ok {
			return nil, nil
		}
		m, ok := x.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s must be a table of strings", k)
		}
		out := map[string]string{}
		for mk, mv := range m {
			s, ok := mv.(string)
			if !ok {
				return nil, fmt.Errorf("%s.%s must be a string", k, mk)
			}
			out[mk] = s
		}
		return out, nil
	}
	strList := func(k string) ([]string, error) {
		x, ok := t[k]
		if !ok {
			return nil, nil
		}
		l, ok := x.([]any)
		if !ok {
			return nil, fmt.Errorf("%s must be an array of strings", k)
		}
		out := []string{}
		for _, e := range l {
			s, ok := e.(string)
			if !ok {
				return nil, fmt.Errorf("%s must be an array of strings", k)
			}
			out = append(out, s)
		}
		return out, nil
	}
	seconds := func(k string) (float64, error) {
		switch x := t[k].(type) {
		case nil:
			return 0, nil
		case int64:
			return float64(x), nil
		case float64:
			return x, nil
		}
		return 0, fmt.Errorf("%s must be a number of seconds", k)
	}
	var errs []string
	check := func(err error) {
		if err != nil {
			errs = append(errs, err.Error())
		}
	}
	if s, ok, err := str("command"); ok {
		r["command"] = s
	} else {
		check(err)
	}
	if s, ok, err := str("url"); ok {
		r["url"] = s
	} else {
		check(err)
	}
	if s, ok, err := str("cwd"); ok {
		r["cwd"] = s
	} else {
		check(err)
	}
	args, err := strList("args")
	check(err)
	if args != nil {
		r["args"] = args
	}
	env, err := strMap("env")
	check(err)
	if env != nil {
		r["env"] = env
	}
	headers, err := strMap("http_headers")
	check(err)
	envHeaders, err := strMap("env_http_headers")
	check(err)
	for h, envVar := range envHeaders {
		if headers == nil {
			headers = map[string]string{}
		}
		headers[h] = "${" + envVar + "}"
	}
	if tok, ok, err := str("bearer_token_env_var"); ok && tok != "" {
		if headers == nil {
			headers = map[string]string{}
		}
		headers["Authorization"] = "Bearer ${" + tok + "}"
	} else {
		check(err)
	}
	if headers != nil {
		r["headers"] = headers
	}
	enabled, err := strList("enabled_tools")
	check(err)
	if enabled != nil {
		r["allowed_tools"] = enabled
	}
	disabled, err := strList("disabled_tools")
	check(err)
	if disabled != nil {
		r["disabled_tools"] = disabled
	}
	switch x := t["enabled"].(type) {
	case nil:
	case bool:
		r["enabled"] = x
	default:
		errs = append(errs, "enabled must be true or false")
	}
	start, err := seconds("startup_timeout_sec")
	check(err)
	tool, err := seconds("tool_timeout_sec")
	check(err)
	if ms, ok := t["startup_timeout_ms"].(int64); ok && start == 0 {
		start = float64(ms) / 1000
	}
	if d := max(start, tool); d > 0 {
		r["timeout"] = d
	}
	if len(errs) > 0 {
		return fail("%s", strings.Join(errs, "; "))
	}
	raw, err := json.Marshal(r)
	if err != nil {
		return fail("%v", err)
	}
	return parseServer(name, raw, path, OriginCodex, getenv, "")
}
