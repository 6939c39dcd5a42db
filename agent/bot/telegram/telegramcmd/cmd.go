// Package telegramcmd is the "zut telegram" command: setup (token and
// pairing), run (the bot in the foreground), start/stop/status/logs (the
// bot as a detached daemon) and reset. It also opens a configured bot for
// a mirror of the interactive terminal (Open).
//
// Each bot lives in $ZUT_HOME/telegram/<username>/: token (0600),
// pairing.json, offset, bot.pid (locked while the bot runs), status.json
// (running, or why it stopped) and bot.log (the daemon's output).
package telegramcmd

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/zut-go/zut/agent/bot"
)

// Env is what the command needs from the process.
type Env struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Getenv         func(string) string
	ZutHome        string // $ZUT_HOME
	Executable     string // the zut binary, re-executed by start
}

// NewAgent builds zut's app for one bot conversation (see bot.Agent).
type NewAgent func(ctx context.Context) (bot.Agent, error)

// UsageError is a command line zut telegram cannot run; main exits with
// status 2 on it.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// ExitCode is the process status for a usage error (app.ExitCode).
func (e *UsageError) ExitCode() int { return 2 }

const usage = `usage: zut telegram <command> [flags]

  setup [-pair]       store a bot token from @BotFather and print a pairing code
  run                 run the bot in the foreground (Ctrl-C stops it)
  start               run the bot in the background
  stop                stop the background bot
  status              say whether the bot runs, and why it stopped last
  logs [-f] [-n N]    print the bot's log (-f: follow it)
  reset               stop the bot and forget its token, pairing and state

Every command takes -bot NAME when more than one bot is set up.
Environment: ZUT_TELEGRAM_TOKEN (the token for setup), ZUT_TELEGRAM_API_URL
(a self-hosted Bot API server; default https://api.telegram.org).`

// Help is the text of zut help telegram.
const Help = usage + "\n\nThe bot runs zut in the directory it was started in, with the model of\nconfig.json (or the environment); /model in the chat switches it. See\ndocs/telegram.md.\n"

// Main runs "zut telegram args...". newAgent builds the app for run.
func Main(ctx context.Context, env Env, args []string, newAgent NewAgent) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "-help" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprintln(env.Stdout, usage)
		if len(args) == 0 {
			return &UsageError{Msg: "zut telegram: say which command to run"}
		}
		return nil
	}
	if env.ZutHome == "" {
		return errors.New("zut telegram: ZUT_HOME is not known; set ZUT_HOME or HOME")
	}
	if env.Getenv == nil {
		env.Getenv = func(string) string { return "" }
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "setup":
		return setup(ctx, env, rest)
	case "run":
		return run(ctx, env, rest, newAgent)
	case "start":
		return start(ctx, env, rest)
	case "stop":
		return stopCmd(ctx, env, rest)
	case "status":
		return status(ctx, env, rest)
	case "logs":
		return logs(ctx, env, rest)
	case "reset":
		return reset(ctx, env, rest)
	}
	return &UsageError{Msg: fmt.Sprintf("zut telegram: unknown command %q\n%s", cmd, usage)}
}

// flags returns a flag set for command with -bot, writing its usage to
// stderr.
func flags(env Env, command string) (*flag.FlagSet, *string) {
	fs := flag.NewFlagSet("zut telegram "+command, flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	name := fs.String("bot", "", "the bot's username, when more than one is set up")
	return fs, name
}

func parse(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return &UsageError{Msg: err.Error()}
	}
	if fs.NArg() > 0 {
		return &UsageError{Msg: fmt.Sprintf("%s: unexpected argument %q", fs.Name(), fs.Arg(0))}
	}
	return nil
}

func botsDir(env Env) string { return filepath.Join(env.ZutHome, "telegram") }

// validUsername reports whether s can be a bot's username: 1 to 64
// letters, digits and underscores. (A regexp with a counted repetition
// costs its compilation at every start of zut; this costs nothing.)
func validUsername(s string) bool {
	return runOf(s, 1, 64, func(c byte) bool { return isAlnum(c) || c == '_' })
}

// runOf reports whether s has min to max bytes, each ok.
func runOf(s string, min, max int, ok func(byte) bool) bool {
	if len(s) < min || len(s) > max {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !ok(s[i]) {
			return false
		}
	}
	return true
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// bots lists the bots that are set up (a directory with a token).
func bots(env Env) []string {
	entries, _ := os.ReadDir(botsDir(env))
	var names []string
	for _, e := range entries {
		if e.IsDir() && validUsername(e.Name()) {
			if _, err := os.Stat(filepath.Join(botsDir(env), e.Name(), "token")); err == nil {
				names = append(names, e.Name())
			}
		}
	}
	sort.Strings(names)
	return names
}

// pick chooses the bot a command is about.
func pick(env Env, name string) (string, error) {
	name = strings.TrimPrefix(name, "@")
	all := bots(env)
	if name != "" {
		for _, b := range all {
			if strings.EqualFold(b, name) {
				return b, nil
			}
		}
		if len(all) == 0 {
			return "", fmt.Errorf("no bot @%s is set up: run zut telegram setup", name)
		}
		return "", fmt.Errorf("no bot @%s is set up; the bots are @%s", name, strings.Join(all, ", @"))
	}
	switch len(all) {
	case 0:
		return "", errors.New("no Telegram bot is set up: run zut telegram setup")
	case 1:
		return all[0], nil
	}
	return "", fmt.Errorf("several bots are set up (@%s): say which with -bot NAME", strings.Join(all, ", @"))
}

func dirOf(env Env, name string) string { return filepath.Join(botsDir(env), name) }
