package sandbox

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
)

// Network says what network a confined process sees.
type Network string

const (
	// NetworkFull is the machine's network.
	NetworkFull Network = "full"
	// NetworkNone is a network namespace of its own with only a loopback
	// interface: servers the process starts on 127.0.0.1 work among its
	// own processes, nothing else is reachable (not the host's loopback
	// either).
	NetworkNone Network = "none"
	// NetworkProxy is a network namespace of its own, like NetworkNone,
	// where 127.0.0.1 also holds an HTTP proxy (in $HTTP_PROXY and
	// $HTTPS_PROXY) that reaches only Policy.Hosts.
	NetworkProxy Network = "proxy"
)

// Policy is what a confined process may do. The zero Policy may read
// nothing and write nothing, with the full network; Mode.Policy builds
// the usual ones. Paths are absolute; those that do not exist when the
// command starts are skipped.
type Policy struct {
	// Read are the trees the process may read and execute ("/" for
	// everything).
	Read []string `json:"read,omitempty"`
	// Write are the trees it may also create, change and delete in.
	Write []string `json:"write,omitempty"`
	// ReadOnly are subtrees of Write that stay read-only (bind-mounted
	// read-only in a mount namespace of the process's own), as a
	// project's .git/hooks.
	ReadOnly []string `json:"read_only,omitempty"`
	// Hidden are paths the process sees empty: a directory as an empty
	// read-only directory, a file as an empty read-only file.
	Hidden []string `json:"hidden,omitempty"`
	// Network is the network the process sees; "" is NetworkFull.
	Network Network `json:"network,omitempty"`
	// Hosts are the hosts NetworkProxy's proxy reaches: names
	// ("github.com"), "*.example.org" for its subdomains, "localhost"
	// for the machine's own servers.
	Hosts []string `json:"hosts,omitempty"`
	// ConnectTCP and BindTCP, when not nil, are the only TCP ports the
	// process may connect to and bind (Landlock, ABI 4 and later). Other
	// protocols (UDP, raw sockets) are not restricted by them; use
	// NetworkNone for that.
	// (Not omitempty: an empty list, no port at all, differs from none.)
	ConnectTCP []uint16 `json:"connect_tcp"`
	BindTCP    []uint16 `json:"bind_tcp"`
	// Env, when not nil, are the names of the only environment variables
	// the process keeps (TMPDIR aside, see TempDir).
	Env []string `json:"env"`
	// TempDir, when set, is the process's TMPDIR; it should be in Write.
	TempDir string `json:"temp_dir,omitempty"`
}

// netRules reports whether Landlock restricts TCP.
func (p Policy) netRules() bool { return p.ConnectTCP != nil || p.BindTCP != nil }

// needsNamespaces reports whether the policy needs a user namespace:
// for mounts (read-only subtrees, hidden paths) or a network of its own.
func (p Policy) needsNamespaces() bool {
	return len(p.ReadOnly) > 0 || len(p.Hidden) > 0 || p.Network == NetworkNone || p.Network == NetworkProxy
}

// writable reports whether path is inside a Write tree and not inside a
// ReadOnly or Hidden one, by name (symbolic links are not followed).
func (p Policy) writable(path string) bool {
	if slices.ContainsFunc(p.ReadOnly, func(r string) bool { return within(path, r) }) ||
		slices.ContainsFunc(p.Hidden, func(r string) bool { return within(path, r) }) {
		return false
	}
	return slices.ContainsFunc(p.Write, func(w string) bool { return within(path, w) })
}

// within reports whether path is root or inside it.
func within(path, root string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !filepath.IsAbs(rel) && (len(rel) < 3 || rel[:3] != "../")
}

// check reports the first malformed member of p.
func (p Policy) check() error {
	for _, list := range [][]string{p.Read, p.Write, p.ReadOnly, p.Hidden} {
		for _, path := range list {
			if !filepath.IsAbs(path) {
				return fmt.Errorf("sandbox policy: path %q is not absolute", path)
			}
		}
	}
	if p.TempDir != "" && !filepath.IsAbs(p.TempDir) {
		return fmt.Errorf("sandbox policy: temp dir %q is not absolute", p.TempDir)
	}
	switch p.Network {
	case "", NetworkFull, NetworkNone, NetworkProxy:
	default:
		return fmt.Errorf("sandbox policy: network %q is not %q, %q or %q", p.Network, NetworkFull, NetworkNone, NetworkProxy)
	}
	return nil
}

// encode is the policy as the shim receives it.
func (p Policy) encode() string {
	b, _ := json.Marshal(p)
	return string(b)
}

// decodePolicy reads what encode wrote.
func decodePolicy(s string) (Policy, error) {
	var p Policy
	if len(s) > maxPolicy {
		return p, fmt.Errorf("sandbox policy: %d bytes, more than %d", len(s), maxPolicy)
	}
	if err := json.Unmarshal([]byte(s), &p); err != nil {
		return p, fmt.Errorf("sandbox policy: %v", err)
	}
	return p, p.check()
}

// maxPolicy bounds the encoded policy.
const maxPolicy = 1 << 20
