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
//	zut mcp <verb> [args]           MCP servers: list, doctor, add, add-json, get, remove
//	zut config show                 which setup files count here (zut's, Claude Code's, Codex's, pi's)
//	zut sessions [--all] [--json]   list saved sessions for this directory
//	zut trust [--forget] [DIR|list] trust a folder's code (or forget it), list the trusted
//	zut auth login|logout|status    save and show API keys and subscription sign-ins
//	zut telegram <verb>             zut as a Telegram bot (setup, run, start, stop, status, logs, reset)
//	zut sandbox check               what this machine offers the OS sandbox of commands
//	zut pack DIR [-o FILE.zut]      write a packaged agent (zutfile) as a .zut archive
//	zut inspect SOURCE [--json]     what a packaged agent is, needs and may do
//	zut verify SOURCE [--digest D]  check a packaged agent, its limits and its digest
//	zut run SOURCE [prompt]         run a packaged agent within its permissions
//	zut help [topic]                help on zut, a subcommand or a topic
//	zut --version                   print the version
//
// main parses the command line, dispatches to a subcommand or a mode and
// maps the error it returns to an exit code: 0 ok, 1 runtime error, 2
// usage error, 3 stopped by --max-steps, 130 interrupted by Ctrl-C (128 +
// the signal; app.ExitCode). The modes live in agent/printmode,
// agent/rpcmode and tui/interactive, zut ext in host/extcmd; the app they
// run is agent/app (docs/architecture.md).
package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"
	"time"

	"golang.org/x/term"

	"github.com/zut-go/zut/agent/app"
	"github.com/zut-go/zut/agent/bot/telegram/telegramcmd"
	"github.com/zut-go/zut/agent/botmode"
	"github.com/zut-go/zut/agent/printmode"
	"github.com/zut-go/zut/agent/rpcmode"
	"github.com/zut-go/zut/agent/sandbox"
	"github.com/zut-go/zut/agent/zutfile"
	"github.com/zut-go/zut/agent/zutfile/zutfilecmd"
	"github.com/zut-go/zut/host/extcmd"
	"github.com/zut-go/zut/host/mcpcmd"
	"github.com/zut-go/zut/provider"
	"github.com/zut-go/zut/provider/authcmd"
	"github.com/zut-go/zut/tui/interactive"
)

func main() {
	// The grace timer is for scripts; the interactive UI must get to
	// restore the terminal, so there only a second signal exits at once.
	ctx, stop := signalContext(!isTerminal(os.Stdin) || !isTerminal(os.Stdout))
	err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(app.ExitCode(app.Interrupted(ctx, err), os.Stderr))
}

// stopGrace is how long zut may take to stop after SIGINT, SIGTERM or
// SIGHUP before it exits anyway (without a terminal); a second signal
// exits at once.
const stopGrace = 5 * time.Second

