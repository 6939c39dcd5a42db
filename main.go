// Command zut is a terminal coding agent whose extensions are separate
// programs speaking newline-delimited JSON (extension protocol v2).
//
// Usage:
//
//	zut [flags] [prompt]            interactive UI (or one prompt with -p)
//	zut -p "prompt"                 print the final answer and exit
//	zut --mode json "prompt"        one JSON event per line on stdout
//	zut --mode rpc                  headless RPC over stdin/stdout (alias: zut rpc)
//	zut ext <verb> [args]           list, doctor, install, remove, enable, disable, logs, init, test
//	zut mcp <verb> [args]           MCP servers: list, doctor, add, remove
//	zut sessions [--all] [--json]   list saved sessions for this directory
//	zut help [topic]                help on zut, a subcommand or a topic
//	zut --version                   print the version
//
// main parses the command line, dispatches to a subcommand or a mode and
// maps the error it returns to an exit code: 0 ok, 1 runtime error, 2
// usage error (app.ExitCode). The modes live in agent/printmode,
// agent/rpcmode and tui/interactive, zut ext in host/extcmd; the app they
// run is agent/app (docs/architecture.md).
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"

	"golang.org/x/term"

	"github.com/zut-go/zut/agent/app"
	"github.com/zut-go/zut/agent/printmode"
	"github.com/zut-go/zut/agent/rpcmode"
	"github.com/zut-go/zut/host/extcmd"
	"github.com/zut-go/zut/host/mcpcmd"
	"github.com/zut-go/zut/provider"
	"github.com/zut-go/zut/tui/interactive"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(app.ExitCode(err, os.Stderr))
}

// run is the whole program: it dispatches to a subcommand or to a mode.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	env := app.NewEnv(stdin, stdout, stderr)
	if len(args) > 0 {
		switch args[0] {
		case "ext":
			return extcmd.Run(ctx, &extcmd.Env{Stdin: stdin, Stdout: stdout, Stderr: stderr,
				Getenv: env.Getenv, Home: env.Home(), Version: app.Version}, args[1:])
		case "sessions":
			return app.Sessions(ctx, env, args[1:])
		case "mcp":
			cwd, err := os.Getwd()
			if err != nil {
				return err
			}
			return mcpcmd.Run(ctx, args[1:], mcpcmd.Env{Stdin: stdin, Stdout: stdout, Stderr: stderr,
				Getenv: env.Getenv, ZutHome: env.Home(), CWD: cwd, Version: app.Version})
		case "rpc":
			return runAgent(ctx, env, append([]string{"--mode", "rpc"}, args[1:]...))
		case "help":
			return runHelp(env, args[1:])
		case "version":
			return printVersion(env)
		}
	}
	return runAgent(ctx, env, args)
}

// runAgent runs the main command in the mode the flags and the terminal
// choose: interactive, print, JSON or RPC.
func runAgent(ctx context.Context, e *app.Env, args []string) error {
	o, err := app.ParseOptions(args, e.Stderr, func() { io.WriteString(e.Stderr, mainHelp) })
	if err != nil {
		return err
	}
	switch {
	case o.Help:
		_, err := io.WriteString(e.Stdout, mainHelp)
		return err
	case o.Version:
		return printVersion(e)
	case o.ListModels:
		return provider.ListModels(ctx, app.ProviderOptions(e, o), e.Stdout, o.Mode == "json")
	}
	mode := o.Mode
	if mode == "" {
		mode = "print"
		if isTerminal(e.Stdin) && isTerminal(e.Stdout) {
			mode = "interactive"
		}
	}
	switch mode {
	case "print", "json":
		prompt, err := promptText(e, o)
		if err != nil {
			return err
		}
		if mode == "print" {
			return printmode.Print(ctx, e, o, prompt)
		}
		return printmode.JSON(ctx, e, o, prompt)
	case "rpc":
		if len(o.Prompt) > 0 {
			return app.Usagef("rpc mode takes no prompt argument; send prompt commands on stdin")
		}
		return rpcmode.Run(ctx, e, o)
	}
	return interactive.Run(ctx, e, o)
}

// maxStdinPrompt bounds a prompt read from piped stdin.
const maxStdinPrompt = 16 << 20

