package mcpcmd

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/zut-go/zut/host/mcp"
)

// serverReport is one server in the JSON output of list and doctor.
type serverReport struct {
	Name         string   `json:"name"`
	Transport    string   `json:"transport"`
	Origin       string   `json:"origin"`
	File         string   `json:"file"`
	Target       string   `json:"target"` // the command line or the URL
	State        string   `json:"state"`
	Error        string   `json:"error,omitempty"`
	Protocol     string   `json:"protocol,omitempty"`
	Server       string   `json:"server,omitempty"`
	Version      string   `json:"server_version,omitempty"`
	Capabilities []string `json:"capabilities,omitempty"`
	Tools        []string `json:"tools"`
	Omitted      int      `json:"omitted,omitempty"` // the last Omitted tools are not offered to the model
	Prompts      int      `json:"prompts"`
	Resources    int      `json:"resources"`
	Templates    int      `json:"resource_templates"`
	StartMillis  int64    `json:"start_ms,omitempty"`
	Log          string   `json:"log,omitempty"`
	Notes        []string `json:"notes,omitempty"`
}

func runList(ctx context.Context, args []string, env Env, doctor bool) error {
	name := "list"
	if doctor {
		name = "doctor"
	}
	fs := newFlags(name, env)
	asJSON := fs.Bool("json", false, "print JSON")
	timeout := fs.Duration("timeout", 30*time.Second, "how long to wait for servers")
	var configs listValue
	fs.Var(&configs, "mcp-config", "also read this file")
	trust := fs.Bool("trust", false, "start this folder's .mcp.json servers as trusted, this once (for CI)")
	pos, _, err := parse(fs, args)
	if err != nil {
		return err
	}
	if *trust {
		env.Trusted, env.ProjectTrusted = nil, true
	}
	if len(pos) > 0 {
		return &UsageError{Msg: fmt.Sprintf("zut mcp %s: unexpected argument %q", name, pos[0])}
	}
	cfg, err := env.loadConfig(configs)
	if err != nil {
		return err
	}
	if len(cfg.Servers) == 0 {
		if *asJSON {
			fmt.Fprintln(env.Stdout, "[]")
			return nil
		}
		looked := mcp.ProjectFile(env.CWD) + " and " + mcp.GlobalFile(env.ZutHome)
		if c := env.codexFile(); c != "" {
			looked = mcp.ProjectFile(env.CWD) + ", " + mcp.GlobalFile(env.ZutHome) + " and " + c
		}
		fmt.Fprintf(env.Stdout, "no MCP servers configured (looked in %s); add one with `zut mcp add`\n", looked)
		return nil
	}
	var mu sync.Mutex
	notes := map[string][]string{}
	m := mcp.NewManager(mcp.Options{Home: env.ZutHome, CWD: env.CWD, Config: cfg, Trusted: env.trusted(), Env: env.Environ,
		Client: mcp.Implementation{Name: "zut", Version: orDev(env.Version)}, StartTimeout: *timeout,
		AuthPrompt: func(server, url string) {
			fmt.Fprintf(env.Stderr, "mcp server %q needs authorization; open this URL in a browser:\n  %s\n", server, url)
		},
		OpenBrowser: mcp.OpenBrowser(env.Getenv),
		Callbacks: mcp.Callbacks{Note: func(server, msg string) {
			mu.Lock()
			notes[server] = append(notes[server], msg)
			mu.Unlock()
		}}})
	defer m.Close()
	wctx, cancel := context.WithTimeout(ctx, *timeout+5*time.Second)
	defer cancel()
	_ = m.Wait(wctx)
	var reports []serverReport
	failed := 0
	for _, st := range m.Servers() {
		sc, _ := cfg.Server(st.Name)
		r := serverReport{Name: st.Name, Transport: st.Transport, Origin: string(st.Origin), File: st.File, Target: target(sc),
			State: string(st.State), Protocol: st.Protocol, Server: st.Server.Name, Version: st.Server.Version,
			Capabilities: st.Capabilities.Names(), Tools: toolNames(m, st.Name), Prompts: st.Prompts,
			Resources: st.Resources, Templates: st.Templates, Log: st.Log}
		r.Tools = append(r.Tools, st.Omitted...) // zut mcp list shows them all
		r.Omitted = len(st.Omitted)
		if r.Tools == nil {
			r.Tools = []string{}
		}
		if st.State == mcp.StateReady {
			r.StartMillis = st.StartTime.Milliseconds()
		}
		if st.Err != nil {
			r.Error = st.Err.Error()
		}
		if st.State == mcp.StateFailed || st.State == mcp.StateInvalid {
			failed++
		}
		mu.Lock()
		for _, n := range notes[st.Name] {
			if n != r.Error {
				r.Notes = append(r.Notes, n)
			}
		}
		mu.Unlock()
		reports = append(reports, r)
	}
	if *asJSON {
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(reports); err != nil {
			return err
		}
	} else if doctor {
		printDoctor(env.Stdout, reports)
	} else {
		printList(env.Stdout, reports)
	}
	if doctor && failed > 0 {
		return fmt.Errorf("zut mcp doctor: %d of %d servers cannot be used; see the errors and logs above", failed, len(reports))
	}
	return nil
}

