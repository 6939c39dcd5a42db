//go:build linux && !amd64 && !arm64

package sandbox

// No filter is written for this architecture: the modes refuse commands.
const (
	auditArch = 0
	x32Bit    = 0
)

var deniedSyscalls []uintptr
