package main

import (
	"flag"
	"io"
	"regexp"
	"strings"
)

// options are the main command's flags. They are parsed once by parseOptions
// and then passed by value to the mode that runs.
type options struct {
	print        bool
	mode         string // "", "print", "json", "rpc", "interactive"
	provider     string
	model        string
	baseURL      string
	apiKey       string
	reasoning    string
	exts         stringList
	noExtensions bool
	cont         bool
	resume       string
	resumeSet    bool
	sessionPath  string
	noSession    bool
	fork         string
	systemPrompt string
	appendSystem string
	noContext    bool
	noSkills     bool
	yolo         bool
	noYolo       bool
	maxSteps     int
	listModels   bool
	version      bool
	help         bool
	prompt       []string
}

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

func newAgentFlagSet(o *options, out io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("zut", flag.ContinueOnError)
	fs.SetOutput(out)
	fs.Usage = func() { writeMainHelp(out) }
	fs.BoolVar(&o.print, "p", false, "print mode: answer one prompt and exit")
	fs.BoolVar(&o.print, "print", false, "print mode")
	fs.StringVar(&o.mode, "mode", "", "interactive, print, json or rpc")
	fs.StringVar(&o.provider, "provider", "", "provider name")
	fs.StringVar(&o.model, "model", "", "model id, or provider/model")
	fs.StringVar(&o.model, "m", "", "model id")
	fs.StringVar(&o.baseURL, "base-url", "", "API base URL")
	fs.StringVar(&o.apiKey, "api-key", "", "API key")
	fs.StringVar(&o.reasoning, "reasoning", "", "reasoning effort: off, low, medium, high")
	fs.Var(&o.exts, "ext", "load the extension in DIR for this run (repeatable)")
	fs.Var(&o.exts, "e", "short for --ext")
	fs.BoolVar(&o.noExtensions, "no-extensions", false, "load no extensions")
	fs.BoolVar(&o.cont, "continue", false, "continue the latest session of this directory")
	fs.BoolVar(&o.cont, "c", false, "short for --continue")
	fs.Var(optionalString{&o.resume, &o.resumeSet}, "resume", "resume a session (by id, or pick)")
	fs.Var(optionalString{&o.resume, &o.resumeSet}, "r", "short for --resume")
	fs.StringVar(&o.sessionPath, "session", "", "use the session file at PATH")
	fs.BoolVar(&o.noSession, "no-session", false, "do not save this session")
	fs.StringVar(&o.fork, "fork", "", "start a new branch from entry ID of the session chosen by -c, -r or --session")
	fs.StringVar(&o.systemPrompt, "system-prompt", "", "replace the system prompt (text or @file)")
	fs.StringVar(&o.appendSystem, "append-system-prompt", "", "append to the system prompt (text or @file)")
	fs.BoolVar(&o.noContext, "no-context-files", false, "do not read AGENTS.md / CLAUDE.md")
	fs.BoolVar(&o.noSkills, "no-skills", false, "do not offer skills")
	fs.BoolVar(&o.yolo, "yolo", false, "run tools without asking")
	fs.BoolVar(&o.noYolo, "no-yolo", false, "in print/json modes, deny mutating tools")
	fs.IntVar(&o.maxSteps, "max-steps", 0, "stop after N model turns (0: no limit)")
	fs.BoolVar(&o.listModels, "list-models", false, "list known models and exit")
	fs.BoolVar(&o.version, "version", false, "print the version and exit")
	fs.BoolVar(&o.help, "help", false, "show help")
	fs.BoolVar(&o.help, "h", false, "show help")
	return fs
}

// parseOptions parses the main command line. Flags may follow the prompt
// ("zut -p hi --model x" and "zut --model x -p hi" both work).
func parseOptions(args []string, out io.Writer) (options, error) {
	var o options
	fs := newAgentFlagSet(&o, out)
	rest := joinResumeID(args)
	for {
		if err := fs.Parse(rest); err != nil {
			if err == flag.ErrHelp {
				o.help = true
				return o, nil
			}
			return o, errUsageSilent
		}
		consumed := len(rest) - len(fs.Args())
		if consumed > 0 && rest[consumed-1] == "--" {
			o.prompt = append(o.prompt, fs.Args()...)
			break
		}
		rest = fs.Args()
		if len(rest) == 0 {
			break
		}
		o.prompt = append(o.prompt, rest[0])
		rest = rest[1:]
	}
	if o.print {
		if o.mode != "" && o.mode != "print" {
			return o, usagef("-p conflicts with --mode %s", o.mode)
		}
		o.mode = "print"
	}
	switch o.mode {
	case "", "interactive", "print", "json", "rpc":
	default:
		return o, usagef("unknown --mode %q: use interactive, print, json or rpc", o.mode)
	}
	if o.yolo && o.noYolo {
		return o, usagef("--yolo and --no-yolo conflict: pick one")
	}
	if o.maxSteps < 0 {
		return o, usagef("--max-steps must be 0 or more, got %d", o.maxSteps)
	}
	n := 0
	for _, b := range []bool{o.cont, o.resumeSet, o.sessionPath != "", o.noSession} {
		if b {
			n++
		}
	}
	if n > 1 {
		return o, usagef("use only one of --continue, --resume, --session and --no-session")
	}
	if o.fork != "" && !o.cont && !o.resumeSet && o.sessionPath == "" {
		return o, usagef("--fork needs the session to fork: add -c, -r ID or --session PATH")
	}
	return o, nil
}

// sessionIDLike matches what -r takes as a session id rather than a prompt.
var sessionIDLike = regexp.MustCompile(`^[0-9a-fA-F][0-9a-fA-F-]{3,}$`)

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
			if i+1 < len(args) && sessionIDLike.MatchString(args[i+1]) {
				out = append(out, a+"="+args[i+1])
				i++
				continue
			}
		}
		out = append(out, a)
	}
	return out
}
