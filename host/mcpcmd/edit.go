package mcpcmd

import (
	"encoding/json"
	"flag"
	"fmt"
	neturl "net/url"
	"os"
	"sort"
	"strings"

	"github.com/zut-go/zut/host/mcp"
)

// nameOK reports whether name can name a server: 1 to 64 letters,
// digits, '_' and '-'.
func nameOK(name string) bool {
	if len(name) < 1 || len(name) > 64 {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// scopeFile is the configuration file of a scope. Claude Code's scope
// names are read too: user is global; local (Claude Code's private
// per-project list) is global as well, since zut has no private
// per-project file (add says so).
func scopeFile(scope string, env Env) (string, os.FileMode, error) {
	switch scope {
	case "project":
		return mcp.ProjectFile(env.CWD), 0o644, nil
	case "global", "user", "local":
		if env.ZutHome == "" {
			return "", 0, fmt.Errorf("zut mcp: no zut home directory; set ZUT_HOME")
		}
		return mcp.GlobalFile(env.ZutHome), 0o600, nil // it may hold secrets in env and headers
	}
	return "", 0, &UsageError{Msg: fmt.Sprintf("zut mcp: --scope must be project or global (or Claude Code's local, project, user), not %q", scope)}
}

// addFlags are the flags of add and add-json, with Claude Code's short
// names.
type addFlags struct {
	scope, url, transport *string
	envs, headers         listValue
}

func newAddFlags(name string, env Env) (*flag.FlagSet, *addFlags) {
	fs := newFlags(name, env)
	f := &addFlags{}
	f.scope = fs.String("scope", "global", "project or global")
	fs.StringVar(f.scope, "s", "global", "project or global (Claude Code's -s)")
	f.url = fs.String("url", "", "the URL of a remote server")
	f.transport = fs.String("transport", "", "http or sse, for a URL")
	fs.StringVar(f.transport, "t", "", "http or sse (Claude Code's -t)")
	fs.Var(&f.envs, "env", "K=V for a local server (repeatable)")
	fs.Var(&f.envs, "e", "K=V (Claude Code's -e)")
	fs.Var(&f.headers, "header", "K: V for a remote server (repeatable)")
	fs.Var(&f.headers, "H", "K: V (Claude Code's -H)")
	return fs, f
}

// isURL reports whether s reads as a server URL rather than a command.
func isURL(s string) bool { return strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://") }

func runAdd(args []string, env Env) error {
	fs, f := newAddFlags("add", env)
	scope, url, transport := f.scope, f.url, f.transport
	pos, command, err := parse(fs, args)
	if err != nil {
		return err
	}
	envs, headers := f.envs, f.headers
	switch {
	case len(pos) == 2 && isURL(pos[1]) && *url == "":
		// Claude Code's zut mcp add --transport http NAME URL.
		*url = pos[1]
		pos = pos[:1]
	case len(pos) > 1 && len(command) == 0 && *url == "":
		// Claude Code's zut mcp add NAME CMD ARGS (without --).
		command = pos[1:]
		pos = pos[:1]
	}
	if len(pos) != 1 {
		return &UsageError{Msg: "usage: zut mcp add <name> [flags] -- <command> [args...]  or  zut mcp add [--transport http|sse] <name> <url>"}
	}
	if *transport == "" {
		*transport = "http"
	} else if *transport == "stdio" && *url == "" {
		*transport = "http" // Claude Code's --transport stdio: a command follows
	}
	name := pos[0]
	if !nameOK(name) {
		return &UsageError{Msg: fmt.Sprintf("zut mcp add: name %q: use letters, digits, '_' and '-' (at most 64)", name)}
	}
	entry := map[string]any{}
	switch {
	case *url != "" && len(command) > 0:
		return &UsageError{Msg: "zut mcp add: give either --url or a command after --, not both"}
	case *url != "":
		if *transport != "http" && *transport != "sse" {
			return &UsageError{Msg: fmt.Sprintf("zut mcp add: --transport must be http or sse, not %q", *transport)}
		}
		if len(envs) > 0 {
			return &UsageError{Msg: "zut mcp add: --env is for local servers; a remote one takes --header"}
		}
		entry["type"], entry["url"] = *transport, *url
		if len(headers) > 0 {
			h := map[string]string{}
			for _, kv := range headers {
				k, v, ok := strings.Cut(kv, ":")
				if !ok || strings.TrimSpace(k) == "" {
					return &UsageError{Msg: fmt.Sprintf("zut mcp add: --header %q: write Name: value", kv)}
				}
				h[strings.TrimSpace(k)] = strings.TrimSpace(v)
			}
			entry["headers"] = h
		}
	case len(command) > 0:
		if len(headers) > 0 {
			return &UsageError{Msg: "zut mcp add: --header is for remote servers; a local one takes --env"}
		}
		entry["command"] = command[0]
		entry["args"] = append([]string{}, command[1:]...)
		if len(envs) > 0 {
			e := map[string]string{}
			for _, kv := range envs {
				k, v, ok := strings.Cut(kv, "=")
				if !ok || k == "" {
					return &UsageError{Msg: fmt.Sprintf("zut mcp add: --env %q: write NAME=value", kv)}
				}
				e[k] = v
			}
			entry["env"] = e
		}
	default:
		return &UsageError{Msg: "zut mcp add: give the server's command after --, or --url"}
	}
	raw, err := json.Marshal(entry)
	if err != nil {
		return err
	}
	if *url != "" {
		if u, err := neturl.Parse(*url); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return &UsageError{Msg: fmt.Sprintf("zut mcp add: --url %q is not an http:// or https:// URL", *url)}
		}
	}
	path, perm, err := scopeFile(*scope, env)
	if err != nil {
		return err
	}
	if err := mcp.AddServer(path, name, raw, perm); err != nil {
		return err
	}
	announce(env, *scope, name, path)
	return nil
}

// announce says where a server was added.
func announce(env Env, scope, name, path string) {
	fmt.Fprintf(env.Stdout, "added mcp server %q to %s\n", name, path)
	switch scope {
	case "project":
		fmt.Fprintf(env.Stdout, "zut asks whether to trust it the next time it starts in this project\n")
	case "local":
		fmt.Fprintf(env.Stdout, "zut has no private per-project list (Claude Code's local scope): the server is in your own configuration, for every project\n")
	}
}

// runAddJSON is zut mcp add-json NAME JSON: one server as .mcp.json
// writes it.
func runAddJSON(args []string, env Env) error {
	fs, f := newAddFlags("add-json", env)
	pos, _, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		return &UsageError{Msg: `usage: zut mcp add-json <name> '{"command": "npx", "args": ["-y", "server"]}' [--scope project|global]`}
	}
	name, text := pos[0], pos[1]
	if !nameOK(name) {
		return &UsageError{Msg: fmt.Sprintf("zut mcp add-json: name %q: use letters, digits, '_' and '-' (at most 64)", name)}
	}
	var entry map[string]any
	if err := json.Unmarshal([]byte(text), &entry); err != nil || entry == nil {
		return &UsageError{Msg: fmt.Sprintf("zut mcp add-json: the server must be a JSON object such as {\"command\": \"npx\", \"args\": [\"-y\", \"server\"]} or {\"type\": \"http\", \"url\": \"https://...\"}: %v", err)}
	}
	if _, cmd := entry["command"].(string); !cmd {
		if _, u := entry["url"].(string); !u {
			return &UsageError{Msg: "zut mcp add-json: the server needs \"command\" (a local server) or \"url\" (a remote one)"}
		}
	}
	raw, err := json.Marshal(entry)
	if err != nil {
		return err
	}
	path, perm, err := scopeFile(*f.scope, env)
	if err != nil {
		return err
	}
	if err := mcp.AddServer(path, name, raw, perm); err != nil {
		return err
	}
	announce(env, *f.scope, name, path)
	return nil
}

// runGet is zut mcp get NAME: the server's configuration as zut reads
// it, and the file it comes from. Values of env and headers are not
// printed (they often hold secrets), only their names.
func runGet(args []string, env Env) error {
	fs := newFlags("get", env)
	pos, _, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return &UsageError{Msg: "usage: zut mcp get <name>"}
	}
	cfg, err := env.loadConfig(nil)
	if err != nil {
		return err
	}
	s, ok := cfg.Server(pos[0])
	if !ok {
		var names []string
		for _, s := range cfg.Servers {
			names = append(names, s.Name)
		}
		known := "none is configured"
		if len(names) > 0 {
			known = "the servers are " + strings.Join(names, ", ")
		}
		return fmt.Errorf("zut mcp get: no server %q (%s)", pos[0], known)
	}
	w := env.Stdout
	fmt.Fprintf(w, "%s\n  file: %s (%s)\n", s.Name, s.File, s.Origin)
	if s.Err != nil {
		fmt.Fprintf(w, "  error: %v\n", s.Err)
		return nil
	}
	fmt.Fprintf(w, "  transport: %s\n", s.Transport)
	if s.Transport == "stdio" {
		fmt.Fprintf(w, "  command: %s\n", strings.Join(append([]string{s.Command}, s.Args...), " "))
	} else {
		fmt.Fprintf(w, "  url: %s\n", s.URL)
	}
	keys := func(label string, m map[string]string) {
		if len(m) == 0 {
			return
		}
		var ks []string
		for k := range m {
			ks = append(ks, k)
		}
		sort.Strings(ks)
		fmt.Fprintf(w, "  %s: %s (values not shown)\n", label, strings.Join(ks, ", "))
	}
	keys("env", s.Env)
	keys("headers", s.Headers)
	fmt.Fprintf(w, "  enabled: %v\n", s.Enabled)
	if s.Timeout > 0 {
		fmt.Fprintf(w, "  timeout: %s\n", s.Timeout)
	}
	return nil
}

