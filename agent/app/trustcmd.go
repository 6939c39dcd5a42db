package app

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/zut-go/zut/host"
)

// TrustHelp is the text of zut help trust.
const TrustHelp = `zut trust — trust a folder's code, as direnv allow does

Usage:
  zut trust [DIR]            trust the project of DIR (default: this folder) as it is now
  zut trust --forget [DIR]   forget that trust; zut asks again
  zut trust list             the trusted projects, and whether they changed since

A project's extensions (.zut/extensions), MCP servers (.mcp.json),
language servers (.zut/lsp.json) and allow rules (.zut/settings.json) run
only once you trust it. The answer is kept in $ZUT_HOME/trust.json under
the repository root, with a digest of what it covered: when that changes,
zut asks again (zut trust prints what it trusted). --trust on zut,
zut ext list, zut ext doctor, zut mcp list and zut mcp doctor trusts a
folder for one run.
`

// TrustCommand runs zut trust.
func TrustCommand(ctx context.Context, e *Env, args []string) error {
	fs := flag.NewFlagSet("zut trust", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	forget := fs.Bool("forget", false, "forget the trust in DIR's project")
	if err := fs.Parse(args); err != nil {
		return Usagef("zut trust: %v\n\n%s", err, TrustHelp)
	}
	rest := fs.Args()
	home := e.Home()
	if len(rest) == 1 && rest[0] == "list" && !*forget {
		return trustList(e, home)
	}
	if len(rest) > 1 {
		return Usagef("zut trust takes one directory, got %q\n\n%s", rest, TrustHelp)
	}
	dir := "."
	if len(rest) == 1 {
		dir = rest[0]
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		return fmt.Errorf("zut trust: %s is not a directory", dir)
	}
	store := host.OpenTrust(home)
	if *forget {
		root := host.ProjectRoot(abs)
		if err := store.Forget(root); err != nil {
			return fmt.Errorf("forget the trust in %s: %w", root, err)
		}
		_, err := fmt.Fprintf(e.Stdout, "forgot %s: zut asks again before running its code\n", root)
		return err
	}
	t := projectTrust(home, abs, nil, false)
	if t.StoreErr != nil {
		return t.StoreErr
	}
	if err := store.Allow(t.Root, t.Digest); err != nil {
		return fmt.Errorf("trust %s: %w", t.Root, err)
	}
	what := t.Summary()
	if what == "" {
		what = "nothing that runs code yet; zut asks again when some appears"
	}
	_, err = fmt.Fprintf(e.Stdout, "trusted %s: %s\n", t.Root, what)
	return err
}

func trustList(e *Env, home string) error {
	list, err := host.OpenTrust(home).List()
	if err != nil {
		return err
	}
	if len(list) == 0 {
		_, err := fmt.Fprintln(e.Stdout, "no trusted projects (zut trust DIR trusts one)")
		return err
	}
	var b strings.Builder
	for _, p := range list {
		state := "changed since: zut asks again (zut trust " + p.Root + " trusts it as it is now)"
		if fi, err := os.Stat(p.Root); err != nil || !fi.IsDir() {
			state = "gone"
		} else if t := projectTrust(home, p.Root, nil, false); t.Digest == p.Digest {
			state = "trusted"
		}
		fmt.Fprintf(&b, "%s  %s  %s\n", p.Root, p.Allowed.Local().Format("2006-01-02 15:04"), state)
	}
	_, err = io.WriteString(e.Stdout, b.String())
	return err
}
