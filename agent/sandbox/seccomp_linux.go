package sandbox

import (
	"errors"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Offsets in struct seccomp_data.
const (
	offNr   = 0
	offArch = 4
	offArg0 = 16 // args[i] at 16+8i, low 32 bits first (little endian)
)

// BPF opcodes.
const (
	bpfLdAbs = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
	bpfJeq   = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
	bpfJset  = unix.BPF_JMP | unix.BPF_JSET | unix.BPF_K
	bpfJge   = unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K
	bpfRet   = unix.BPF_RET | unix.BPF_K
)

// namespaceFlags are the clone and unshare flags that make a namespace.
const namespaceFlags = unix.CLONE_NEWUSER | unix.CLONE_NEWNS | unix.CLONE_NEWNET | unix.CLONE_NEWPID |
	unix.CLONE_NEWUTS | unix.CLONE_NEWIPC | unix.CLONE_NEWCGROUP | unix.CLONE_NEWTIME

var (
	retAllow  = uint32(unix.SECCOMP_RET_ALLOW)
	retEPERM  = uint32(unix.SECCOMP_RET_ERRNO) | uint32(unix.EPERM)
	retENOSYS = uint32(unix.SECCOMP_RET_ERRNO) | uint32(unix.ENOSYS)
)

// seccompFilter is the filter that keeps a confined process from undoing
// its sandbox: no new namespaces (unshare and clone with a CLONE_NEW*
// flag; clone3, whose flags a filter cannot read, fails with ENOSYS so
// that the C library falls back to clone), no setns, no mounts of any
// kind, no kernel keyrings, no bpf or perf_event_open, no module or
// kexec loading, no TIOCSTI or TIOCLINUX (typing into the terminal), and
// nothing of another architecture's system call table. Everything else,
// Landlock's own calls included (a new ruleset can only narrow), is
// allowed.
func seccompFilter() ([]unix.SockFilter, error) {
	if auditArch == 0 {
		return nil, errors.New("no filter for this processor architecture")
	}
	stmt := func(code uint16, k uint32) unix.SockFilter { return unix.SockFilter{Code: code, K: k} }
	jump := func(code uint16, k uint32, jt, jf uint8) unix.SockFilter {
		return unix.SockFilter{Code: code, K: k, Jt: jt, Jf: jf}
	}
	f := []unix.SockFilter{
		stmt(bpfLdAbs, offArch),
		jump(bpfJeq, auditArch, 1, 0),
		stmt(bpfRet, retEPERM),
		stmt(bpfLdAbs, offNr),
	}
	if x32Bit != 0 {
		f = append(f, jump(bpfJge, x32Bit, 0, 1), stmt(bpfRet, retEPERM))
	}
	for _, nr := range deniedSyscalls {
		f = append(f, jump(bpfJeq, uint32(nr), 0, 1), stmt(bpfRet, retEPERM))
	}
	f = append(f, jump(bpfJeq, unix.SYS_CLONE3, 0, 1), stmt(bpfRet, retENOSYS))
	for _, nr := range []uintptr{unix.SYS_UNSHARE, unix.SYS_CLONE} {
		f = append(f,
			jump(bpfJeq, uint32(nr), 0, 4),
			stmt(bpfLdAbs, offArg0),
			jump(bpfJset, namespaceFlags, 0, 1),
			stmt(bpfRet, retEPERM),
			stmt(bpfRet, retAllow))
	}
	f = append(f,
		jump(bpfJeq, unix.SYS_IOCTL, 0, 5),
		stmt(bpfLdAbs, offArg0+8),
		jump(bpfJeq, unix.TIOCSTI, 1, 0),
		jump(bpfJeq, unix.TIOCLINUX, 0, 1),
		stmt(bpfRet, retEPERM),
		stmt(bpfRet, retAllow),
		stmt(bpfRet, retAllow))
	return f, nil
}

// installSeccomp loads the filter on the calling thread (no_new_privs is
// set already, so no privilege is needed).
func installSeccomp() error {
	f, err := seccompFilter()
	if err != nil {
		return err
	}
	prog := unix.SockFprog{Len: uint16(len(f)), Filter: &f[0]}
	return unix.Prctl(unix.PR_SET_SECCOMP, unix.SECCOMP_MODE_FILTER, uintptr(unsafe.Pointer(&prog)), 0, 0)
}

// seccompAvailable reports whether the kernel runs seccomp filters that
// return an errno.
func seccompAvailable() error {
	if auditArch == 0 {
		return errors.New("no filter for this processor architecture")
	}
	action := uint32(unix.SECCOMP_RET_ERRNO)
	_, _, e := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_GET_ACTION_AVAIL, 0, uintptr(unsafe.Pointer(&action)))
	if e != 0 {
		return e
	}
	return nil
}
