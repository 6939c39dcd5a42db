package zutfilecmd

import (
	"context"
	"encoding/hex"
	"flag"
	"fmt"
	"strings"

	"github.com/zut-go/zut/agent/zutfile"
)

// VerifyHelp is the text of zut help verify.
const VerifyHelp = `zut verify — check a packaged agent and its digest

Usage:
  zut verify SOURCE [--digest sha256:HEX]

SOURCE is a directory, a .zut archive or a GitHub repository
owner/repo[/path] (a path on disk comes first). verify reads the agent
as zut run would: the manifest, the limits of a zutfile (100 MiB archive,
64 MiB per file, 256 MiB in all, 10,000 entries) and the refusals of
archives (absolute or .. paths, links, devices, duplicates), and prints
its digest. With --digest it also checks the agent is exactly the one
that digest names, and exits with status 1 when it is not.

Example:
  zut verify code-reviewer-1.0.0.zut --digest sha256:0123…
`

// Verify is zut verify SOURCE [--digest sha256:HEX].
func Verify(ctx context.Context, e *Env, args []string) error {
	fs := flag.NewFlagSet("zut verify", flag.ContinueOnError)
	want := fs.String("digest", "", "the digest the agent must have (sha256:HEX)")
	operands, err := parse(e, fs, VerifyHelp, args)
	if err != nil {
		return done(err)
	}
	if len(operands) != 1 {
		return usagef("usage: zut verify SOURCE [--digest sha256:HEX] (zut help verify)")
	}
	if *want != "" && !validDigest(*want) {
		return usagef("zut verify: --digest %q is not a digest; write sha256: and 64 hex digits, as zut pack and zut inspect print it", *want)
	}
	a, cleanup, err := zutfile.Load(ctx, operands[0], zutfile.LoadOptions{})
	if err != nil {
		return err
	}
	defer cleanup()
	warn(e, a)
	if *want != "" && !strings.EqualFold(*want, a.Digest) {
		return fmt.Errorf("verify %s: digest mismatch: the agent %s is %s, not %s; it is not the agent that digest names, so do not run it unless you trust the change", operands[0], a.Manifest.Name, a.Digest, *want)
	}
	what := "digest"
	if *want != "" {
		what = "digest matches"
	}
	_, err = fmt.Fprintf(e.Stdout, "ok %s (%d files)\n%s %s\n", ident(a.Manifest), len(a.Files), what, a.Digest)
	return err
}

func validDigest(d string) bool {
	h, ok := strings.CutPrefix(d, "sha256:")
	if !ok || len(h) != 64 {
		return false
	}
	_, err := hex.DecodeString(h)
	return err == nil
}
