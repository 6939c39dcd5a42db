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
  zut sessions --tree ID

Lists ID (the first 12 characters), MODIFIED, MSGS (messages on all
branches) and TITLE (or the first prompt), newest first. Without --all
only sessions started in the current directory are listed; --all adds a
DIRECTORY column. --json prints every field, the file's path included.

--tree ID prints the session's tree: each entry's id, the branches, and
where the session continues (●). ID may be any unique prefix.

Resume one with: zut -r ID (a unique prefix is enough)
Branch off an entry: zut -r ID --fork ENTRY
`

// Sessions runs zut sessions [--all] [--json]: it lists the saved
// sessions of the working directory (of every directory with --all).
func Sessions(ctx context.Context, e *Env, args []string) error {
	fs := flag.NewFlagSet("zut sessions", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	all := fs.Bool("all", false, "list the sessions of every directory")
	asJSON := fs.Bool("json", false, "print JSON")
	tree := fs.String("tree", "", "print the tree of session ID with its entry ids")
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
	if *tree != "" {
		return printTree(e, *tree)
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

// printTree prints the tree of the session id (or a unique prefix): one
// entry a line, its id first, for --fork.
func printTree(e *Env, id string) error {
	info, err := FindSession(filepath.Join(e.Home(), "sessions"), id)
	if err != nil {
		return err
	}
	s, _, err := session.Open(info.Path)
	if err != nil {
		return fmt.Errorf("zut sessions --tree: %w", err)
	}
	defer s.Close()
	title := s.Title()
	if title == "" {
		title = "(untitled)"
	}
	fmt.Fprintf(e.Stdout, "session %s · %s\n\n", s.ID(), title)
	rows := TreeRows(s)
	if len(rows) == 0 {
		fmt.Fprintln(e.Stdout, "(no messages yet)")
		return nil
	}
	for _, r := range rows {
		mark := " "
		switch {
		case r.Current:
			mark = "●"
		case r.OnBranch:
			mark = "•"
		}
		fmt.Fprintf(e.Stdout, "%s  %s %s%s\n", r.ID, mark, r.Graph, r.Label)
	}
	fmt.Fprintf(e.Stdout, "\n● is where zut -r %s continues; branch off another entry with: zut -r %s --fork ENTRY\n", shortID(s.ID()), shortID(s.ID()))
	return nil
}
