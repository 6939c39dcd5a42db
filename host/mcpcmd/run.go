// Package mcpcmd is the `zut mcp` subcommand: list, doctor, add and
// remove MCP servers. It reads and writes the configuration files of
// package mcp and starts servers through an mcp.Manager; main calls Run.
package mcpcmd

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/zut-go/zut/host/mcp"
)

// Env is what a subcommand may use of the process: no package reads
// os.Stdin, os.Args or the environment directly.
type Env struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Getenv         func(string) string
	ZutHome        string // $ZUT_HOME, resolved by the caller
	CWD            string // the project directory

	// Version is zut's version, sent to servers as clientInfo.version.
	Version string
	// Trusted says whether a project server may be started (the trust the
	// user gave in zut); nil starts none of them.
	Trusted func(mcp.ServerConfig) bool
	// ProjectTrusted, when Trusted is nil, trusts every project server:
	// the user trusts the folder (main asks the app's trust store).
	ProjectTrusted bool
	// Environ is the environment stdio servers start with; nil is the
	// process's own. main passes it without provider keys.
	Environ []string
}

// UsageError is a bad command line; main exits with status 2 for it.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// ExitCode is the process status for a usage error (app.ExitCode).
func (e *UsageError) ExitCode() int { return 2 }

const usage = `usage: zut mcp <command> [flags]

commands:
  list [--json]                      the configured servers, their state and tools
  doctor [--json]                    start every server and report its handshake
  add <name> [--scope project|global] [--env K=V]... -- <command> [args...]
  add <name> --url URL [--transport http|sse] [--header K:V]... [--scope ...]
  add --transport http|sse <name> <url> [-H "K: V"]...   (Claude Code's forms: -e K=V,
                                     -H/--header, -s/--scope local|project|user)
  add-json <name> '<json>' [--scope ...]   one server as .mcp.json writes it
  get <name>                         one server's configuration and where it comes from
  remove <name> [--scope project|global]

flags of list and doctor:
  --mcp-config FILE                  also read FILE (repeatable)
  --trust                            start this folder's .mcp.json servers without its trust, this once
  --timeout DURATION                 how long to wait for servers to start (30s)

configuration: .mcp.json in the project, $ZUT_HOME/mcp.json, and Codex's
~/.codex/config.toml [mcp_servers] (read only); see docs/mcp.md`

// Run runs `zut mcp args...`.
func Run(ctx context.Context, args []string, env Env) error {
	if env.Getenv == nil {
		env.Getenv = func(string) string { return "" }
	}
	if len(args) == 0 {
		return &UsageError{Msg: usage}
	}
	switch args[0] {
	case "list":
		return runList(ctx, args[1:], env, false)
	case "doctor":
		return runList(ctx, args[1:], env, true)
	case "add":
		return runAdd(args[1:], env)
	case "add-json":
		return runAddJSON(args[1:], env)
	case "get":
		return runGet(args[1:], env)
	case "remove", "rm":
		return runRemove(args[1:], env)
	case "conformance-client": // for the MCP conformance suite; not in the usage
		return runConformance(ctx, args[1:], env)
	case "help", "-h", "--help":
		fmt.Fprintln(env.Stdout, usage)
		return nil
	}
	return &UsageError{Msg: fmt.Sprintf("zut mcp: unknown command %q\n\n%s", args[0], usage)}
}

// codexFile is Codex's config.toml.
func (env Env) codexFile() string {
	if h := env.Getenv("HOME"); h != "" {
		return mcp.CodexFile(h)
	}
	return ""
}

// loadConfig reads every configuration file, with extra --mcp-config
// files, and prints the problems and notes.
func (env Env) loadConfig(extra []string) (*mcp.Config, error) {
	cfg, err := mcp.LoadConfig(mcp.LoadOptions{Home: env.ZutHome, CWD: env.CWD, Flags: extra, Getenv: env.Getenv, CodexFile: env.codexFile()})
	if err != nil {
		return nil, err
	}
	for _, p := range cfg.Problems {
		fmt.Fprintf(env.Stderr, "zut mcp: %v\n", p)
	}
	for _, n := range cfg.Notes {
		fmt.Fprintf(env.Stderr, "zut mcp: note: %s\n", n)
	}
	return cfg, nil
}

// listValue is a repeatable string flag.
type listValue []string

func (l *listValue) String() string     { return strings.Join(*l, ",") }
func (l *listValue) Set(s string) error { *l = append(*l, s); return nil }

func newFlags(name string, env Env) *flag.FlagSet {
	fs := flag.NewFlagSet("zut mcp "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

// parse parses args with fs, allowing flags after positional words (the
// flag package stops at the first one); "--" ends the flags.
func parse(fs *flag.FlagSet, args []string) ([]string, []string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, nil, &UsageError{Msg: usage}
			}
			return nil, nil, &UsageError{Msg: fmt.Sprintf("%s: %v", fs.Name(), err)}
		}
		rest := fs.Args()
		consumed := len(args) - len(rest)
		if consumed > 0 && args[consumed-1] == "--" {
			return pos, rest, nil
		}
		if len(rest) == 0 {
			return pos, nil, nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// trusted is the Manager's Trusted function of env.
func (env Env) trusted() func(mcp.ServerConfig) bool {
	if env.Trusted != nil || !env.ProjectTrusted {
		return env.Trusted
	}
	return func(mcp.ServerConfig) bool { return true }
}
