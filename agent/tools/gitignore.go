package tools

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/zut-go/zut/provider"
)

// ignoreFile is the rules of one .gitignore (or .ignore, .rgignore,
// .git/info/exclude) file, relative to the directory base.
type ignoreFile struct {
	base  string // absolute directory
	rules []ignoreRule
}

type ignoreRule struct {
	re      *regexp.Regexp // matches a slash-separated path relative to base
	negate  bool           // "!pattern": re-include
	dirOnly bool           // "pattern/": directories only
}

// parseIgnore reads gitignore syntax: blank lines and "#" comments are
// skipped, trailing spaces dropped unless escaped, "!" negates, a trailing
// "/" matches directories only, a "/" at the start or in the middle
// anchors the pattern to base (otherwise it matches at any depth), "*",
// "?" and "[...]" do not cross "/", and "**" spans directories in "**/",
// "/**/" and "/**". Unusable patterns are skipped, as git does.
func parseIgnore(base string, data []byte) *ignoreFile {
	f := &ignoreFile{base: base}
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSuffix(line, "\r")
		end := len(line)
		for end > 0 && line[end-1] == ' ' && !(end >= 2 && line[end-2] == '\\') {
			end--
		}
		line = line[:end]
		if line == "" || line[0] == '#' {
			continue
		}
		var r ignoreRule
		if line[0] == '!' {
			r.negate, line = true, line[1:]
		}
		for strings.HasSuffix(line, "/") && !strings.HasSuffix(line, "\\/") {
			r.dirOnly, line = true, line[:len(line)-1]
		}
		if line == "" {
			continue
		}
		re, err := compileGlob(line)
		if err != nil {
			continue
		}
		r.re = re
		f.rules = append(f.rules, r)
	}
	return f
}

// match reports whether a rule of f matches rel (relative to f.base) and,
// if so, whether the last matching rule ignores it.
func (f *ignoreFile) match(rel string, isDir bool) (matched, ignored bool) {
	for i := len(f.rules) - 1; i >= 0; i-- {
		r := f.rules[i]
		if r.dirOnly && !isDir {
			continue
		}
		if r.re.MatchString(rel) {
			return true, !r.negate
		}
	}
	return false, false
}

// compileGlob turns a gitignore-style pattern into a regular expression
// over slash-separated relative paths. A pattern with a "/" other than at
// its end is anchored; one without matches a name at any depth.
func compileGlob(pat string) (*regexp.Regexp, error) {
	if pat == "" {
		return nil, errors.New("empty pattern")
	}
	anchored := strings.Contains(pat, "/")
	pat = strings.TrimPrefix(pat, "/")
	var b strings.Builder
	b.WriteString("^")
	if !anchored {
		b.WriteString("(?:.*/)?")
	}
	for i := 0; i < len(pat); {
		switch {
		case strings.HasPrefix(pat[i:], "**/") && (i == 0 || pat[i-1] == '/'):
			b.WriteString("(?:.*/)?")
			i += 3
		case pat[i:] == "**" && (i == 0 || pat[i-1] == '/'):
			b.WriteString(".*")
			i += 2
		case pat[i] == '*':
			for i < len(pat) && pat[i] == '*' {
				i++
			}
			b.WriteString("[^/]*")
		case pat[i] == '?':
			b.WriteString("[^/]")
			i++
		case pat[i] == '[':
			class, n := globClass(pat[i:])
			if n == 0 {
				b.WriteString(`\[`)
				i++
			} else {
				b.WriteString(class)
				i += n
			}
		case pat[i] == '\\' && i+1 < len(pat):
			_, size := utf8.DecodeRuneInString(pat[i+1:])
			b.WriteString(regexp.QuoteMeta(pat[i+1 : i+1+size]))
			i += 1 + size
		default:
			_, size := utf8.DecodeRuneInString(pat[i:])
			b.WriteString(regexp.QuoteMeta(pat[i : i+size]))
			i += size
		}
	}
	b.WriteString("$")
	return regexp.Compile(b.String())
}