// promptText joins the prompt arguments and, when stdin is not a
// terminal, what it holds: "cat file | zut -p 'explain'" sends both.
func promptText(e *app.Env, o app.Options) (string, error) {
	arg := strings.Join(o.Prompt, " ")
	var piped string
	if !isTerminal(e.Stdin) && e.Stdin != nil {
		b, err := io.ReadAll(io.LimitReader(e.Stdin, maxStdinPrompt+1))
		if err != nil {
			return "", fmt.Errorf("read the prompt from stdin: %w", err)
		}
		if len(b) > maxStdinPrompt {
			return "", fmt.Errorf("read the prompt from stdin: more than %d MiB; pass a file path in the prompt instead", maxStdinPrompt>>20)
		}
		piped = strings.TrimSpace(string(b))
	}
	switch {
	case arg != "" && piped != "":
		return arg + "\n\n" + piped, nil
	case arg != "":
		return arg, nil
	case piped != "":
		return piped, nil
	case o.Goal != "":
		return "", nil // the goal's own prompt starts the work
	}
	return "", app.Usagef("no prompt: give one as an argument (zut -p \"...\") or on stdin")
}

// isTerminal reports whether f is a terminal.
func isTerminal(f any) bool {
	if x, ok := f.(interface{ Fd() uintptr }); ok {
		return term.IsTerminal(int(x.Fd()))
	}
	return false
}

func printVersion(e *app.Env) error {
	_, err := io.WriteString(e.Stdout, "zut "+app.FullVersion()+"\n")
	return err
}

const mainHelp = `zut — a terminal coding agent with subprocess extensions

Usage:
  zut [flags] [prompt]          start the interactive UI (with an optional first prompt)
  zut -p [flags] "prompt"       answer one prompt and print the final text
  zut --mode json "prompt"      print every agent event as one JSON object per line
  zut --mode rpc                headless RPC over stdin/stdout (alias: zut rpc)
  zut ext <verb> [args]         manage extensions (zut help ext)
  zut mcp <verb> [args]         manage MCP servers: list, doctor, add, remove (docs/mcp.md)
  zut sessions [--all] [--json] list saved sessions of this directory
  zut help [topic]              topics: ext, sessions, rpc, flags, env

Model:
  --provider NAME               anthropic, openai, openai-responses, ollama, ... (zut --list-models)
  --model, -m ID                model id, or provider/model
  --base-url URL                API base URL (an OpenAI-compatible server, a proxy)
  --api-key KEY                 API key for this run
  --reasoning LEVEL             off, low, medium, high
  --list-models                 list known models with context windows and prices

Session:
  -c, --continue                continue the latest session of this directory
  -r, --resume [ID]             resume a session by id (or pick one)
  --session PATH                use the session file at PATH
  --no-session                  keep nothing on disk
  --fork ID                     branch off at entry ID of that session (with -c, -r or --session)

Prompt and tools:
  --system-prompt TEXT|@FILE    replace the system prompt
  --append-system-prompt TEXT|@FILE
  --no-context-files            do not read AGENTS.md / CLAUDE.md
  --no-skills                   do not offer skills
  --yolo                        run every tool without asking
  --no-yolo                     in print and JSON modes, deny mutating tools
  --max-steps N                 stop after N model turns

Extensions:
  -e, --ext DIR                 load the extension in DIR for this run (repeatable)
  --no-extensions               load no extensions

  --version                     print the version

Inside the interactive UI, /help lists keys and commands (docs/tui.md).
`

// helpTopics are the texts of zut help TOPIC.
var helpTopics = map[string]string{
	"ext":      extcmd.Help,
	"sessions": app.SessionsHelp,
	"rpc": `zut rpc — headless RPC mode

Usage:
  zut rpc [flags]          same as zut --mode rpc

Reads one JSON command per line on stdin and writes responses and events as
JSON lines on stdout. See docs/rpc.md.
`,
	"env": `Environment:
  ZUT_HOME            state directory (default $XDG_STATE_HOME/zut, else ~/.local/state/zut)
  ANTHROPIC_API_KEY   ANTHROPIC_BASE_URL
  OPENAI_API_KEY      OPENAI_BASE_URL
  OPENROUTER_API_KEY, DEEPSEEK_API_KEY, GROQ_API_KEY, MISTRAL_API_KEY, ...
  ZUTCORE_RPC_TOKEN   require this token in RPC mode's hello
  NO_COLOR            disable colours
`,
}

func runHelp(e *app.Env, args []string) error {
	if len(args) == 0 || args[0] == "flags" {
		_, err := io.WriteString(e.Stdout, mainHelp)
		return err
	}
	text, ok := helpTopics[args[0]]
	if !ok {
		var names []string
		for k := range helpTopics {
			names = append(names, k)
		}
		sort.Strings(names)
		return app.Usagef("no help topic %q; topics: flags, %s", args[0], strings.Join(names, ", "))
	}
	_, err := fmt.Fprint(e.Stdout, text)
	return err
}
