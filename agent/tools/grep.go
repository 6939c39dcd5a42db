package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/zut-go/zut/proto/regular"
	"github.com/zut-go/zut/provider"
)

// Limits of the grep tool.
const (
	grepDefaultLimit = 100
	grepMaxLimit     = 1000
	grepMaxContext   = 5
	grepMaxBytes     = 50 << 10
	grepMaxLineRunes = 300
)

// grepTool searches file contents with a regular expression.
//
// It runs rg when available and otherwise walks the tree itself; both
// backends honour .gitignore, .ignore and .rgignore files (nested ones,
// those of parent directories up to the repository root, and
// .git/info/exclude), search hidden files, skip .git, symbolic links and
// binary files (any NUL byte), visit files in the same order, and feed one
// formatter, so their output is identical.
type grepTool struct{ cfg Config }

func (t *grepTool) Definition() provider.Tool {
	return provider.Tool{Name: "grep", Description: GrepDescription, Schema: json.RawMessage(GrepSchema)}
}

// What the model is told of the grep tool: constant data, so that offering
// the tool runs no code of this package (TestToolDefinitions).
const (
	GrepDescription = "Search file contents for a regular expression (RE2/ripgrep syntax, matched per line). Searches the working directory or path recursively, honouring .gitignore, skipping .git and binary files. Output lines are path:line:text (context lines path-line-text, groups separated by --), at most limit matches (default 100) and 50 KiB; long lines are cut."
	GrepSchema      = `{"additionalProperties":false,"properties":{"context":{"description":"Lines of context to show before and after each match (0-5). Default 0.","maximum":5,"minimum":0,"type":"integer"},"glob":{"description":"Only search files whose path matches this glob (gitignore syntax, e.g. \"*.go\" or \"src/**/*.ts\"); a leading ! excludes matches instead.","type":"string"},"ignore_case":{"description":"Match without regard to case.","type":"boolean"},"limit":{"description":"Most matching lines to return. Default 100.","maximum":1000,"minimum":1,"type":"integer"},"path":{"description":"File or directory to search. Default: the working directory.","type":"string"},"pattern":{"description":"Regular expression to search for, e.g. \"func \\\\w+Handler\" or \"TODO|FIXME\".","type":"string"}},"required":["pattern"],"type":"object"}`
)

var grepArgs = []string{"pattern", "path", "glob", "ignore_case", "context", "limit"}

func (t *grepTool) Preview(raw json.RawMessage) string {
	a, err := parseArgs("grep", raw, grepArgs...)
	if err != nil {
		return "grep (bad arguments)"
	}
	pat, _ := a.str("pattern", false)
	p, _ := a.str("path", false)
	s := "grep " + clip(pat, 80)
	if p != "" {
		s += " in " + p
	}
	if g, _ := a.str("glob", false); g != "" {
		s += " (" + g + ")"
	}
	return s
}

func (t *grepTool) Mutates(json.RawMessage) bool { return false }

// grepQuery is one validated search.
type grepQuery struct {
	pattern    string
	re         *regexp.Regexp // matches one line
	ignoreCase bool
	root       string // absolute file or directory
	rootIsFile bool
	glob       string
	context    int
	limit      int
	// With a Scope: opened checks each file the Go backend opens by the
	// name the kernel gives it (Config.checkOpened), and rootDir is the
	// root directory, opened and so checked, that rg searches.
	opened  func(abs string, f *os.File) error
	rootDir *os.File
}

// grepFile is the result for one file: its matching lines with their
// context, in line order.
type grepFile struct {
	path  string // absolute
	lines []grepLine
}

type grepLine struct {
	num   int
	text  []byte // without the line end
	match bool
}

func (t *grepTool) Run(ctx context.Context, raw json.RawMessage, progress func(string)) Result {
	q, res := t.parse(raw)
	if res != nil {
		return *res
	}
	if q.rootDir != nil {
		defer q.rootDir.Close()
	}
	if q.rootIsFile {
		head := make([]byte, sniffLen)
		f, err := t.cfg.OpenScoped("grep", q.root)
		if IsOpenedOutOfScope(err) {
			return errorResult("%v", err)
		}
		if err == nil {
			n, _ := f.Read(head)
			f.Close()
			if isBinary(head[:n]) {
				return errorResult("grep: %s is a binary file (%s); grep searches text files", t.cfg.display(q.root), binaryKind(head[:n]))
			}
		}
	}
	col := &grepCollector{limit: q.limit, context: q.context, scope: t.cfg.Scope}
	var err error
	// rg follows a link named on its command line, so a single file in a
	// scope is searched by the Go backend, which checks what it opened.
	if rg := t.cfg.ripgrep(); rg != "" && !(q.rootIsFile && t.cfg.Scope != nil) {
		err = ripgrep(ctx, rg, q, col)
		var rerr *rgError
		if errors.As(err, &rerr) && !rerr.emitted && ctx.Err() == nil {
			col.skips, col.moreSkips = nil, 0
			err = walkGrep(ctx, q, col) // rg failed before any result: use the Go backend
		}
	} else {
		err = walkGrep(ctx, q, col)
	}
	if ctx.Err() != nil {
		return errorResult("grep: aborted")
	}
	if err != nil {
		return errorResult("grep: %v", err)
	}
	return textResult(t.format(q, col))
}

