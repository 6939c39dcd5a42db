package main

import (
	"fmt"
	"io"
	"sort"
	"strings"
)

const mainHelp = `zut — a terminal coding agent with subprocess extensions

Usage:
  zut [flags] [prompt]          start the interactive UI (with an optional first prompt)
  zut -p [flags] "prompt"       answer one prompt and print the final text
  zut --mode json "prompt"      print every agent event as one JSON object per line
  zut --mode rpc                headless RPC over stdin/stdout (alias: zut rpc)
  zut ext <verb> [args]         manage extensions (zut help ext)
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

var helpTopics = map[string]string{
	"ext": `zut ext — manage extensions

Usage:
  zut ext list [--json]                 installed extensions and their state
  zut ext doctor [--json] [-e DIR]...   load every extension and report what happened
  zut ext install [--force] <path|git-url>
                                        copy or clone into $ZUT_HOME/extensions/
  zut ext install --build=go <path>     build local Go source, then install
                                        (--force replaces an installed one)
  zut ext remove [--yes] <name>         delete an installed extension
  zut ext enable <name>                 re-enable a disabled extension
  zut ext disable <name>                disable without removing
  zut ext logs [-f] <name>              print (or follow) the extension's stderr log

Extensions are discovered in ./.zut/extensions/<name>/ (project) and then in
$ZUT_HOME/extensions/<name>/ (global); --ext paths come first. See
docs/protocol.md for the protocol.
`,
	"sessions": `zut sessions — list saved sessions

Usage:
  zut sessions [--all] [--json]

Without --all only sessions started in the current directory are listed.
Resume one with: zut -r <id>
`,
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

func writeMainHelp(w io.Writer) { io.WriteString(w, mainHelp) }

func runHelp(e *env, args []string) error {
	if len(args) == 0 || args[0] == "flags" {
		writeMainHelp(e.stdout)
		return nil
	}
	text, ok := helpTopics[args[0]]
	if !ok {
		var names []string
		for k := range helpTopics {
			names = append(names, k)
		}
		sort.Strings(names)
		return usagef("no help topic %q; topics: flags, %s", args[0], strings.Join(names, ", "))
	}
	_, err := fmt.Fprint(e.stdout, text)
	return err
}
