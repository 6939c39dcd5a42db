package sandbox

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"

	"golang.org/x/sys/unix"
)

// proxyFDEnv names, for the shim, its end of the socket pair over which
// it sends zut the proxy's listening socket.
const proxyFDEnv = "ZUT_SANDBOX_PROXY_FD"

// proxyEnv are the variables that point a command at the proxy; noProxyEnv
// are removed, so that no host bypasses it.
var (
	proxyEnv   = []string{"HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "ALL_PROXY", "all_proxy"}
	noProxyEnv = []string{"NO_PROXY", "no_proxy"}
)

// startProxy gives cmd the shim's end of a socket pair (the last of its
// ExtraFiles) and starts the goroutine that receives, over zut's end,
// the listening socket the shim makes on 127.0.0.1 in the command's
// network namespace, and then serves the proxy on it. Close stops both.
func (c *Confined) startProxy(cmd *exec.Cmd, hosts []string) error {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("sandbox: the proxy's socket pair: %v; the command was not run", err)
	}
	ours := os.NewFile(uintptr(fds[0]), "sandbox-proxy")
	theirs := os.NewFile(uintptr(fds[1]), "sandbox-proxy-shim")
	conn, err := net.FileConn(ours)
	ours.Close()
	if err != nil {
		theirs.Close()
		return fmt.Errorf("sandbox: the proxy's socket pair: %v; the command was not run", err)
	}
	cmd.ExtraFiles = append(cmd.ExtraFiles, theirs)
	cmd.Env = append(cmd.Env, proxyFDEnv+"="+strconv.Itoa(2+len(cmd.ExtraFiles)))
	link := conn.(*net.UnixConn)
	c.proxy = newProxy(hosts)
	c.unlink = func() { link.Close(); theirs.Close() }
	c.proxy.goFunc(func() { // ends with a listener served, or at Close
		l, err := receiveListener(link)
		// theirs stays open until Close: cmd.Start may still be reading it
		link.Close()
		if err == nil {
			c.proxy.serve(l)
		}
	})
	return nil
}

// receiveListener reads the listening socket the shim sends.
func receiveListener(link *net.UnixConn) (net.Listener, error) {
	buf := make([]byte, 1)
	oob := make([]byte, unix.CmsgSpace(4))
	_, oobn, _, _, err := link.ReadMsgUnix(buf, oob)
	if err != nil {
		return nil, err
	}
	msgs, err := unix.ParseSocketControlMessage(oob[:oobn])
	if err != nil {
		return nil, err
	}
	var fds []int
	for _, m := range msgs {
		if r, err := unix.ParseUnixRights(&m); err == nil {
			fds = append(fds, r...)
		}
	}
	if len(fds) == 0 {
		return nil, errors.New("the shim sent no socket")
	}
	for _, fd := range fds[1:] {
		unix.Close(fd)
	}
	f := os.NewFile(uintptr(fds[0]), "sandbox-proxy-listener")
	defer f.Close()
	return net.FileListener(f)
}

// proxyLink, in the shim, is its end of the socket pair to zut, from
// $ZUT_SANDBOX_PROXY_FD (removed); it is closed on exec.
func proxyLink() (int, error) {
	s, ok := os.LookupEnv(proxyFDEnv)
	os.Unsetenv(proxyFDEnv)
	fd, err := strconv.Atoi(s)
	if !ok || err != nil || fd < 3 {
		return -1, fmt.Errorf("no socket to zut's proxy in $%s (%q)", proxyFDEnv, s)
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFSOCK {
		return -1, fmt.Errorf("$%s=%d is not a socket", proxyFDEnv, fd)
	}
	unix.CloseOnExec(fd)
	return fd, nil
}

// proxyListen, in the shim, makes the proxy's listening socket on
// 127.0.0.1 of the new network namespace, sends it to zut over fd (which
// it closes), and points the command at it through the environment; it
// returns the port.
func proxyListen(fd int) (uint16, error) {
	defer unix.Close(fd)
	l, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return 0, err
	}
	defer unix.Close(l)
	if err := unix.Bind(l, &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		return 0, fmt.Errorf("bind 127.0.0.1: %v", err)
	}
	if err := unix.Listen(l, 128); err != nil {
		return 0, fmt.Errorf("listen: %v", err)
	}
	sa, err := unix.Getsockname(l)
	if err != nil {
		return 0, err
	}
	port := sa.(*unix.SockaddrInet4).Port
	if err := unix.Sendmsg(fd, []byte{'L'}, unix.UnixRights(l), nil, 0); err != nil {
		return 0, fmt.Errorf("send the listener to zut: %v", err)
	}
	for _, name := range noProxyEnv {
		os.Unsetenv(name)
	}
	for _, name := range proxyEnv {
		os.Setenv(name, proxyURL(port))
	}
	return uint16(port), nil
}
