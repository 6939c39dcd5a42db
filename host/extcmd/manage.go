package extcmd

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/zut-go/zut/host"
	"github.com/zut-go/zut/proto/regular"
)

// runExtRemove deletes an installed extension from $ZUT_HOME/extensions
// after asking on the terminal; --yes skips the question, and without a
// terminal --yes is required.
func runExtRemove(e *Env, args []string) error {
	flags := extFlags(e, "remove", "[--yes] <name>")
	yes := flags.Bool("yes", false, "do not ask for confirmation")
	flags.BoolVar(yes, "y", false, "same as --yes")
	operands, err := parseVerb(flags, args)
	if err != nil {
		return verbDone(err)
	}
	if len(operands) != 1 {
		return usagef("zut ext remove needs one extension name, got %d operands", len(operands))
	}
	name := operands[0]
	if err := extName("remove", name); err != nil {
		return err
	}
	var target *host.Entry
	for _, en := range host.Discover(e.Home, "", nil) {
		if en.Scope == host.ScopeGlobal && en.Name() == name {
			target = &en
			break
		}
	}
	if target == nil {
		if en, _, ok := findExtension(e, name); ok && en.Scope == host.ScopeProject {
			return fmt.Errorf("remove extension %q: it is project-local, in %s; zut ext remove deletes installed extensions only, so delete that directory yourself", name, en.Dir)
		}
		return fmt.Errorf("remove extension %q: not installed in %s; zut ext list shows what is installed", name, extensionsDir(e))
	}
	if !*yes {
		if !isTerminal(e.Stdin) {
			return fmt.Errorf("remove extension %q: refusing to delete %s without confirmation, and stdin is not a terminal to ask on; pass --yes", name, target.Dir)
		}
		fmt.Fprintf(e.Stderr, "Remove extension %q and delete %s? [y/N] ", name, target.Dir)
		answer, _ := bufio.NewReader(e.Stdin).ReadString('\n')
		switch strings.ToLower(strings.TrimSpace(answer)) {
		case "y", "yes":
		default:
			_, err := fmt.Fprintf(e.Stdout, "kept %s\n", name)
			return err
		}
	}
	// Move it out of discovery's sight in one step, then delete it.
	gone, err := os.MkdirTemp(extensionsDir(e), ".removing-")
	if err != nil {
		return fmt.Errorf("remove extension %q: %w", name, err)
	}
	if err := os.Rename(target.Dir, filepath.Join(gone, name)); err != nil {
		os.Remove(gone)
		return fmt.Errorf("remove extension %q: %w", name, err)
	}
	if err := os.RemoveAll(gone); err != nil {
		return fmt.Errorf("remove extension %q: it is uninstalled, but deleting its files failed: %w (delete %s yourself)", name, err, gone)
	}
	_, err = fmt.Fprintf(e.Stdout, "removed %s (%s)\n", name, target.Dir)
	return err
}

// runExtEnable sets "enabled" in the manifest of the extension that
// discovery picks for name (project-local first), keeping every other
// member.
func runExtEnable(e *Env, args []string, enable bool) error {
	verb := "disable"
	if enable {
		verb = "enable"
	}
	flags := extFlags(e, verb, "<name>")
	operands, err := parseVerb(flags, args)
	if err != nil {
		return verbDone(err)
	}
	if len(operands) != 1 {
		return usagef("zut ext %s needs one extension name, got %d operands", verb, len(operands))
	}
	name := operands[0]
	if err := extName(verb, name); err != nil {
		return err
	}
	en, others, ok := findExtension(e, name)
	if !ok {
		return errNotFound(e, verb, name)
	}
	past := verb + "d"
	if en.Manifest != nil && en.Manifest.Enabled == enable {
		_, err := fmt.Fprintf(e.Stdout, "%s is already %s (%s)\n", name, past, en.Dir)
		return err
	}
	if err := host.SetEnabled(en.Dir, enable); err != nil {
		return fmt.Errorf("%s extension %q: %w", verb, name, err)
	}
	fmt.Fprintf(e.Stdout, "%s %s (%s, %s)\n", past, name, en.Scope, en.Dir)
	for _, o := range others {
		fmt.Fprintf(e.Stdout, "note: the copy in %s is shadowed by this one and was left as it is\n", o.Dir)
	}
	if en.Err != nil {
		fmt.Fprintf(e.Stdout, "note: its manifest has a problem: %v\n", en.Err)
	}
	return nil
}

// logPollInterval is how often logs -f looks for new output.
const logPollInterval = 200 * time.Millisecond

// runExtLogs prints an extension's stderr log; -f then follows it until
// ctx ends (Ctrl+C), which is not an error.
func runExtLogs(ctx context.Context, e *Env, args []string) error {
	flags := extFlags(e, "logs", "[-f] <name>")
	follow := flags.Bool("f", false, "keep printing what is appended, until interrupted")
	flags.BoolVar(follow, "follow", false, "same as -f")
	operands, err := parseVerb(flags, args)
	if err != nil {
		return verbDone(err)
	}
	if len(operands) != 1 {
		return usagef("zut ext logs needs one extension name, got %d operands", len(operands))
	}
	name := operands[0]
	if err := extName("logs", name); err != nil {
		return err
	}
	path := host.LogPath(e.Home, name)
	f, err := regular.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		if _, _, ok := findExtension(e, name); !ok {
			return fmt.Errorf("logs of extension %q: it is not installed, so it has no log; zut ext list shows what is installed", name)
		}
		return fmt.Errorf("logs of extension %q: no log at %s; it is written once the extension has run (zut ext doctor runs it)", name, path)
	}
	if err != nil {
		return fmt.Errorf("logs of extension %q: %w", name, err)
	}
	defer func() { f.Close() }()
	off, err := io.Copy(e.Stdout, f)
	if err != nil {
		return fmt.Errorf("logs of extension %q: %w", name, err)
	}
	if !*follow {
		return nil
	}
	tick := time.NewTicker(logPollInterval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
		// A log that shrank was truncated or replaced: start it over.
		if fi, err := os.Stat(path); err == nil && fi.Size() < off {
			nf, err := regular.Open(path)
			if err != nil {
				continue
			}
			f.Close()
			f, off = nf, 0
		}
		n, err := io.Copy(e.Stdout, f)
		off += n
		if err != nil {
			return fmt.Errorf("logs of extension %q: %w", name, err)
		}
	}
}