// signalContext is cancelled, with an *app.SignalError as its cause, by
// the first SIGINT, SIGTERM or SIGHUP. The run then stops what it does
// (a model stream, a tool call, an MCP request, which is told it is
// cancelled) and returns; should it not within stopGrace (when grace is
// true), or at a second signal, the process exits with 128+signal.
func signalContext(grace bool) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	done := make(chan struct{})
	go func() {
		var first *app.SignalError
		select {
		case s := <-sigs:
			first = &app.SignalError{Signal: s}
			cancel(first)
		case <-done:
			return
		}
		t := time.NewTimer(stopGrace)
		defer t.Stop()
		if !grace {
			t.Stop()
		}
		select {
		case <-sigs:
		case <-t.C:
			fmt.Fprintf(os.Stderr, "zut: still stopping %v after the signal; exiting\n", stopGrace)
		case <-done:
			return
		}
		os.Exit(first.ExitCode())
	}()
	return ctx, func() {
		signal.Stop(sigs)
		close(done)
	}
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
		case "config":
			return app.ConfigShow(env, args[1:])
		case "mcp":
			cwd, err := os.Getwd()
			if err != nil {
				return err
			}
			environ, _ := provider.ChildEnv(os.Environ())
			return mcpcmd.Run(ctx, args[1:], mcpcmd.Env{Stdin: stdin, Stdout: stdout, Stderr: stderr,
				Getenv: env.Getenv, ZutHome: env.Home(), CWD: cwd, Version: app.Version,
				ProjectTrusted: app.FolderTrusted(env.Home(), cwd), Environ: environ})
		case "telegram":
			exe, _ := os.Executable()
			o, err := app.ParseOptions(nil, stderr, func() {})
			if err != nil {
				return err
			}
			return telegramcmd.Main(ctx, telegramcmd.Env{Stdin: stdin, Stdout: stdout, Stderr: stderr, Getenv: env.Getenv,
				ZutHome: env.Home(), Executable: exe}, args[1:], telegramcmd.NewAgent(botmode.NewAgent(env, o)))
		case "trust":
			return app.TrustCommand(ctx, env, args[1:])
		case "auth":
			return authcmd.Run(ctx, &authcmd.Env{Stdin: stdin, Stdout: stdout, Stderr: stderr, Getenv: env.Getenv, Home: env.Home()}, args[1:])
		case "rpc":
			return runAgent(ctx, env, append([]string{"--mode", "rpc"}, args[1:]...))
		case "run":
			return runPackaged(ctx, env, args[1:])
		case "sandbox":
			return runSandbox(env, args[1:])
		case "pack":
			return zutfilecmd.Pack(ctx, zutfileEnv(env), args[1:])
		case "inspect":
			return zutfilecmd.Inspect(ctx, zutfileEnv(env), args[1:])
		case "verify":
			return zutfilecmd.Verify(ctx, zutfileEnv(env), args[1:])
		case "internal":
			// zut's own plumbing, hidden from help: the sandbox's shim
			// (agent/sandbox), which zut runs to confine a command.
			if len(args) > 1 && args[1] == "sandbox-exec" {
				return sandbox.Exec(args[2:])
			}
			return app.Usagef("zut internal is zut's own plumbing, not a command for people; zut help lists the commands")
		case "help":
			return runHelp(env, args[1:])
		case "version":
			return printVersion(env)
		}
		if err := typoCommand(args); err != nil {
			return err
		}
	}
	return runAgent(ctx, env, args)
}

// commands are the subcommands of zut.
var commands = []string{"ext", "mcp", "sessions", "config", "trust", "auth", "telegram", "sandbox", "pack", "inspect", "verify", "rpc", "run", "help", "version"}

