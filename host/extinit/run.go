package extinit

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/zut-go/zut/host/internal/cmdline"
)

// Synopsis is the usage line of zut ext init.
const Synopsis = "zut ext init <name> [--lang go|python|node|sh] [--command] [--tool] [--panel] [--dir DIR]"

// UsageError is a mistake on the command line; the usage was written to
// stderr. main exits with status 2 for it.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// ExitCode is the process status for a usage error (app.ExitCode).
func (e *UsageError) ExitCode() int { return 2 }

// Run runs "zut ext init" with args (what follows "init"): it writes the
// extension and tells on stdout what it wrote and what to run next. Flags
// may follow the name. -h writes the usage to stdout and returns nil.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("zut ext init", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var opts Options
	var dir string
	fs.StringVar(&opts.Lang, "lang", LangPython, "the language: go, python, node or sh (raw JSON with jq)")
	fs.BoolVar(&opts.Command, "command", false, "add the slash command /<name> (the default when nothing else is asked for)")
	fs.BoolVar(&opts.Tool, "tool", false, "add a tool the model can call")
	fs.BoolVar(&opts.Panel, "panel", false, "add a command /<name>-panel that opens an interactive panel")
	fs.StringVar(&dir, "dir", "", "the directory to create (default ./<name>)")
	usage := func(w io.Writer) {
		fmt.Fprintf(w, "usage: %s\n\nWrites a new extension directory: extension.json, the program on the SDK of\nits language, a README and a test.\n\n", Synopsis)
		fs.SetOutput(w)
		fs.PrintDefaults()
		fs.SetOutput(stderr)
	}
	fs.Usage = func() { usage(stderr) }

	operands, err := cmdline.Parse(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(io.Discard)
			usage(stdout)
			return nil
		}
		return &UsageError{Msg: "zut ext init: " + err.Error()}
	}
	if len(operands) != 1 {
		usage(stderr)
		if len(operands) == 0 {
			return &UsageError{Msg: "zut ext init: give the extension's name, for example: zut ext init my-ext --lang python"}
		}
		return &UsageError{Msg: fmt.Sprintf("zut ext init: one name only, got %q", operands)}
	}
	name := operands[0]
	if dir == "" {
		dir = name
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := Init(dir, name, opts); err != nil {
		return err
	}
	shown := dir
	if !filepath.IsAbs(shown) && !strings.HasPrefix(shown, ".") {
		shown = "." + string(filepath.Separator) + shown
	}
	fmt.Fprintf(stdout, "created %s: a %s extension named %s\n\nnext:\n", shown, opts.Lang, name)
	for _, s := range nextSteps(opts.Lang, shown, name) {
		fmt.Fprintf(stdout, "  %-36s # %s\n", s[0], s[1])
	}
	return nil
}

// nextSteps are the commands to run after Init, with what each does.
func nextSteps(lang, dir, name string) [][2]string {
	load := [2]string{"zut --ext " + dir, "load it for one run of zut"}
	check := [2]string{"zut ext test " + dir, "check it against the protocol"}
	install := [2]string{"zut ext install " + dir, "install it"}
	switch lang {
	case LangGo:
		return [][2]string{
			{"cd " + dir + " && go build -o " + name + " .", "build it (outside the zut repository it needs a go.mod first: see README.md)"},
			{"go test", "run its test"},
			{"zut ext test .", "build it and check it against the protocol"},
			{"zut --ext .", "load it for one run of zut"},
			{"zut ext install --build=go .", "install it"},
		}
	case LangNode:
		return [][2]string{load, {"cd " + dir + " && node --test", "run its test"}, check, install}
	case LangSh:
		return [][2]string{{load[0], load[1] + " (jq must be on PATH)"}, {"sh " + dir + "/test.sh", "run its test"}, check, install}
	}
	return [][2]string{load, {"cd " + dir + " && python3 -m unittest", "run its test"}, check, install}
}
