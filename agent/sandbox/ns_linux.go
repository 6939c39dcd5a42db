package sandbox

import (
	"os"
	"os/exec"
	"syscall"
)

// namespaces puts cmd in a user namespace of its own, mapping the user
// and group to themselves, with a mount namespace and, for NetworkNone, a
// network namespace. The shim keeps the capabilities it needs to set up
// the mounts and the loopback interface, and drops every capability
// before it runs the command.
func namespaces(cmd *exec.Cmd, p Policy) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	a := cmd.SysProcAttr
	a.Cloneflags |= syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS
	if p.Network == NetworkNone || p.Network == NetworkProxy {
		a.Cloneflags |= syscall.CLONE_NEWNET
	}
	uid, gid := os.Getuid(), os.Getgid()
	a.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
	a.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
	a.GidMappingsEnableSetgroups = false
	if uid != 0 {
		a.AmbientCaps = shimCaps
	}
}

// shimCaps are the capabilities a shim of a user other than root keeps
// through its exec in the new user namespace: to mount (CAP_SYS_ADMIN),
// to bring loopback up (CAP_NET_ADMIN) and to drop the bounding set
// (CAP_SETPCAP). They hold inside the namespace only.
var shimCaps = []uintptr{21, 12, 8}
