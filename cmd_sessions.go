package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/zut-go/zut/agent/session"
)

// runSessions lists saved sessions: zut sessions [--all] [--json].
func runSessions(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("zut sessions", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	all := fs.Bool("all", false, "list the sessions of every directory")
	asJSON := fs.Bool("json", false, "print JSON")
	fs.Usage = func() { fmt.Fprint(e.stderr, helpTopics["sessions"]) }
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return nil
		}
		return errUsageSilent
	}
	if fs.NArg() > 0 {
		return usagef("zut sessions takes no arguments, got %q", fs.Arg(0))
	}
	cwd, err := os.Getwd()
	if err != nil {
		return err
	}
	infos, err := session.List(filepath.Join(e.zutHome(), "sessions"), cwd, *all)
	if err != nil {
		return fmt.Errorf("list sessions: %w", err)
	}
	if *asJSON {
		if infos == nil {
			infos = []session.Info{}
		}
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(infos)
	}
	if len(infos) == 0 {
		where := "this directory"
		if *all {
			where = "any directory"
		}
		fmt.Fprintf(e.stdout, "no saved sessions for %s; start one with: zut\n", where)
		return nil
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
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
	fmt.Fprintln(e.stdout, "\nresume one with: zut -r <id>   (a unique prefix is enough)")
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
