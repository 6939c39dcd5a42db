package sandbox

import (
	"fmt"
	"strings"
)

// Support is what this machine offers the sandbox. Probe finds it out;
// tests set it to check the refusals of a machine without a mechanism.
type Support struct {
	// OS is runtime.GOOS.
	OS string `json:"os"`
	// LandlockABI is the Landlock ABI version, 0 without Landlock.
	LandlockABI int `json:"landlock_abi"`
	// UserNS, MountNS and NetNS report that an unprivileged process can
	// make a user namespace and, in it, mount and network namespaces
	// with a working loopback interface.
	UserNS  bool `json:"userns"`
	MountNS bool `json:"mountns"`
	NetNS   bool `json:"netns"`
	// Seccomp reports seccomp filters (SECCOMP_RET_ERRNO).
	Seccomp bool `json:"seccomp"`
	// Why says, per missing mechanism, what the probe saw.
	Why map[string]string `json:"why,omitempty"`
}

// Mechanism names, as errors and zut sandbox check print them.
const (
	MechLandlock    = "Landlock"
	MechLandlockNet = "Landlock TCP rules (ABI 4)"
	MechUserNS      = "user namespaces"
	MechMountNS     = "mount namespaces"
	MechNetNS       = "network namespaces"
	MechSeccomp     = "seccomp filters"
)

// missing lists the mechanisms p needs that s lacks, in a fixed order.
func (s Support) missing(p Policy) []string {
	var out []string
	if s.LandlockABI < 1 {
		out = append(out, MechLandlock)
	} else if p.netRules() && s.LandlockABI < 4 {
		out = append(out, MechLandlockNet)
	}
	if p.needsNamespaces() && !s.UserNS {
		out = append(out, MechUserNS)
	}
	if (len(p.ReadOnly) > 0 || len(p.Hidden) > 0) && !s.MountNS {
		out = append(out, MechMountNS)
	}
	if (p.Network == NetworkNone || p.Network == NetworkProxy) && !s.NetNS {
		out = append(out, MechNetNS)
	}
	if !s.Seccomp {
		out = append(out, MechSeccomp)
	}
	return out
}

// UnavailableError is the refusal of a command whose policy needs a
// mechanism this machine lacks: the sandbox fails closed.
type UnavailableError struct {
	Mode    string   // the mode's name, or "" for a policy of its own
	Missing []string // the mechanisms, as MechLandlock
	Why     []string // what the probe saw, one per mechanism
}

func (e *UnavailableError) Error() string {
	what := "the sandbox"
	if e.Mode != "" {
		what = "sandbox " + e.Mode
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s needs %s, which this machine lacks", what, strings.Join(e.Missing, " and "))
	if len(e.Why) > 0 {
		fmt.Fprintf(&b, " (%s)", strings.Join(e.Why, "; "))
	}
	b.WriteString("; the command was not run. zut sandbox check shows what the machine supports; to run commands without a sandbox knowingly, choose --sandbox danger-full-access (or /sandbox danger-full-access)")
	return b.String()
}

// Report is s as the lines of zut sandbox check.
func (s Support) Report() string {
	var b strings.Builder
	yes := func(ok bool, name string) string {
		if ok {
			return "yes"
		}
		if w := s.Why[name]; w != "" {
			return "no (" + w + ")"
		}
		return "no"
	}
	ll := "no"
	if s.LandlockABI > 0 {
		ll = fmt.Sprintf("yes, ABI %d", s.LandlockABI)
		var extra []string
		if s.LandlockABI >= 4 {
			extra = append(extra, "TCP bind/connect rules")
		}
		if s.LandlockABI >= 6 {
			extra = append(extra, "abstract unix socket and signal scoping")
		}
		if len(extra) > 0 {
			ll += " (" + strings.Join(extra, ", ") + ")"
		}
	} else if w := s.Why[MechLandlock]; w != "" {
		ll = "no (" + w + ")"
	}
	fmt.Fprintf(&b, "os:                  %s\n", s.OS)
	fmt.Fprintf(&b, "Landlock:            %s\n", ll)
	fmt.Fprintf(&b, "user namespaces:     %s\n", yes(s.UserNS, MechUserNS))
	fmt.Fprintf(&b, "mount namespaces:    %s\n", yes(s.MountNS, MechMountNS))
	fmt.Fprintf(&b, "network namespaces:  %s\n", yes(s.NetNS, MechNetNS))
	fmt.Fprintf(&b, "seccomp filters:     %s\n", yes(s.Seccomp, MechSeccomp))
	for _, m := range []Mode{ReadOnly, WorkspaceWrite} {
		for _, net := range []bool{false, true} {
			p, _ := m.Policy(Project{Dir: "/project", TempDir: "/tmp/x", Network: net})
			name := string(m)
			if net {
				name += " with sandbox.network"
			}
			if miss := s.missing(p); len(miss) > 0 {
				fmt.Fprintf(&b, "%-40s refused: needs %s\n", name+":", strings.Join(miss, " and "))
			} else {
				fmt.Fprintf(&b, "%-40s available\n", name+":")
			}
		}
	}
	return b.String()
}