func runRemove(args []string, env Env) error {
	fs := newFlags("remove", env)
	scope := fs.String("scope", "", "project or global (default: wherever it is)")
	pos, _, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return &UsageError{Msg: "usage: zut mcp remove <name> [--scope project|global]"}
	}
	name := pos[0]
	scopes := []string{"project", "global"}
	if *scope != "" {
		scopes = []string{*scope}
	} else {
		var in []string
		for _, s := range scopes {
			if p, _, err := scopeFile(s, env); err == nil && mcp.HasServer(p, name) {
				in = append(in, s)
			}
		}
		if len(in) > 1 {
			return &UsageError{Msg: fmt.Sprintf("zut mcp remove: %q is in both the project and the global configuration; say which with --scope", name)}
		}
		if len(in) == 1 {
			scopes = in
		}
	}
	for _, s := range scopes {
		path, _, err := scopeFile(s, env)
		if err != nil {
			return err
		}
		found, err := mcp.RemoveServer(path, name)
		if err != nil {
			return err
		}
		if found {
			fmt.Fprintf(env.Stdout, "removed mcp server %q from %s\n", name, path)
			return nil
		}
	}
	return fmt.Errorf("zut mcp remove: no server %q in the %s configuration", name, strings.Join(scopes, " or "))
}
