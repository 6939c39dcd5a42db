package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"

	"golang.org/x/sys/unix"
)

// Exec is "zut internal sandbox-exec": args are the words after it,
// "-- PATH ARGV0 ARGS..." (what Confine writes). It applies the policy in
// $ZUT_SANDBOX_POLICY to its own thread and executes PATH; it returns
// only on failure, with an *ExecError. "--probe" instead reports, as one
// JSON object on stdout, what works in the namespaces it was started in
// (Probe starts it so).
func Exec(args []string) error {
	// Every restriction below binds the calling thread, which then
	// executes the command: it must not change under us.
	runtime.LockOSThread()
	if len(args) == 1 && args[0] == "--probe" {
		return probeChild()
	}
	if len(args) < 3 || args[0] != "--" {
		return &ExecError{Err: errors.New("usage: zut internal sandbox-exec -- PATH ARGV0 [ARGS...] (zut runs this itself; it is not for people)"), Code: 2}
	}
	enc, ok := os.LookupEnv(policyEnv)
	if !ok {
		return &ExecError{Err: fmt.Errorf("no policy in $%s; the command was not run", policyEnv), Code: ExitSetup}
	}
	os.Unsetenv(policyEnv)
	p, err := decodePolicy(enc)
	if err != nil {
		return &ExecError{Err: fmt.Errorf("%v; the command was not run", err), Code: ExitSetup}
	}
	if err := apply(p); err != nil {
		return &ExecError{Err: fmt.Errorf("%v; the command was not run", err), Code: ExitSetup}
	}
	path, argv := args[1], args[2:]
	err = unix.Exec(path, argv, os.Environ())
	code := 126
	if errors.Is(err, unix.ENOENT) {
		code = 127
	}
	return &ExecError{Err: fmt.Errorf("exec %s: %v", path, err), Code: code}
}

// apply confines the calling thread to p, in this order: the loopback
// interface and NetworkProxy's listener, the mounts (which need the namespace's capabilities),
// then no capabilities, no new privileges, Landlock and seccomp.
func apply(p Policy) error {
	link := -1
	if p.Network == NetworkProxy {
		var err error
		if link, err = proxyLink(); err != nil {
			return fmt.Errorf("sandbox proxy: %v", err)
		}
	}
	if p.Network == NetworkNone || p.Network == NetworkProxy {
		if err := loopbackUp(); err != nil {
			return fmt.Errorf("bring up loopback in the network namespace: %v", err)
		}
	}
	if p.Network == NetworkProxy {
		port, err := proxyListen(link)
		if err != nil {
			return fmt.Errorf("sandbox proxy: %v", err)
		}
		if p.ConnectTCP != nil { // Landlock must let the command reach it
			p.ConnectTCP = append(p.ConnectTCP, port)
		}
	}
	if p.needsNamespaces() {
		if err := mounts(p); err != nil {
			return err
		}
	}
	if err := dropCaps(); err != nil {
		return fmt.Errorf("drop capabilities: %v", err)
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("set no_new_privs: %v", err)
	}
	if err := restrictLandlock(p); err != nil {
		return fmt.Errorf("Landlock: %v", err)
	}
	if err := installSeccomp(); err != nil {
		return fmt.Errorf("seccomp: %v", err)
	}
	return nil
}

// loopbackUp sets lo up in the (new, empty) network namespace.
func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return err
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP | unix.IFF_RUNNING)
	return unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr)
}

// mounts makes p's read-only subtrees read-only, the Write trees inside
// them writable again, and p's hidden paths empty, in the mount
// namespace of the shim (none of it is seen outside).
func mounts(p Policy) error {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_SLAVE, ""); err != nil {
		return fmt.Errorf("mount namespace: make / a slave: %v", err)
	}
	for _, ro := range p.ReadOnly {
		if _, err := os.Stat(ro); err != nil {
			continue
		}
		if err := bind(ro, ro, true); err != nil {
			return err
		}
	}
	for _, w := range p.Write {
		inRO := false
		for _, ro := range p.ReadOnly {
			inRO = inRO || w != ro && within(w, ro)
		}
		if _, err := os.Stat(w); err != nil || !inRO {
			continue
		}
		if err := bind(w, w, false); err != nil {
			return err
		}
	}
	for _, h := range p.Hidden {
		fi, err := os.Stat(h)
		if err != nil {
			continue
		}
		if fi.IsDir() {
			if err := unix.Mount("tmpfs", h, "tmpfs", unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "size=4k,mode=0555"); err != nil {
				return fmt.Errorf("hide %s: %v", h, err)
			}
			continue
		}
		if err := bind("/dev/null", h, true); err != nil {
			return fmt.Errorf("hide %s: %v", h, err)
		}
	}
	return nil
}

