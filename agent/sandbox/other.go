//go:build !linux

package sandbox

import (
	"errors"
	"os/exec"
	"runtime"
)

// Probe reports that this system has none of the mechanisms: the sandbox
// is for Linux only, and its modes refuse every command elsewhere.
func Probe(exe string) Support {
	why := "the sandbox is implemented for Linux only; this is " + runtime.GOOS
	return Support{OS: runtime.GOOS, Why: map[string]string{
		MechLandlock: why, MechUserNS: why, MechMountNS: why, MechNetNS: why, MechSeccomp: why,
	}}
}

func namespaces(cmd *exec.Cmd, p Policy) {}

// proxyFDEnv is the shim's variable of NetworkProxy, which needs Linux.
const proxyFDEnv = "ZUT_SANDBOX_PROXY_FD"

func (c *Confined) startProxy(cmd *exec.Cmd, hosts []string) error {
	return errors.New("sandbox: the proxy network is implemented for Linux only")
}

// Exec is the shim; outside Linux no command is ever confined, so it
// only reports that.
func Exec(args []string) error {
	return &ExecError{Err: errors.New("the sandbox is implemented for Linux only"), Code: ExitSetup}
}
