package app

import (
	"flag"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/zut-go/zut/agent/permissions"
	"github.com/zut-go/zut/agent/sandbox"
	"github.com/zut-go/zut/provider"
)

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }

// optionalString is a flag that may appear with or without a value
// (-r, -r ID, --resume=ID).
type optionalString struct {
	val *string
	set *bool
}

func (o optionalString) String() string {
	if o.val == nil {
		return ""
	}
	return *o.val
}
func (o optionalString) Set(v string) error {
	if v == "true" { // bare -r: the flag package passes "true"
		v = ""
	}
	*o.val = v
	*o.set = true
	return nil
}
func (o optionalString) IsBoolFlag() bool { return true }

// Register defines the main command's flags on fs, writing into o.
func (o *Options) Register(fs *flag.FlagSet) {
	fs.BoolVar(&o.Print, "p", false, "print mode: answer one prompt and exit")
	fs.BoolVar(&o.Print, "print", false, "print mode")
	fs.BoolVar(&o.jsonAlias, "json", false, "same as --mode json")
	fs.BoolVar(&o.rpcAlias, "rpc", false, "same as --mode rpc")
	fs.StringVar(&o.Mode, "mode", "", "interactive, print, json or rpc")
	fs.StringVar(&o.Provider, "provider", "", "provider name")
	fs.BoolVar(&o.Demo, "demo", false, "use the built-in demo model: no key, no server, no network")
	fs.StringVar(&o.Model, "model", "", "model id, or provider/model")
	fs.StringVar(&o.Model, "m", "", "model id")
	fs.StringVar(&o.BaseURL, "base-url", "", "API base URL")
	fs.StringVar(&o.APIKey, "api-key", "", "API key")
	fs.StringVar(&o.Reasoning, "reasoning", "", "reasoning: off, minimal, low, medium, high, max, adaptive, or a token budget")
	fs.Var((*stringList)(&o.Exts), "ext", "load the extension in DIR for this run (repeatable)")
	fs.Var((*stringList)(&o.Exts), "e", "short for --ext")
	fs.BoolVar(&o.NoExtensions, "no-extensions", false, "load no extensions")
	fs.BoolVar(&o.Continue, "continue", false, "continue the latest session of this directory")
	fs.BoolVar(&o.Continue, "c", false, "short for --continue")
	fs.Var(optionalString{&o.Resume, &o.ResumeSet}, "resume", "resume a session (by id, or pick)")
	fs.Var(optionalString{&o.Resume, &o.ResumeSet}, "r", "short for --resume")
	fs.StringVar(&o.SessionPath, "session", "", "use the session file at PATH")
	fs.BoolVar(&o.NoSession, "no-session", false, "do not save this session")
	fs.StringVar(&o.Fork, "fork", "", "start a new branch from entry ID of the session chosen by -c, -r or --session")
	fs.StringVar(&o.SystemPrompt, "system-prompt", "", "replace the system prompt (text or @file)")
	fs.StringVar(&o.AppendSystemPrompt, "append-system-prompt", "", "append to the system prompt (text or @file)")
	fs.BoolVar(&o.NoContextFiles, "no-context-files", false, "do not read AGENTS.md / CLAUDE.md")
	fs.BoolVar(&o.NoSkills, "no-skills", false, "do not offer skills")
	fs.Func("no-tools", "do not offer these built-in tools (comma-separated, repeatable)", toolList(&o.NoTools))
	fs.Func("tools", "offer only these built-in tools (comma-separated, repeatable; extension and MCP tools stay)", toolList(&o.Tools))
	fs.Var((*stringList)(&o.MCPConfigs), "mcp-config", "also start the MCP servers FILE lists, for this run (repeatable)")
	fs.BoolVar(&o.Trust, "trust", false, "run this folder's extensions and MCP and LSP configuration without asking, this once")
	fs.BoolVar(&o.Yolo, "yolo", false, "run tools without asking")
	fs.BoolVar(&o.NoYolo, "no-yolo", false, "in print/json modes, deny mutating tools")
	fs.StringVar(&o.Sandbox, "sandbox", "", "run commands in an OS sandbox: read-only, workspace-write or danger-full-access")
	fs.IntVar(&o.MaxSteps, "max-steps", 0, "stop after N model turns (0: no limit)")
	fs.Func("temperature", "sampling temperature, 0 to 2", func(v string) error {
		t, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || t < 0 || t > 2 {
			return fmt.Errorf("%q is not a temperature from 0 to 2", v)
		}
		o.Temperature = &t
		return nil
	})
	fs.StringVar(&o.CWD, "cwd", "", "work in DIR instead of the current directory")
	fs.BoolVar(&o.NoLSP, "no-lsp", false, "start no language server: no lsp tool, no diagnostics after edits")
	fs.BoolVar(&o.Stream, "stream", false, "print mode: write the answer as it arrives")
	fs.StringVar(&o.Stats, "stats", "", "print and JSON modes: write the run's statistics (JSON) to PATH")
	fs.BoolVar(&o.Orchestrate, "orchestrate", false, "split the task into independent parts for subagents, then synthesise their results")
	fs.StringVar(&o.Goal, "goal", "", "set the session's goal: zut keeps working until the model reports it complete or blocked")
	fs.Var((*stringList)(&o.Allow), "allow", "run the tool calls RULE matches without asking (repeatable)")
	fs.Var((*stringList)(&o.Deny), "deny", "refuse the tool calls RULE matches (repeatable)")
	fs.BoolVar(&o.ListModels, "list-models", false, "list known models and exit")
	fs.BoolVar(&o.Version, "version", false, "print the version and exit")
	fs.BoolVar(&o.Version, "v", false, "short for --version")
	fs.BoolVar(&o.Help, "help", false, "show help")
	fs.BoolVar(&o.Help, "h", false, "show help")
}