// parse validates the arguments; a non-nil Result is the error to return.
func (t *grepTool) parse(raw json.RawMessage) (*grepQuery, *Result) {
	fail := func(err error) (*grepQuery, *Result) {
		r := errorResult("%v", err)
		return nil, &r
	}
	a, err := parseArgs("grep", raw, grepArgs...)
	if err != nil {
		return fail(err)
	}
	q := &grepQuery{}
	if q.pattern, err = a.str("pattern", true); err != nil {
		return fail(err)
	}
	if q.pattern == "" {
		return fail(badArg("grep", "pattern is empty; give a regular expression to search for"))
	}
	p, err := a.str("path", false)
	if err != nil {
		return fail(err)
	}
	if q.glob, err = a.str("glob", false); err != nil {
		return fail(err)
	}
	if q.ignoreCase, err = a.boolean("ignore_case"); err != nil {
		return fail(err)
	}
	if q.context, err = a.integer("context", 0, 0, grepMaxContext, fmt.Sprintf("an integer from 0 to %d", grepMaxContext)); err != nil {
		return fail(err)
	}
	if q.limit, err = a.integer("limit", grepDefaultLimit, 1, grepMaxLimit, fmt.Sprintf("an integer from 1 to %d", grepMaxLimit)); err != nil {
		return fail(err)
	}
	expr := q.pattern
	if q.ignoreCase {
		expr = "(?i)" + expr
	}
	if q.re, err = regexp.Compile(expr); err != nil {
		msg := strings.TrimPrefix(err.Error(), "error parsing regexp: ")
		return fail(badArg("grep", "pattern %q is not a valid regular expression: %s (escape special characters such as ( [ { . * + ? with a backslash to match them literally)", q.pattern, msg))
	}
	if strings.Contains(q.pattern, "\n") || strings.Contains(q.pattern, `\n`) {
		return fail(badArg("grep", "pattern %q contains a newline; grep matches one line at a time, so search for one line of it", q.pattern))
	}
	if q.glob != "" {
		if _, err := compileGlob(strings.TrimPrefix(q.glob, "!")); err != nil {
			return fail(badArg("grep", "glob %q: %v", q.glob, err))
		}
	}
	q.root = t.cfg.resolve(p)
	if err := t.cfg.CheckScope("grep", q.root, false); err != nil {
		r := errorResult("%v", err)
		return nil, &r
	}
	fi, err := os.Stat(q.root)
	if err != nil {
		r := t.cfg.statError("grep", q.root, err)
		return nil, &r
	}
	q.rootIsFile = !fi.IsDir()
	if t.cfg.Scope != nil {
		q.opened = func(abs string, f *os.File) error { return t.cfg.checkOpened("grep", abs, f, "", false) }
		if !q.rootIsFile {
			if scopeSwapHook != nil {
				scopeSwapHook(q.root)
			}
			d, err := regular.OpenDir(q.root)
			if err != nil {
				r := t.cfg.statError("grep", q.root, err)
				return nil, &r
			}
			if err := q.opened(q.root, d); err != nil {
				d.Close()
				r := errorResult("%v", err)
				return nil, &r
			}
			q.rootDir = d
			// A file the kernel places in the root directory checked is
			// in scope unless hidden: the full check is for the rest,
			// which keeps a scoped search of many files quick.
			if rootReal := kernelName(d); rootReal != "" {
				q.opened = func(abs string, f *os.File) error {
					if p := kernelName(f); p != "" && pathWithin(p, rootReal) && t.cfg.Scope.hiddenResolved(p, p) == "" {
						return nil
					}
					return t.cfg.checkOpened("grep", abs, f, "", false)
				}
			}
		}
	}
	return q, nil
}

