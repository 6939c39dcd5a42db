package telegramcmd

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/zut-go/zut/proto/regular"
)

func logPath(dir string) string { return filepath.Join(dir, "bot.log") }

// logs prints the last lines of the bot's log and, with -f, what follows.
func logs(ctx context.Context, env Env, args []string) error {
	fs, name := flags(env, "logs")
	follow := fs.Bool("f", false, "keep printing what is added to the log")
	n := fs.Int("n", 100, "print the last `N` lines")
	if err := parse(fs, args); err != nil {
		return err
	}
	botName, err := pick(env, *name)
	if err != nil {
		return err
	}
	path := logPath(dirOf(env, botName))
	f, err := regular.Open(path)
	if os.IsNotExist(err) && !*follow {
		fmt.Fprintf(env.Stdout, "@%s has no log yet (zut telegram start writes it).\n", botName)
		return nil
	}
	var off int64
	if err == nil {
		off = printTail(env.Stdout, f, *n)
		f.Close()
	}
	if !*follow {
		return nil
	}
	for {
		off = copyFrom(env.Stdout, path, off)
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// printTail prints the last n lines of f (reading at most 4 MiB) and
// returns the size it read to.
func printTail(w io.Writer, f *os.File, n int) int64 {
	fi, err := f.Stat()
	if err != nil {
		return 0
	}
	size := fi.Size()
	from := max(0, size-4<<20)
	b := make([]byte, size-from)
	k, _ := f.ReadAt(b, from)
	b = b[:k]
	lines := bytes.SplitAfter(b, []byte("\n"))
	if len(lines) > 0 && len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	if n >= 0 && len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	w.Write(bytes.Join(lines, nil))
	return from + int64(k)
}

// copyFrom prints what the file has past off; a file that shrank (moved
// aside by start) is read from its start.
func copyFrom(w io.Writer, path string, off int64) int64 {
	f, err := regular.Open(path)
	if err != nil {
		return off
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return off
	}
	if fi.Size() < off {
		off = 0
	}
	n, _ := io.Copy(w, io.NewSectionReader(f, off, fi.Size()-off))
	return off + n
}

// tail returns the last n lines of the file, indented, for error messages.
func tail(path string, n int) string {
	f, err := regular.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	var b strings.Builder
	printTail(&b, f, n)
	s := strings.TrimRight(b.String(), "\n")
	if s == "" {
		return ""
	}
	return "  " + strings.ReplaceAll(s, "\n", "\n  ")
}