// ParseOptions parses the main command line with the flag package. Flags
// may follow the prompt ("zut -p hi --model x" and "zut --model x -p hi"
// both work). -h and --help set Help. A flag error is a usage error that
// names the flag, suggests the one meant and says where help is (out and
// usage are no longer written to; they are kept for the callers).
func ParseOptions(args []string, out io.Writer, usage func()) (Options, error) {
	return parseOptions(args, nil, "zut --help lists the flags")
}

// ParseRunOptions parses the command line of zut run: every flag of the
// main command, --yes and --keep; the first word left is the agent's
// source, the others the prompt.
func ParseRunOptions(args []string) (Options, error) {
	return parseOptions(args, func(fs *flag.FlagSet, o *Options) {
		fs.BoolVar(&o.AgentYes, "yes", false, "consent to the agent's permissions (remembered for its digest)")
		fs.BoolVar(&o.AgentKeep, "keep", false, "keep the copy of an agent fetched from an archive or a repository")
	}, "zut help run lists the flags")
}

func parseOptions(args []string, extra func(*flag.FlagSet, *Options), help string) (Options, error) {
	var o Options
	fs := flag.NewFlagSet("zut", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	o.Register(fs)
	if extra != nil {
		extra(fs, &o)
	}
	rest := joinResumeID(args)
	for {
		if err := fs.Parse(rest); err != nil {
			if err == flag.ErrHelp {
				o.Help = true
				return o, nil
			}
			return o, FlagError(fs, err, help)
		}
		consumed := len(rest) - len(fs.Args())
		if consumed > 0 && rest[consumed-1] == "--" {
			o.Prompt = append(o.Prompt, fs.Args()...)
			break
		}
		rest = fs.Args()
		if len(rest) == 0 {
			break
		}
		o.Prompt = append(o.Prompt, rest[0])
		rest = rest[1:]
	}
	for _, alias := range []struct {
		set  bool
		mode string
	}{{o.jsonAlias, "json"}, {o.rpcAlias, "rpc"}} {
		if !alias.set {
			continue
		}
		if o.Mode != "" && o.Mode != alias.mode {
			return o, Usagef("--%s conflicts with --mode %s", alias.mode, o.Mode)
		}
		o.Mode = alias.mode
	}
	if o.Print {
		if o.Mode != "" && o.Mode != "print" {
			return o, Usagef("-p conflicts with --mode %s", o.Mode)
		}
		o.Mode = "print"
	}
	switch o.Mode {
	case "", "interactive", "print", "json", "rpc":
	default:
		return o, Usagef("unknown --mode %q: use interactive, print, json or rpc", o.Mode)
	}
	if o.Reasoning != "" { // the default needs no check
		if _, err := provider.ParseReasoning(o.Reasoning); err != nil {
			if near := Nearest(strings.ToLower(o.Reasoning), provider.ReasoningLevels); near != "" {
				return o, Usagef("%v (did you mean --reasoning %s?)", err, near)
			}
			return o, Usagef("%v", err)
		}
	}
	if o.Demo {
		if o.Provider != "" && o.Provider != provider.DemoProvider || o.BaseURL != "" || o.Model != "" && !strings.HasPrefix(o.Model, provider.DemoProvider+"/") {
			return o, Usagef("--demo picks the built-in demo model: drop --provider, --model and --base-url, or drop --demo")
		}
		o.Provider = provider.DemoProvider
	}
	if o.Sandbox != "" {
		if _, err := sandbox.ParseMode(o.Sandbox); err != nil {
			return o, Usagef("--sandbox: %v", err)
		}
	}
	if o.Yolo && o.NoYolo {
		return o, Usagef("--yolo and --no-yolo conflict: pick one")
	}
	for _, f := range []struct {
		name  string
		rules []string
	}{{"allow", o.Allow}, {"deny", o.Deny}} {
		for _, text := range f.rules {
			if _, err := permissions.ParseRule(text, permissions.Allow, permissions.SourceFlag); err != nil {
				return o, Usagef("--%s: %v", f.name, err)
			}
		}
	}
	if o.Stream && o.Mode != "print" {
		return o, Usagef("--stream goes with -p (print mode); JSON mode streams every event already")
	}
	if o.Stats != "" && o.Mode != "print" && o.Mode != "json" {
		return o, Usagef("--stats goes with -p or --mode json")
	}
	if o.NoLSP {
		o.NoTools = append(o.NoTools, "lsp")
	}
	if o.MaxSteps < 0 {
		return o, Usagef("--max-steps must be 0 or more, got %d", o.MaxSteps)
	}
	n := 0
	for _, b := range []bool{o.Continue, o.ResumeSet, o.SessionPath != "", o.NoSession} {
		if b {
			n++
		}
	}
	if n > 1 {
		return o, Usagef("use only one of --continue, --resume, --session and --no-session")
	}
	if o.Fork != "" && !o.Continue && !o.ResumeSet && o.SessionPath == "" {
		return o, Usagef("--fork needs the session to fork: add -c, -r ID or --session PATH")
	}
	return o, nil
}

// sessionIDLike matches what -r takes as a session id (or a prefix of
// one, two characters or more) rather than a prompt: hex digits and
// dashes ("zut -r f6"). A prompt that looks like one goes after --.
func sessionIDLike() *regexp.Regexp {
	return sessionIDLikeLazy.get(func() *regexp.Regexp {
		return regexp.MustCompile(`^[0-9a-fA-F][0-9a-fA-F-]+$`)
	})
}

var sessionIDLikeLazy lazy[*regexp.Regexp]

// joinResumeID rewrites "-r ID" as "-r=ID" when the next argument looks
// like a session id (or prefix), because the flag package cannot give a
// flag an optional value: "zut -r" picks a session, "zut -r 3f2a" resumes
// 3f2a, and "zut -r 'fix the bug'" resumes the latest with that prompt.
func joinResumeID(args []string) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i:]...)
		}
		switch a {
		case "-r", "--r", "-resume", "--resume":
			if i+1 < len(args) && sessionIDLike().MatchString(args[i+1]) {
				out = append(out, a+"="+args[i+1])
				i++
				continue
			}
		}
		out = append(out, a)
	}
	return out
}

// toolList appends the comma-separated names of a --tools or --no-tools
// value to list.
func toolList(list *[]string) func(string) error {
	return func(v string) error {
		for _, n := range strings.Split(v, ",") {
			if n = strings.TrimSpace(n); n != "" {
				*list = append(*list, n)
			}
		}
		return nil
	}
}