// globClass translates a bracket expression at the start of s ("[a-z]",
// "[!0-9]", "[]x]") into a regexp class that never matches "/". It returns
// the class and the bytes used, or 0 when s has no closing bracket.
func globClass(s string) (string, int) {
	i := 1
	negate := false
	if i < len(s) && (s[i] == '!' || s[i] == '^') {
		negate = true
		i++
	}
	start := i
	if i < len(s) && s[i] == ']' {
		i++
	}
	for i < len(s) && s[i] != ']' {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		i++
	}
	if i >= len(s) {
		return "", 0
	}
	var b strings.Builder
	b.WriteString("[")
	if negate {
		b.WriteString("^/")
	}
	body := s[start:i]
	for j := 0; j < len(body); j++ {
		c := body[j]
		switch {
		case c == '\\' && j+1 < len(body):
			j++
			fmt.Fprintf(&b, `\x{%x}`, body[j])
		case c == '[' || c == ']' || c == '^' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteString("]")
	if _, err := regexp.Compile(b.String()); err != nil {
		return "", 0
	}
	return b.String(), i + 1
}

// ignoreStack is the ignore files that apply in one directory, from the
// lowest precedence to the highest.
type ignoreStack []*ignoreFile

// ignored reports whether abs is ignored: the deepest file with a matching
// rule decides, and in it the last matching rule.
func (s ignoreStack) ignored(abs string, isDir bool) bool {
	for i := len(s) - 1; i >= 0; i-- {
		rel, ok := relSlash(s[i].base, abs)
		if !ok {
			continue
		}
		if m, ign := s[i].match(rel, isDir); m {
			return ign
		}
	}
	return false
}

// relSlash is target relative to base with "/" separators, when target is
// inside base.
func relSlash(base, target string) (string, bool) {
	if base == target || !strings.HasPrefix(target, base) {
		return "", false
	}
	rest := target[len(base):]
	if !strings.HasSuffix(base, string(filepath.Separator)) {
		if rest[0] != filepath.Separator {
			return "", false
		}
		rest = rest[1:]
	}
	return filepath.ToSlash(rest), true
}

// ignoreNames are the ignore files read in every directory, from the lowest
// precedence to the highest (as rg orders them).
var ignoreNames = []string{".gitignore", ".ignore", ".rgignore"}

// maxIgnoreFile bounds one ignore file; a larger one (or one that is not
// a regular file) is skipped.
const maxIgnoreFile = 4 << 20

// dirIgnores loads the ignore files of one directory.
func dirIgnores(dir string) ignoreStack {
	var s ignoreStack
	for _, n := range ignoreNames {
		if data, err := provider.ReadRegular(filepath.Join(dir, n), maxIgnoreFile); err == nil {
			if f := parseIgnore(dir, data); len(f.rules) > 0 {
				s = append(s, f)
			}
		}
	}
	return s
}

// parentIgnores loads the ignore files that apply to root from above it:
// .git/info/exclude of its repository, and the ignore files of the
// directories between the repository's top (or, outside a repository, the
// file system root) and root itself.
func parentIgnores(root string) ignoreStack {
	var dirs []string // root's ancestors, nearest first, up to the repository top
	top := ""
	for d := root; ; {
		if fi, err := os.Stat(filepath.Join(d, ".git")); err == nil && fi != nil {
			top = d
			break
		}
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		dirs = append(dirs, parent)
		d = parent
	}
	var s ignoreStack
	if top != "" {
		if data, err := provider.ReadRegular(filepath.Join(top, ".git", "info", "exclude"), maxIgnoreFile); err == nil {
			if f := parseIgnore(top, data); len(f.rules) > 0 {
				s = append(s, f)
			}
		}
	}
	for i := len(dirs) - 1; i >= 0; i-- {
		s = append(s, dirIgnores(dirs[i])...)
	}
	return s
}
