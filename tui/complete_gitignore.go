package tui

import (
	"path"
	"strings"
)

// ignoreRule is one pattern of a .gitignore file (gitignore(5)).
type ignoreRule struct {
	base     string   // directory of the .gitignore relative to the walk root, "" at the root
	segs     []string // the pattern split at '/'
	anchored bool     // matched against the whole path below base, not any name
	dirOnly  bool     // the pattern ended in '/'
	negate   bool     // the pattern started with '!'
}

// parseIgnore reads the rules of a .gitignore file found in directory base.
func parseIgnore(base, content string) []ignoreRule {
	var rules []ignoreRule
	for _, line := range strings.Split(content, "\n") {
		line = strings.TrimSuffix(line, "\r")
		// Trailing spaces are ignored unless escaped.
		for strings.HasSuffix(line, " ") && !strings.HasSuffix(line, "\\ ") {
			line = line[:len(line)-1]
		}
		if line == "" || line[0] == '#' {
			continue
		}
		var r ignoreRule
		r.base = base
		if line[0] == '!' {
			r.negate = true
			line = line[1:]
		} else if strings.HasPrefix(line, "\\!") || strings.HasPrefix(line, "\\#") {
			line = line[1:]
		}
		if strings.HasSuffix(line, "/") {
			r.dirOnly = true
			line = strings.TrimRight(line, "/")
		}
		if strings.HasPrefix(line, "/") {
			r.anchored = true
			line = strings.TrimLeft(line, "/")
		}
		if strings.Contains(line, "/") {
			r.anchored = true
		}
		if line == "" {
			continue
		}
		r.segs = strings.Split(line, "/")
		rules = append(rules, r)
	}
	return rules
}

// ignored reports whether rel (slash-separated, relative to the walk root)
// is ignored by rules, read in order: the last rule that matches decides.
func ignored(rules []ignoreRule, rel string, isDir bool) bool {
	ign := false
	for i := range rules {
		if rules[i].match(rel, isDir) {
			ign = !rules[i].negate
		}
	}
	return ign
}

func (r *ignoreRule) match(rel string, isDir bool) bool {
	if r.dirOnly && !isDir {
		return false
	}
	p := rel
	if r.base != "" {
		var ok bool
		if p, ok = strings.CutPrefix(rel, r.base+"/"); !ok {
			return false
		}
	}
	if !r.anchored {
		return matchSegment(r.segs[0], path.Base(p))
	}
	return matchSegments(r.segs, strings.Split(p, "/"))
}

// matchSegments matches path segments against pattern segments, where
// "**" stands for any number of segments.
func matchSegments(pat, segs []string) bool {
	if len(pat) == 0 {
		return len(segs) == 0
	}
	if pat[0] == "**" {
		for i := 0; i <= len(segs); i++ {
			if matchSegments(pat[1:], segs[i:]) {
				return true
			}
		}
		return false
	}
	return len(segs) > 0 && matchSegment(pat[0], segs[0]) && matchSegments(pat[1:], segs[1:])
}

// matchSegment matches one name against a glob (*, ?, [...], \ escapes).
func matchSegment(pattern, name string) bool {
	ok, err := path.Match(pattern, name)
	return err == nil && ok
}
