package app

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/zut-go/zut/agent/session"
)

// SessionsHelp is the text of zut help sessions.
const SessionsHelp = `zut sessions — list saved sessions

Usage:
  zut sessions [--all] [--json]

Without --all only sessions started in the current directory are listed.
Resume one with: zut -r <id>
`

// Sessions runs zut sessions [--all] [--json]: it lists the saved
// sessions of the working directory (of every directory with --all).
func Sessions(ctx context.Context, e *Env, args []string) error {
	fs := flag.NewFlagSet("zut sessions", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	all := fs.Bool("all", false, "list the sessions of every directory")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			fmt.Fprint(e.Stdout, SessionsHelp)
			return nil
		}
		return FlagError(fs, err, "zut help sessions")
	}
	if fs.NArg() > 0 {
		return Usagef("zut sessions takes no arguments, got %q", fs.Arg(0))
	}
	cwd, err := os.Getwd()
	if err != nil {
		return err
	}
	infos, err := session.List(filepath.Join(e.Home(), "sessions"), cwd, *all)
	if err != nil {
		return fmt.Errorf("list sessions: %w", err)
	}
	if *asJSON {
		if infos == nil {
			infos = []session.Info{}
		}
		enc := json.NewEncoder(e.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(infos)
	}
	if len(infos) == 0 {
		where := "this directory"
		if *all {
			where = "any directory"
		}
		fmt.Fprintf(e.Stdout, "no saved sessions for %s; start one with: zut\n", where)
		return nil
	}
	tw := tabwriter.NewWriter(e.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprint(tw, "ID\tMODIFIED\tMSGS\tTITLE")
	if *all {
		fmt.Fprint(tw, "\tDIRECTORY")
	}
	fmt.Fprintln(tw)
	for _, s := range infos {
		title := s.Title
		if title == "" {
			title = s.Preview
		}
		title = oneLineClip(title, 60)
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s", shortID(s.ID), s.Modified.Local().Format(time.DateTime), s.Messages, title)
		if *all {
			fmt.Fprintf(tw, "\t%s", s.CWD)
		}
		fmt.Fprintln(tw)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(e.Stdout, "\nresume one with: zut -r <id>   (a unique prefix is enough)")
	return nil
}

func shortID(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

// oneLineClip flattens s to one line of at most n runes.
func oneLineClip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
