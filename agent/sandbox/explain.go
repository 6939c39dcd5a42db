package sandbox

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Phrases of failed writes and of the missing network, as the C library,
// shells, coreutils, Python, Go and curl print them.
var (
	writeDenied = []string{"Permission denied", "Read-only file system", "Operation not permitted",
		"permission denied", "read-only file system", "operation not permitted", "EACCES", "EROFS"}
	netDenied = []string{"Network is unreachable", "Could not resolve host", "Temporary failure in name resolution",
		"Name or service not known", "No address associated with hostname", "network is unreachable",
		"server misbehaving", "no such host"}
	undoWords = []string{"unshare", "setns", "nsenter", "mount", "keyctl", "chroot"}
)

// quoted matches a quoted name in a message.
func quoted() *regexp.Regexp {
	return quotedLazy.get(func() *regexp.Regexp { return regexp.MustCompile(`['"‘“]([^'"’”\n]+)['"’”]`) })
}

var quotedLazy lazy[*regexp.Regexp]

// maxExplained bounds the lines Explain returns.
const maxExplained = 5

// Explain reads the output of a command that failed under c and returns
// one line per refusal of the sandbox it recognises, as "blocked by the
// sandbox: write outside the workspace: /etc/x", after one line per host
// the proxy of NetworkProxy refused (which it knows, not reads). It
// reads what the command printed, so it recognises the usual messages
// only; an empty result does not mean the sandbox played no part.
func (c *Confined) Explain(output string) []string {
	var out []string
	add := func(s string) {
		s = "blocked by the sandbox: " + s
		for _, x := range out {
			if x == s {
				return
			}
		}
		if len(out) < maxExplained {
			out = append(out, s)
		}
	}
	for _, h := range c.Refused() {
		add("the sandbox's proxy refused host " + h + " (not in net.allow)")
	}
	home, _ := os.UserHomeDir()
	for _, line := range strings.Split(output, "\n") {
		if c.Policy.Network == NetworkNone && containsAny(line, netDenied) {
			add("no network (sandbox.network is off; the command has a loopback interface of its own only)")
			continue
		}
		if c.Policy.Network == NetworkProxy && containsAny(line, netDenied) {
			add("no direct network (the command reaches the hosts of net.allow only, through the sandbox's HTTP proxy in $HTTPS_PROXY and $HTTP_PROXY)")
			continue
		}
		if !containsAny(line, writeDenied) {
			continue
		}
		if w := firstWord(line, undoWords); w != "" {
			add(w + " is not allowed (it could undo the sandbox)")
			continue
		}
		for _, path := range linePaths(line) {
			if strings.HasPrefix(path, "~/") && home != "" {
				path = filepath.Join(home, path[2:])
			}
			if !filepath.IsAbs(path) {
				path = filepath.Join(c.Dir, path)
			}
			path = filepath.Clean(path)
			if c.Policy.writable(path) || path == "/dev/null" || !c.userCanWrite(path) {
				continue
			}
			add(c.why(path) + ": " + path)
			break
		}
	}
	return out
}

// userCanWrite reports whether the user could write path (or create it
// in its directory) without the sandbox: a refusal they would get anyway
// is the file's permissions, not the sandbox's.
func (c *Confined) userCanWrite(path string) bool {
	if c.access != nil {
		return c.access(path)
	}
	for p := path; ; p = filepath.Dir(p) {
		if _, err := os.Lstat(p); err == nil {
			return writeAccess(p)
		}
		if p == filepath.Dir(p) {
			return false
		}
	}
}

// why names the rule a write to path broke.
func (c *Confined) why(path string) string {
	for _, ro := range c.Policy.ReadOnly {
		if within(path, ro) {
			return "write to a read-only part of the workspace"
		}
	}
	for _, h := range c.Policy.Hidden {
		if within(path, h) {
			return "write to a hidden path"
		}
	}
	switch Mode(c.Mode) {
	case ReadOnly:
		return "write in read-only mode"
	case WorkspaceWrite:
		return "write outside the workspace"
	}
	return "write outside the writable paths"
}

// linePaths are the words of an error line that may be the path it
// failed on: quoted ones first, then the last word before the error's
// phrase ("bash: line 1: f: Permission denied", "open /etc/x:
// permission denied"), then other fields between ": " that look like
// paths.
func linePaths(line string) []string {
	var out []string
	for _, m := range quoted().FindAllStringSubmatch(line, -1) {
		if !strings.Contains(m[1], " ") || looksLikePath(m[1]) {
			out = append(out, m[1])
		}
	}
	for _, ph := range writeDenied {
		i := strings.Index(line, ": "+ph)
		if i < 0 {
			continue
		}
		before := line[:i]
		if j := strings.LastIndex(before, ": "); j >= 0 {
			before = before[j+2:]
		}
		if f := strings.Fields(before); len(f) > 0 && !strings.ContainsAny(f[len(f)-1], "'\"[]") {
			out = append(out, f[len(f)-1])
		}
		break
	}
	for _, f := range strings.Split(line, ": ") {
		f = strings.TrimSpace(f)
		if looksLikePath(f) && !strings.ContainsAny(f, " '\"") {
			out = append(out, f)
		}
	}
	return out
}

func looksLikePath(s string) bool {
	return strings.HasPrefix(s, "/") || strings.HasPrefix(s, "./") || strings.HasPrefix(s, "../") ||
		strings.HasPrefix(s, "~/") || strings.Contains(s, "/") && !strings.Contains(s, " ") && !strings.Contains(s, "://")
}

func containsAny(s string, subs []string) bool {
	for _, x := range subs {
		if strings.Contains(s, x) {
			return true
		}
	}
	return false
}

// firstWord is the first of words that s holds as a word.
func firstWord(s string, words []string) string {
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return !('a' <= r && r <= 'z' || r == '_' || r == '2') }) {
		for _, w := range words {
			if f == w || f == w+"2" {
				return w
			}
		}
	}
	return ""
}
