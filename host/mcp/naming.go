package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// MaxNameLength is the longest tool name zut gives the model; providers
// limit tool names to 64 characters of [A-Za-z0-9_-].
const MaxNameLength = 64

// Prefix starts every name zut makes for an MCP tool or prompt.
const Prefix = "mcp__"

// maxServerPart is the room the server's part may take in a long name.
const maxServerPart = 24

// sanitize replaces every character outside [A-Za-z0-9_-] with '_'.
func sanitize(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' {
			b.WriteByte(c)
		} else if c < 0x80 || c >= 0xC0 { // one '_' per rune
			b.WriteByte('_')
		}
	}
	return b.String()
}

// shortHash is 6 hex digits of the SHA-256 of s: stable across runs.
func shortHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:3])
}

// serverParts gives each server name the part it takes in tool names:
// sanitized, without "__" (so that mcp__<server>__<tool> splits one way
// only), without leading or trailing '_', at most maxServerPart long, and
// distinct; a part changed to be distinct gets a hash of the original
// name. names must be sorted, which makes the result deterministic.
func serverParts(names []string) map[string]string {
	out := map[string]string{}
	taken := map[string]bool{}
	for _, n := range names {
		p := sanitize(n)
		for strings.Contains(p, "__") {
			p = strings.ReplaceAll(p, "__", "_")
		}
		p = strings.Trim(p, "_")
		if p == "" {
			p = "server"
		}
		if len(p) > maxServerPart {
			p = strings.TrimRight(p[:maxServerPart-7], "_") + "_" + shortHash(n)
		}
		if taken[p] {
			h := shortHash(n)
			if len(p)+7 > maxServerPart {
				p = strings.TrimRight(p[:maxServerPart-7], "_")
			}
			p += "_" + h
		}
		taken[p] = true
		out[n] = p
	}
	return out
}

// namer gives the tools (or prompts) of one server their zut names:
// mcp__<server>__<tool>, sanitized, cut to MaxNameLength with a hash of
// the original name when too long, and made distinct in the server's
// order (a later tool whose name comes out equal to an earlier one's gets
// a hash suffix).
type namer struct {
	server string // the server's part
	taken  map[string]bool
}

func newNamer(serverPart string) *namer { return &namer{server: serverPart, taken: map[string]bool{}} }

func (n *namer) name(tool string) string {
	head := Prefix + n.server + "__"
	room := MaxNameLength - len(head)
	t := sanitize(tool)
	if t == "" {
		t = "_"
	}
	if len(t) > room {
		t = t[:room-7] + "_" + shortHash(tool)
	}
	full := head + t
	if n.taken[full] {
		h := shortHash(tool)
		if len(t)+7 > room {
			t = t[:room-7]
		}
		full = head + t + "_" + h
		for i := 2; n.taken[full]; i++ { // equal hashes: practically never
			full = head + t[:min(len(t), room-10)] + "_" + shortHash(tool + strings.Repeat("#", i))[:6]
		}
	}
	n.taken[full] = true
	return full
}

// SplitName splits a name made by zut into its server part and tool part;
// ok is false for names that do not start with Prefix.
func SplitName(name string) (server, tool string, ok bool) {
	rest, ok := strings.CutPrefix(name, Prefix)
	if !ok {
		return "", "", false
	}
	server, tool, ok = strings.Cut(rest, "__")
	return server, tool, ok
}