// bind bind-mounts src on dst and makes that mount read-only or
// writable (a bind inside a read-only mount starts read-only), keeping
// the flags the kernel locks on a mount seen from a user namespace
// (nosuid, nodev, noexec and the atime flags).
func bind(src, dst string, readOnly bool) error {
	what := "writable"
	if readOnly {
		what = "read-only"
	}
	if err := unix.Mount(src, dst, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return fmt.Errorf("bind %s %s: %v", dst, what, err)
	}
	var st unix.Statfs_t
	if err := unix.Statfs(dst, &st); err != nil {
		return fmt.Errorf("bind %s %s: %v", dst, what, err)
	}
	flags := uintptr(unix.MS_BIND | unix.MS_REMOUNT)
	if readOnly {
		flags |= unix.MS_RDONLY
	}
	for _, f := range []struct{ st, ms uintptr }{
		{unix.ST_NOSUID, unix.MS_NOSUID}, {unix.ST_NODEV, unix.MS_NODEV}, {unix.ST_NOEXEC, unix.MS_NOEXEC},
		{unix.ST_NOATIME, unix.MS_NOATIME}, {unix.ST_NODIRATIME, unix.MS_NODIRATIME}, {unix.ST_RELATIME, unix.MS_RELATIME},
	} {
		if uintptr(st.Flags)&f.st != 0 {
			flags |= f.ms
		}
	}
	if err := unix.Mount("", dst, "", flags, ""); err != nil {
		return fmt.Errorf("remount %s %s: %v", dst, what, err)
	}
	return nil
}

// dropCaps empties the bounding, ambient, effective, permitted and
// inheritable sets, so that nothing the command executes (as root of the
// namespace either) has a capability.
func dropCaps() error {
	last := 63
	if b, err := os.ReadFile("/proc/sys/kernel/cap_last_cap"); err == nil { //zut:open /proc, which the kernel writes
		fmt.Sscan(strings.TrimSpace(string(b)), &last)
	}
	for c := 0; c <= last; c++ {
		// EPERM: no CAP_SETPCAP, so no capability to drop either.
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil && err != unix.EPERM && err != unix.EINVAL {
			return err
		}
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil && err != unix.EINVAL {
		return err
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	return unix.Capset(&hdr, &data[0])
}

// probeResult is what the probe child reports.
type probeResult struct {
	Mount    bool   `json:"mount"`
	MountErr string `json:"mount_err,omitempty"`
	Net      bool   `json:"net"`
	NetErr   string `json:"net_err,omitempty"`
}

// probeChild tries, in the namespaces it was started in, what the
// sandbox does there: change mount propagation and bring loopback up
// and reach it.
func probeChild() error {
	var r probeResult
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_SLAVE, ""); err != nil {
		r.MountErr = err.Error()
	} else {
		r.Mount = true
	}
	if err := loopbackUp(); err != nil {
		r.NetErr = "bring up loopback: " + err.Error()
	} else if err := loopbackWorks(); err != nil {
		r.NetErr = err.Error()
	} else {
		r.Net = true
	}
	return json.NewEncoder(os.Stdout).Encode(r)
}

// loopbackWorks connects to a listener on 127.0.0.1.
func loopbackWorks() error {
	l, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(l)
	if err := unix.Bind(l, &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		return fmt.Errorf("bind 127.0.0.1: %v", err)
	}
	if err := unix.Listen(l, 1); err != nil {
		return err
	}
	sa, err := unix.Getsockname(l)
	if err != nil {
		return err
	}
	c, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(c)
	if err := unix.Connect(c, sa); err != nil {
		return fmt.Errorf("connect to 127.0.0.1: %v", err)
	}
	return nil
}