func orDev(v string) string {
	if v == "" {
		return "dev"
	}
	return v
}

// toolNames are the server's own names of its tools as zut offers them.
func toolNames(m *mcp.Manager, server string) []string {
	var out []string
	for _, t := range m.Tools() {
		if t.Server == server {
			out = append(out, t.Tool)
		}
	}
	return out
}

func target(sc mcp.ServerConfig) string {
	if sc.Transport == "stdio" {
		return strings.TrimSpace(sc.Command + " " + strings.Join(sc.Args, " "))
	}
	return sc.URL
}

func printList(w io.Writer, reports []serverReport) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tTRANSPORT\tORIGIN\tSTATE\tTOOLS")
	for _, r := range reports {
		tools := fmt.Sprint(len(r.Tools))
		if r.Omitted > 0 {
			tools += fmt.Sprintf(" (%d past the %d offered to the model)", r.Omitted, mcp.MaxToolsPerServer)
		}
		if len(r.Tools) > 0 {
			tools += ": " + strings.Join(r.Tools, ", ")
		}
		state := r.State
		if r.State == string(mcp.StateUntrusted) {
			state += " (start zut here to trust it)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.Name, dash(r.Transport), r.Origin, state, tools)
	}
	tw.Flush()
	for _, r := range reports {
		if r.Error != "" {
			fmt.Fprintf(w, "\n%s: %s\n", r.Name, r.Error)
		}
	}
}

func printDoctor(w io.Writer, reports []serverReport) {
	for i, r := range reports {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "%s (%s, %s: %s)\n", r.Name, dash(r.Transport), r.Origin, r.File)
		if r.Target != "" {
			fmt.Fprintf(w, "  target:        %s\n", r.Target)
		}
		switch r.State {
		case string(mcp.StateReady):
			fmt.Fprintf(w, "  state:         ready in %d ms\n", r.StartMillis)
			fmt.Fprintf(w, "  protocol:      %s\n", r.Protocol)
			fmt.Fprintf(w, "  server:        %s %s\n", r.Server, r.Version)
			fmt.Fprintf(w, "  capabilities:  %s\n", strings.Join(r.Capabilities, ", "))
			fmt.Fprintf(w, "  offers:        %d tools, %d prompts, %d resources, %d resource templates\n", len(r.Tools), r.Prompts, r.Resources, r.Templates)
		default:
			fmt.Fprintf(w, "  state:         %s\n", r.State)
		}
		if r.Error != "" {
			fmt.Fprintf(w, "  error:         %s\n", indent(r.Error))
		}
		for _, n := range r.Notes {
			fmt.Fprintf(w, "  note:          %s\n", indent(n))
		}
		if r.Log != "" && r.State != string(mcp.StateDisabled) && r.State != string(mcp.StateInvalid) && r.State != string(mcp.StateUntrusted) {
			fmt.Fprintf(w, "  log:           %s\n", r.Log)
		}
	}
}

func indent(s string) string { return strings.ReplaceAll(s, "\n", "\n                 ") }

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
