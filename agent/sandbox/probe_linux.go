package sandbox

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
)

// Probe finds out what this machine supports: the Landlock ABI and
// seccomp by asking the kernel, and the namespaces by starting exe's shim
// ("internal sandbox-exec --probe") in new user, mount and network
// namespaces, which tries the mounts and the loopback interface.
func Probe(exe string) Support {
	s := Support{OS: runtime.GOOS, Why: map[string]string{}}
	abi, err := landlockABI()
	switch {
	case err == syscall.ENOSYS:
		s.Why[MechLandlock] = "the kernel has no Landlock (ENOSYS)"
	case err == syscall.EOPNOTSUPP:
		s.Why[MechLandlock] = "Landlock is built but not enabled (add landlock to the lsm= boot parameter)"
	case err != nil:
		s.Why[MechLandlock] = err.Error()
	default:
		s.LandlockABI = abi
	}
	if err := seccompAvailable(); err != nil {
		s.Why[MechSeccomp] = err.Error()
	} else {
		s.Seccomp = true
	}
	probeNamespaces(exe, &s)
	for k, v := range s.Why {
		if v == "" {
			delete(s.Why, k)
		}
	}
	return s
}

// probeNamespaces runs the probe child.
func probeNamespaces(exe string, s *Support) {
	if exe == "" {
		for _, m := range []string{MechUserNS, MechMountNS, MechNetNS} {
			s.Why[m] = "zut's own executable was not found"
		}
		return
	}
	cmd := exec.Command(exe, append(append([]string(nil), ShimArgs...), "--probe")...)
	namespaces(cmd, Policy{Network: NetworkNone})
	cmd.Env = []string{}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		why := err.Error()
		if e := strings.TrimSpace(errb.String()); e != "" {
			why += ": " + firstLine(e)
		}
		if _, statErr := os.Stat("/proc/sys/kernel/apparmor_restrict_unprivileged_userns"); statErr == nil {
			why += " (AppArmor may restrict unprivileged user namespaces)"
		}
		why = "cannot start a process in a new user namespace: " + why
		s.Why[MechUserNS], s.Why[MechMountNS], s.Why[MechNetNS] = why, why, why
		return
	}
	s.UserNS = true
	var r probeResult
	if err := json.Unmarshal(bytes.TrimSpace(out.Bytes()), &r); err != nil {
		why := fmt.Sprintf("the probe's report %q is not JSON", firstLine(out.String()))
		s.Why[MechMountNS], s.Why[MechNetNS] = why, why
		return
	}
	s.MountNS, s.NetNS = r.Mount, r.Net
	s.Why[MechMountNS], s.Why[MechNetNS] = r.MountErr, r.NetErr
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return s
}
