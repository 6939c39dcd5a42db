package mcpcmd

import (
	"encoding/json"
	"fmt"
	neturl "net/url"
	"os"
	"regexp"
	"strings"

	"github.com/zut-go/zut/host/mcp"
)

var validName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// scopeFile is the configuration file of a scope.
func scopeFile(scope string, env Env) (string, os.FileMode, error) {
	switch scope {
	case "project":
		return mcp.ProjectFile(env.CWD), 0o644, nil
	case "global":
		if env.ZutHome == "" {
			return "", 0, fmt.Errorf("zut mcp: no zut home directory; set ZUT_HOME")
		}
		return mcp.GlobalFile(env.ZutHome), 0o600, nil // it may hold secrets in env and headers
	}
	return "", 0, &UsageError{Msg: fmt.Sprintf("zut mcp: --scope must be project or global, not %q", scope)}
}

func runAdd(args []string, env Env) error {
	fs := newFlags("add", env)
	scope := fs.String("scope", "global", "project or global")
	url := fs.String("url", "", "the URL of a remote server")
	transport := fs.String("transport", "http", "http or sse, for --url")
	var envs, headers listValue
	fs.Var(&envs, "env", "K=V for a local server (repeatable)")
	fs.Var(&headers, "header", "K: V for a remote server (repeatable)")
	pos, command, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return &UsageError{Msg: "usage: zut mcp add <name> [flags] -- <command> [args...]  or  zut mcp add <name> --url URL"}
	}
	name := pos[0]
	if !validName.MatchString(name) {
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
	fmt.Fprintf(env.Stdout, "added mcp server %q to %s\n", name, path)
	if *scope == "project" {
		fmt.Fprintf(env.Stdout, "zut asks whether to trust it the next time it starts in this project\n")
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