// grepCollector keeps the results within the match limit, and what the
// backends could not search.
type grepCollector struct {
	limit, context int
	files          []grepFile
	matches        int
	truncated      bool // the limit cut the results
	skips          []grepSkip
	moreSkips      int // skips past maxSkips, counted
	// scope, when not nil, drops the files of its Hidden trees.
	scope *Scope
}

// grepSkip is something a backend could not search: an unreadable file
// or directory, or a line too long to read whole.
type grepSkip struct {
	path string // absolute; "" when the backend did not say
	what string
}

// maxSkips bounds the skips listed in the output; the rest are counted.
const maxSkips = 5

// skip records something that was not searched.
func (c *grepCollector) skip(path, what string) {
	if len(c.skips) >= maxSkips {
		c.moreSkips++
		return
	}
	c.skips = append(c.skips, grepSkip{path, what})
}

// add takes one file's results (they must include every match of the
// file, with its context); it returns false once the limit is reached.
func (c *grepCollector) add(f grepFile) bool {
	if c.scope != nil && c.scope.hidden(f.path) != "" {
		return true // never shown, and never counted
	}
	if c.matches >= c.limit {
		c.truncated = true
		return false
	}
	lastMatch := -1
	for i, l := range f.lines {
		if !l.match {
			continue
		}
		if c.matches == c.limit {
			c.truncated = true
			// Keep the context after the last kept match.
			end := lastMatch + 1
			for end < len(f.lines) && !f.lines[end].match && f.lines[end].num <= f.lines[lastMatch].num+c.context {
				end++
			}
			f.lines = f.lines[:end]
			break
		}
		c.matches++
		lastMatch = i
	}
	c.files = append(c.files, f)
	return !c.truncated
}

// format renders the results for the model.
func (t *grepTool) format(q *grepQuery, c *grepCollector) string {
	if c.matches == 0 {
		where := t.cfg.display(q.root)
		if where == "." {
			where = "the working directory"
		}
		msg := fmt.Sprintf("No matches for %q in %s", q.pattern, where)
		if q.glob != "" {
			msg += fmt.Sprintf(" (glob %q)", q.glob)
		}
		if len(c.skips) > 0 {
			return msg + " that could be shown, but not everything could be searched, so there may be matches there:" + t.formatSkips(c)
		}
		return msg + "."
	}
	var b strings.Builder
	cut := false
	prevNum := 0
	for fi, f := range c.files {
		name := t.cfg.display(f.path)
		for i, l := range f.lines {
			if q.context > 0 && (fi > 0 && i == 0 || i > 0 && l.num != prevNum+1) {
				b.WriteString("--\n")
			}
			prevNum = l.num
			sep := "-"
			if l.match {
				sep = ":"
			}
			line := name + sep + fmt.Sprint(l.num) + sep + clipLine(l.text) + "\n"
			if b.Len()+len(line) > grepMaxBytes {
				cut = true
				break
			}
			b.WriteString(line)
		}
		if cut {
			break
		}
	}
	files := plural(len(c.files), "file")
	switch {
	case cut:
		fmt.Fprintf(&b, "[output cut at %s; narrow the pattern, path or glob]", formatSize(grepMaxBytes))
	case c.truncated:
		fmt.Fprintf(&b, "[stopped at %s in %s; narrow the pattern, path or glob, or raise limit (at most %d)]", plural(c.matches, "match"), files, grepMaxLimit)
	default:
		fmt.Fprintf(&b, "[%s in %s]", plural(c.matches, "match"), files)
	}
	if len(c.skips) > 0 {
		b.WriteString("\n[not searched, so there may be more matches:" + t.formatSkips(c) + "]")
	}
	return b.String()
}

// formatSkips lists what was not searched, one item a line.
func (t *grepTool) formatSkips(c *grepCollector) string {
	var b strings.Builder
	for _, sk := range c.skips {
		b.WriteString("\n- ")
		if sk.path != "" {
			b.WriteString(t.cfg.display(sk.path) + ": ")
		}
		b.WriteString(sk.what)
	}
	if c.moreSkips > 0 {
		fmt.Fprintf(&b, "\n- and %s more", plural(c.moreSkips, "item"))
	}
	return b.String()
}

// clipLine makes one line of a file printable: valid UTF-8, at most
// grepMaxLineRunes runes, with the cut marked.
func clipLine(p []byte) string {
	s := strings.ToValidUTF8(string(p), "\uFFFD")
	if utf8.RuneCountInString(s) <= grepMaxLineRunes {
		return s
	}
	n := 0
	for i := range s {
		if n == grepMaxLineRunes {
			return s[:i] + fmt.Sprintf(" [... line cut, %d more characters]", utf8.RuneCountInString(s[i:]))
		}
		n++
	}
	return s
}
