package zutfilecmd

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/zut-go/zut/agent/zutfile"
	"github.com/zut-go/zut/proto/regular"
)

// PackHelp is the text of zut help pack.
const PackHelp = `zut pack — write a packaged agent as a .zut archive

Usage:
  zut pack DIR [-o FILE.zut]

Checks the agent in DIR (its manifest.json, the limits of a zutfile, no
symbolic links), then writes it as a tar archive compressed with gzip, the
same bytes for the same files, and prints the archive's path and the
agent's digest. Without -o the archive is NAME-VERSION.zut (NAME.zut
without a version) in the current directory. .git directories are left
out. See docs/zutfiles.md.

Example:
  zut pack examples/agents/code-reviewer
  zut pack ./my-agent -o dist/my-agent.zut
`

// Pack is zut pack DIR [-o FILE.zut].
func Pack(ctx context.Context, e *Env, args []string) error {
	fs := flag.NewFlagSet("zut pack", flag.ContinueOnError)
	out := fs.String("o", "", "the archive to write (default NAME-VERSION.zut here)")
	operands, err := parse(e, fs, PackHelp, args)
	if err != nil {
		return done(err)
	}
	if len(operands) != 1 {
		return usagef("usage: zut pack DIR [-o FILE.zut] (zut help pack)")
	}
	dir := operands[0]
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return usagef("zut pack %s: not a directory; give the agent's directory, the one holding manifest.json", dir)
	}
	a, _, err := zutfile.Load(ctx, dir, zutfile.LoadOptions{})
	if err != nil {
		return err
	}
	warn(e, a)
	path := *out
	if path == "" {
		name := a.Manifest.Name
		if v := a.Manifest.Version; v != "" && zutfile.ValidName(name+"-"+v) == nil {
			name += "-" + v
		}
		path = name + zutfile.ArchiveExt
	}
	full := path
	if !filepath.IsAbs(full) {
		full = filepath.Join(e.CWD, full)
	}
	if abs, err := filepath.Abs(filepath.Dir(full)); err == nil {
		if real, err := filepath.EvalSymlinks(abs); err == nil && inside(a.Dir, real) {
			return usagef("zut pack %s: the archive %s would be inside the agent, and packed into it next time; write it elsewhere with -o", dir, path)
		}
	}
	f, err := os.CreateTemp(filepath.Dir(full), "."+filepath.Base(full)+"-*.tmp")
	if err != nil {
		return fmt.Errorf("pack %s: %v", dir, err)
	}
	tmp := f.Name()
	fail := func(err error) error {
		f.Close()
		os.Remove(tmp)
		return err
	}
	digest, err := zutfile.Pack(a.Dir, f)
	if err != nil {
		return fail(err)
	}
	if digest != a.Digest {
		return fail(fmt.Errorf("pack %s: the agent changed while packed; pack again", dir))
	}
	if err := f.Chmod(0o644); err != nil {
		return fail(fmt.Errorf("pack %s: %v", dir, err))
	}
	fi, err := f.Stat()
	if err != nil {
		return fail(fmt.Errorf("pack %s: %v", dir, err))
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("pack %s: write %s: %v", dir, path, err)
	}
	if err := os.Rename(tmp, full); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("pack %s: %v", dir, err)
	}
	var total int64
	for _, f := range a.Files {
		total += f.Size
	}
	_, err = fmt.Fprintf(e.Stdout, "wrote %s (%s, %d files of %s)\ndigest %s\n", path, regular.SizeText(fi.Size()), len(a.Files), regular.SizeText(total), digest)
	return err
}

// inside reports whether p is root or below it.
func inside(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