// zutfileEnv is what zut pack, inspect and verify need.
func zutfileEnv(e *app.Env) *zutfilecmd.Env {
	cwd, _ := os.Getwd()
	home := e.Getenv("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	return &zutfilecmd.Env{Stdout: e.Stdout, Stderr: e.Stderr, ZutHome: e.Home(), CWD: cwd, UserHome: home, Version: app.Version}
}

// runSandbox is zut sandbox: check prints what the machine supports.
func runSandbox(e *app.Env, args []string) error {
	if len(args) != 1 || args[0] != "check" {
		return app.Usagef("usage: zut sandbox check (zut help sandbox)")
	}
	_, err := io.WriteString(e.Stdout, sandbox.New(sandbox.Config{}).Support().Report())
	return err
}

// typoCommand reports a lone first word that is a typo of a subcommand
// ("zut sesions") instead of sending it to the model as a prompt.
func typoCommand(args []string) error {
	w := args[0]
	if strings.HasPrefix(w, "-") || strings.ContainsAny(w, " \t\n") {
		return nil
	}
	for _, a := range args[1:] {
		if !strings.HasPrefix(a, "-") {
			return nil // more words: a prompt
		}
	}
	if near := app.Nearest(w, commands); near != "" {
		return app.Usagef("unknown command %q (did you mean zut %s?); zut help lists the commands, and zut -- %s sends it as a prompt", w, near, w)
	}
	return nil
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
	return runMode(ctx, e, o)
}

// runPackaged is zut run: it loads the agent SOURCE names and runs the
// main command with it (app.Options.Agent), in the mode the flags choose.
func runPackaged(ctx context.Context, e *app.Env, args []string) error {
	o, err := app.ParseRunOptions(args)
	if err != nil {
		return err
	}
	if o.Help {
		_, err := io.WriteString(e.Stdout, runAgentHelp)
		return err
	}
	if len(o.Prompt) == 0 {
		return app.Usagef("zut run needs the agent to run: zut run DIR|FILE.zut|owner/repo[/path] [prompt] (zut help run)")
	}
	src := o.Prompt[0]
	o.Prompt = o.Prompt[1:]
	ag, cleanup, err := zutfile.Load(ctx, src, zutfile.LoadOptions{Keep: o.AgentKeep})
	if err != nil {
		return err
	}
	defer func() {
		if err := cleanup(); err != nil {
			fmt.Fprintf(e.Stderr, "zut: warning: remove the agent's temporary copy: %v\n", err)
		}
	}()
	if ag.Kept != "" {
		fmt.Fprintf(e.Stderr, "zut: the copy of agent %s is kept in %s\n", ag.Manifest.Name, ag.Kept)
	}
	o.Agent = ag
	return runMode(ctx, e, o)
}

// runMode runs the parsed main command (or zut run) in the mode the
// flags and the terminal choose.
func runMode(ctx context.Context, e *app.Env, o app.Options) error {
	if o.CWD != "" {
		// --cwd is as if zut had been started there: the project, its
		// sessions, context files and tools all follow the directory.
		if err := os.Chdir(o.CWD); err != nil {
			return app.Usagef("--cwd %s: %v", o.CWD, err)
		}
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
		prompt, err := promptText(e, o, stdinWait)
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

// stdinWait is how long zut -p "prompt" gives a stdin that is neither a
// terminal nor a file (a pipe, a socket) to show its first byte or its
// end before the prompt goes without it.
const stdinWait = 2 * time.Second

// promptText joins the prompt arguments and what stdin holds: "cat file
// | zut -p 'explain'" sends both. A terminal is not read. A "-" among the
// words reads stdin to its end, and so does a run with no prompt
// argument (and no --goal): stdin is the prompt then. Otherwise stdin is
// read when it shows data or its end within grace (a file at once), and
// then to its end; a stdin that stays open and silent (a harness that
// never closes it) is left alone, with a note on stderr.
func promptText(e *app.Env, o app.Options, grace time.Duration) (string, error) {
	var words []string
	dash := false
	for _, w := range o.Prompt {
		if w == "-" {
			dash = true
			continue
		}
		words = append(words, w)
	}
	arg := strings.Join(words, " ")
	var piped string
	if e.Stdin != nil && (dash || !isTerminal(e.Stdin)) {
		if dash || arg == "" && o.Goal == "" {
			grace = -1 // stdin is asked for: wait for its end
		}
		b, ok, err := readStdin(e.Stdin, grace)
		if err != nil {
			return "", err
		}
		if !ok {
			fmt.Fprintf(e.Stderr, "zut: note: stdin is open but held nothing within %s; the prompt goes without it (a - among the prompt words waits for stdin; </dev/null skips the wait)\n", grace)
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
	case dash:
		return "", app.Usagef("no prompt: - reads the prompt from stdin, and stdin held nothing")
	}
	return "", app.Usagef("no prompt: give one as an argument (zut -p \"...\") or on stdin")
}

// readStdin reads r to its end, at most maxStdinPrompt bytes. With grace
// of zero or more, r has until grace to deliver its first byte or its
// end; ok is false when it did not, and nothing is taken. The reading
// goroutine then stays blocked on r until its end or the process's (print
// and JSON modes exit after their run), and drops what comes late.
func readStdin(r io.Reader, grace time.Duration) (b []byte, ok bool, err error) {
	type read struct {
		b   []byte
		err error
	}
	first := make(chan struct{}) // closed at the first byte or the end
	done := make(chan read, 1)
	go func() {
		var buf bytes.Buffer
		lr := io.LimitReader(r, maxStdinPrompt+1)
		p := make([]byte, 32<<10)
		signalled := false
		for {
			n, err := lr.Read(p)
			buf.Write(p[:n])
			if !signalled && (n > 0 || err != nil) {
				close(first)
				signalled = true
			}
			if err != nil {
				if err == io.EOF || errors.Is(err, syscall.EBADF) {
					err = nil // the end, or no stdin at all (zut -p "..." <&-)
				}
				done <- read{buf.Bytes(), err}
				return
			}
		}
	}()
	if grace >= 0 {
		t := time.NewTimer(grace)
		defer t.Stop()
		select {
		case <-first:
		case <-t.C:
			return nil, false, nil
		}
	}
	res := <-done
	switch {
	case res.err != nil:
		return nil, true, fmt.Errorf("read the prompt from stdin: %w", res.err)
	case len(res.b) > maxStdinPrompt:
		return nil, true, fmt.Errorf("read the prompt from stdin: more than %d MiB; pass a file path in the prompt instead", maxStdinPrompt>>20)
	}
	return res.b, true, nil
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
  zut -p [flags] "prompt"       answer one prompt and print the final text (with piped stdin
                                after it; a - among the words waits for stdin's end: README)
  zut --mode json "prompt"      print every agent event as one JSON object per line
  zut --mode rpc                headless RPC over stdin/stdout (alias: zut rpc)
  zut ext <verb> [args]         manage extensions (zut help ext)
  zut mcp <verb> [args]         manage MCP servers: list, doctor, add, add-json, get, remove (docs/mcp.md)
  zut config show               which setup files count here: context files, templates, skills,
                                settings and hooks, MCP servers (zut help config)
  zut sessions [--all] [--json] list saved sessions of this directory (--tree ID: entry ids)
  zut trust [DIR]               trust a folder's extensions, MCP and language servers (--forget, list)
  zut auth login|logout|status  API keys and Claude Pro/Max, ChatGPT sign-ins (zut help auth)
  zut telegram <verb>           zut as a Telegram bot: setup, run, start, stop, status, logs (zut help telegram)
  zut sandbox check             what this machine offers the OS sandbox of commands (zut help sandbox)
  zut pack DIR [-o FILE.zut]    write a packaged agent (zutfile) as a .zut archive (docs/zutfiles.md)
  zut inspect SOURCE [--json]   what a packaged agent (DIR, FILE.zut, owner/repo[/path]) is and may do
  zut verify SOURCE [--digest D] check a packaged agent: manifest, limits, digest
  zut run SOURCE [prompt]       run a packaged agent (a zutfile: DIR, FILE.zut, owner/repo[/path])
                                within its permissions (zut help run, docs/zutfiles.md)
  zut help [topic]              topics: flags, env, auth, config, ext, inspect, pack, permissions, rpc,
                                run, sandbox, sessions, telegram, trust, verify

Model:
  --demo                        the built-in demo model: scripted answers, no key, no network
  --provider NAME               anthropic, openai, openai-responses, ollama, ... (zut --list-models)
  --model, -m ID                model id, or provider/model
  --base-url URL                API base URL (an OpenAI-compatible server, a proxy)
  --api-key KEY                 API key for this run
  --reasoning LEVEL             off, minimal, low, medium, high, max, adaptive, or a token budget
  --list-models                 list known models with context windows and prices

Session:
  -c, --continue                continue the latest session of this directory (or start one)
  -r, --resume [ID]             resume a session by id or unique prefix (or pick one)
  --session PATH                use the session file at PATH
  --no-session                  keep nothing on disk
  --fork ENTRY                  branch off after entry ENTRY (with -c, -r or --session;
                                zut sessions --tree ID shows the ids)

Prompt and tools:
  --system-prompt TEXT|@FILE    replace the system prompt
  --append-system-prompt TEXT|@FILE
  --no-context-files            do not read AGENTS.md / CLAUDE.md / CLAUDE.local.md
  --no-skills                   do not offer skills
  --yolo                        run every tool without asking (deny rules still refuse)
  --no-yolo                     in print and JSON modes, refuse tools that change files or run commands
  --allow RULE                  run the calls RULE matches without asking, as bash(go test *) (repeatable);
                                in print and JSON modes, refuse the calls no rule allows
  --deny RULE                   refuse the calls RULE matches (repeatable)
  --temperature T               the sampling temperature, 0 to 2 (the model's default otherwise)
  --sandbox MODE                run commands (bash, python, !cmd) in an OS sandbox: read-only,
                                workspace-write or danger-full-access (zut help sandbox)
  --max-steps N                 stop after N model turns (exit status 3 if the model was not done)
  --goal TEXT                   set the session's goal: zut continues until the model reports it
                                complete or blocked, within goal.max_turns (docs/tools.md)
  --no-tools LIST               do not offer these built-in tools, as web_search,python (repeatable)
  --tools LIST                  offer only these built-in tools, as read,grep (extension and MCP tools stay)
  --mcp-config FILE             also start the MCP servers FILE lists, for this run (repeatable)
  --no-lsp                      start no language server: no lsp tool, no diagnostics after edits
  --orchestrate                 split the task into independent parts for subagents, then
                                combine their results into one answer
  --trust                       run this folder's extensions, MCP servers and language servers
                                without asking, this once (zut help permissions)

In the interactive UI zut asks before a tool changes files or runs a
command. In print and JSON modes nobody can be asked, so every tool runs
unless --no-yolo, --allow or a deny rule says otherwise; print mode shows
each call on stderr (› bash: go test ./...). zut help permissions.

Modes and output:
  -p, --print                   print mode
  --mode MODE                   interactive, print, json or rpc (--json, --rpc: the same)
  --stream                      with -p: write the answer as it arrives, not only at the end
  --stats PATH                  with -p or --mode json: write the run's statistics as JSON to PATH
  --cwd DIR                     work in DIR, as if zut were started there
  -e, --ext DIR                 load the extension in DIR for this run (repeatable)
  --no-extensions               load no extensions
  -h, --help                    this help
  -v, --version                 print the version

Exit status: 0 done, 1 error, 2 usage error, 3 stopped by --max-steps,
130 interrupted (Ctrl-C; 143 for SIGTERM).
Inside the interactive UI, /help lists keys and commands (docs/tui.md).
`

// helpTopics are the texts of zut help TOPIC.
var helpTopics = map[string]string{
	"ext":         extcmd.Help,
	"auth":        authcmd.Help,
	"telegram":    telegramcmd.Help,
	"permissions": app.PermissionsHelp,
	"config":      app.ConfigHelp,
	"trust":       app.TrustHelp,
	"sessions":    app.SessionsHelp,
	"run":         runAgentHelp,
	"pack":        zutfilecmd.PackHelp,
	"inspect":     zutfilecmd.InspectHelp,
	"verify":      zutfilecmd.VerifyHelp,
	"rpc": `zut rpc — headless RPC mode

Usage:
  zut rpc [flags]          same as zut --mode rpc

Reads one JSON command per line on stdin and writes responses and events as
JSON lines on stdout. See docs/rpc.md.
`,
}

func runHelp(e *app.Env, args []string) error {
	if len(args) == 0 || args[0] == "flags" {
		_, err := io.WriteString(e.Stdout, mainHelp)
		return err
	}
	if args[0] == "env" {
		_, err := io.WriteString(e.Stdout, app.EnvHelp())
		return err
	}
	if args[0] == "sandbox" {
		_, err := io.WriteString(e.Stdout, app.SandboxHelp+"\nThis machine:\n"+sandbox.New(sandbox.Config{}).Support().Report())
		return err
	}
	text, ok := helpTopics[args[0]]
	if !ok {
		names := []string{"env", "sandbox"}
		for k := range helpTopics {
			names = append(names, k)
		}
		sort.Strings(names)
		if near := app.Nearest(args[0], append(names, "flags")); near != "" {
			return app.Usagef("no help topic %q (did you mean zut help %s?); topics: flags, %s", args[0], near, strings.Join(names, ", "))
		}
		return app.Usagef("no help topic %q; topics: flags, %s", args[0], strings.Join(names, ", "))
	}
	_, err := fmt.Fprint(e.Stdout, text)
	return err
}

const runAgentHelp = `zut run — run a packaged agent (a zutfile) within its permissions

Usage:
  zut run [flags] SOURCE [prompt]

SOURCE is a directory holding manifest.json (and AGENT.md, skills/), a .zut
archive (zut pack), or owner/repo[/path], a GitHub repository cloned into a
temporary directory (an existing local path always wins). The agent's
AGENT.md is added to the system prompt (or replaces it), its skills come
first, its model is used unless --provider or --model says otherwise, and
its sessions and data live in $ZUT_HOME/agents/NAME/.

Its manifest's permissions are a ceiling nothing widens (not --yolo, not
--allow, not a mode): the file tools refuse paths outside fs.read and
fs.write, bash follows "none", "ask" or "allowlist", and its commands and
bundled extensions run in the OS sandbox of those permissions, with only
net.allow's hosts and env.read's variables. A machine that cannot enforce
them refuses to start the agent. docs/zutfiles.md has the details.

The first run of an agent (of each digest) asks for consent, listing every
permission; print, JSON and RPC modes cannot ask, and refuse unless --yes.

Flags: every flag of zut (zut help flags: -p, --json, --mode rpc, --model,
-c, ...), and
  --yes                         consent to the agent's permissions (remembered for its digest)
  --keep                        keep the copy of an agent fetched from an archive or a repository

Examples:
  zut run examples/agents/code-reviewer            review in the interactive UI
  zut run -p --yes ./code-reviewer 'review main.go'
  zut run reviewer.zut -c                          continue the agent's latest session here
  zut run acme/agents/reviewer --json 'review the diff'
`
