package sandbox

import (
	"net/netip"
	"strings"
)

// HostAllowed reports whether host is one of patterns, the hosts of an
// agent's net.allow: a pattern is a host name ("github.com"), which
// matches itself only; "*.example.org", which matches the names under
// example.org (not example.org itself, and never an IP address); or an
// IP address ("127.0.0.1", "::1"). "localhost" is a name like the
// others. Case and a trailing dot do not matter, and a port on either
// side is ignored ("github.com:443", "[::1]:8080"). An empty host, or a
// host holding "*", matches nothing; the patterns "*" and "*." match no
// host (there is no "any host" pattern: a nil Policy.Hosts reaches
// none).
func HostAllowed(patterns []string, host string) bool {
	h, ip := normalHost(host)
	if h == "" || strings.Contains(h, "*") {
		return false
	}
	for _, pat := range patterns {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(pat), "*."); ok {
			suffix, _ := normalHost(rest)
			if !ip && suffix != "" && !strings.Contains(suffix, "*") &&
				len(h) > len(suffix)+1 && strings.HasSuffix(h, suffix) && h[len(h)-len(suffix)-1] == '.' {
				return true
			}
			continue
		}
		if p, _ := normalHost(pat); p == h {
			return true
		}
	}
	return false
}

// normalHost is host without its port and brackets, in lower case,
// without a trailing dot; an IP address is in its canonical form and ip
// is set.
func normalHost(host string) (h string, ip bool) {
	h = strings.TrimSpace(host)
	switch {
	case strings.HasPrefix(h, "["):
		end := strings.IndexByte(h, ']')
		if end < 0 {
			return "", false
		}
		h = h[1:end]
	case strings.Count(h, ":") == 1:
		h, _, _ = strings.Cut(h, ":")
	}
	h = strings.ToLower(strings.TrimSuffix(h, "."))
	if a, err := netip.ParseAddr(h); err == nil {
		return a.Unmap().String(), true
	}
	return h, false
}

// explicitLocal reports whether patterns name host, an IP address or
// "localhost", as such: the only hosts the proxy reaches at a private or
// loopback address.
func explicitLocal(patterns []string, host string) bool {
	h, ip := normalHost(host)
	if !ip && h != "localhost" {
		return false
	}
	for _, pat := range patterns {
		if p, _ := normalHost(pat); p == h {
			return true
		}
	}
	return false
}
