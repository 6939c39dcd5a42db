package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// TestMain makes the test binary the shim, as main.go makes zut: run
// with "internal sandbox-exec" it is Exec. With "internal widen PATH" it
// is a confined program that adds a Landlock ruleset granting everything
// and then writes PATH (TestCannotLift).
func TestMain(m *testing.M) {
	if args, ok := IsShim(os.Args); ok {
		os.Exit(Shim(args))
	}
	if len(os.Args) > 3 && os.Args[1] == "internal" && os.Args[2] == "widen" {
		if err := widen(os.Args[3]); err != nil {
			fmt.Fprintf(os.Stderr, "zut: %v\n", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// widen restricts itself with a ruleset that grants every right on /,
// then writes path: Landlock intersects rulesets, so the write still
// fails.
func widen(path string) error {
	attr := unix.LandlockRulesetAttr{Handled_access_fs: handledFS(1)}
	fd, _, e := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), 8, 0)
	if e != 0 {
		return fmt.Errorf("create ruleset: %v", e)
	}
	if err := addPath(int(fd), "/", handledFS(1)); err != nil {
		return err
	}
	unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
	if _, _, e := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, fd, 0, 0); e != 0 {
		return fmt.Errorf("restrict self: %v", e)
	}
	fmt.Println("widened")
	return os.WriteFile(path, []byte("x"), 0o644)
}

var (
	probeOnce sync.Once
	machine   Support
)

// testSandbox is a Sandbox whose shim is this test binary, with the
// machine probed once for the whole package.
func testSandbox(t testing.TB) *Sandbox {
	probeOnce.Do(func() { machine = Probe(os.Args[0]) })
	return New(Config{Exe: os.Args[0], Probe: func(string) Support { return machine }})
}

// needs skips t, saying why, when the machine lacks what p needs; the
// fail-closed refusal is then what TestFailClosed asserts.
func needs(t *testing.T, s *Sandbox, p Policy) {
	t.Helper()
	if miss := s.Support().missing(p); len(miss) > 0 {
		t.Skipf("this machine lacks %s (%v); TestFailClosed checks the refusal instead", strings.Join(miss, ", "), s.Support().Why)
	}
}

// project makes a project directory with a git repository in a fresh
// parent, and a private temp dir.
func project(t *testing.T) (dir, tmp string) {
	t.Helper()
	root := t.TempDir()
	dir, tmp = filepath.Join(root, "project"), filepath.Join(root, "tmp")
	for _, d := range []string{filepath.Join(dir, ".git", "hooks"), filepath.Join(dir, ".zut", "worktrees"), tmp} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, ".git", "config"), []byte("[core]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, tmp
}

// run runs bash -c script in dir under p and returns its output and
// exit status.
func run(t testing.TB, s *Sandbox, mode Mode, p Policy, dir, script string) (string, int) {
	t.Helper()
	cmd := exec.Command("bash", "-c", script)
	cmd.Dir = dir
	if _, err := s.Confine(cmd, string(mode), p); err != nil {
		t.Fatalf("Confine: %v", err)
	}
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return string(out), ee.ExitCode()
	}
	if err != nil {
		t.Fatalf("run %q: %v", script, err)
	}
	return string(out), 0
}

// TestWorkspaceWrite: a command in workspace-write writes inside the
// project, its worktrees and the temp dir, and nowhere else: not beside
// the project, not in $HOME, not in /etc, not in .git/hooks, .git/config
// or .zut; each refusal is explained.
func TestWorkspaceWrite(t *testing.T) {
	s := testSandbox(t)
	dir, tmp := project(t)
	p, _ := WorkspaceWrite.Policy(Project{Dir: dir, TempDir: tmp})
	needs(t, s, p)
	home, _ := os.UserHomeDir()
	homeFile := filepath.Join(home, fmt.Sprintf("zut-sandbox-test-%d", os.Getpid()))
	etcFile := fmt.Sprintf("/etc/zut-sandbox-test-%d", os.Getpid())
	t.Cleanup(func() { os.Remove(homeFile); os.Remove(etcFile); os.Remove(filepath.Join(filepath.Dir(dir), "x")) })
	tests := []struct {
		name, target string
		ok           bool
		why          string
	}{
		{"project", "x", true, ""},
		{"subdirectory", "sub/x", true, ""},
		{"worktrees", ".zut/worktrees/x", true, ""},
		{"temp dir", "$TMPDIR/x", true, ""},
		{"beside the project", "../x", false, "write outside the workspace: " + filepath.Join(filepath.Dir(dir), "x")},
		{"home", homeFile, false, "write outside the workspace: " + homeFile},
		{"etc", etcFile, false, "write outside the workspace: " + etcFile},
		{"git hooks", ".git/hooks/pre-commit", false, "write to a read-only part of the workspace: " + filepath.Join(dir, ".git/hooks/pre-commit")},
		{"git config", ".git/config", false, "write to a read-only part of the workspace: " + filepath.Join(dir, ".git/config")},
		{"zut dir", ".zut/settings.json", false, "write to a read-only part of the workspace: " + filepath.Join(dir, ".zut/settings.json")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			script := fmt.Sprintf("mkdir -p \"$(dirname %[1]s)\" 2>/dev/null; echo hi >> %[1]s && cat %[1]s", tc.target)
			out, code := run(t, s, WorkspaceWrite, p, dir, script)
			if tc.ok {
				if code != 0 || !strings.Contains(out, "hi") {
					t.Fatalf("write %s: exit %d, output %q; want it written", tc.target, code, out)
				}
				return
			}
			if code == 0 {
				t.Fatalf("write %s: exit 0, output %q; want it refused", tc.target, out)
			}
			c := &Confined{Mode: string(WorkspaceWrite), Policy: p, Dir: dir}
			got := c.Explain(out)
			if len(got) == 0 || got[0] != "blocked by the sandbox: "+tc.why {
				t.Errorf("Explain(%q) = %q, want %q", out, got, "blocked by the sandbox: "+tc.why)
			}
		})
	}
	if _, err := os.Stat(etcFile); err == nil {
		t.Errorf("%s exists after the refused write", etcFile)
	}
}

// TestReadOnly: in read-only mode a command reads the project and writes
// only its temp dir.
func TestReadOnly(t *testing.T) {
	s := testSandbox(t)
	dir, tmp := project(t)
	os.WriteFile(filepath.Join(dir, "f"), []byte("content\n"), 0o644)
	p, _ := ReadOnly.Policy(Project{Dir: dir, TempDir: tmp})
	needs(t, s, p)
	tests := []struct {
		name, script string
		ok           bool
		want         string
	}{
		{"read", "cat f", true, "content"},
		{"temp dir", "echo hi > $TMPDIR/x && cat $TMPDIR/x", true, "hi"},
		{"write", "echo hi > f", false, "blocked by the sandbox: write in read-only mode: " + filepath.Join(dir, "f")},
		{"create", "touch new", false, "blocked by the sandbox: write in read-only mode: " + filepath.Join(dir, "new")},
		{"delete", "rm f", false, "blocked by the sandbox: write in read-only mode: " + filepath.Join(dir, "f")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, code := run(t, s, ReadOnly, p, dir, tc.script)
			if tc.ok {
				if code != 0 || !strings.Contains(out, tc.want) {
					t.Fatalf("%s: exit %d, output %q; want %q", tc.script, code, out, tc.want)
				}
				return
			}
			c := &Confined{Mode: string(ReadOnly), Policy: p, Dir: dir}
			if got := c.Explain(out); code == 0 || len(got) == 0 || got[0] != tc.want {
				t.Errorf("%s: exit %d, Explain(%q) = %q, want %q", tc.script, code, out, got, tc.want)
			}
		})
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "f")); string(b) != "content\n" {
		t.Errorf("f = %q after read-only commands", b)
	}
}

// TestSymlinkOut: a symbolic link in the project to a directory outside
// opens no hole: Landlock checks the file the link leads to.
func TestSymlinkOut(t *testing.T) {
	s := testSandbox(t)
	dir, tmp := project(t)
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	p, _ := WorkspaceWrite.Policy(Project{Dir: dir, TempDir: tmp})
	needs(t, s, p)
	out, code := run(t, s, WorkspaceWrite, p, dir, "echo hi > link/x; ln -s "+outside+" link2 && echo hi > link2/y")
	if code == 0 {
		t.Errorf("writes through links: exit 0, output %q; want refused", out)
	}
	for _, f := range []string{"x", "y"} {
		if _, err := os.Stat(filepath.Join(outside, f)); err == nil {
			t.Errorf("%s was written through a link in the project", filepath.Join(outside, f))
		}
	}
}

// TestNetworkNone: without sandbox.network a command cannot connect to
// a listener of the test (outside its namespace) even on 127.0.0.1, and
// servers it starts itself on loopback work.
func TestNetworkNone(t *testing.T) {
	s := testSandbox(t)
	dir, tmp := project(t)
	p, _ := WorkspaceWrite.Policy(Project{Dir: dir, TempDir: tmp})
	needs(t, s, p)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	accepted := make(chan struct{}, 1)
	go func() { // ends when l is closed
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			accepted <- struct{}{}
			c.Close()
		}
	}()
	port := l.Addr().(*net.TCPAddr).Port
	tests := []struct {
		name, script string
		ok           bool
	}{
		{"host loopback", fmt.Sprintf("exec 3<>/dev/tcp/127.0.0.1/%d", port), false},
		{"outside", "exec 3<>/dev/tcp/192.0.2.1/80", false},
		{"own loopback", `python3 -c '
import socket
l = socket.socket(); l.bind(("127.0.0.1", 0)); l.listen(1)
c = socket.create_connection(l.getsockname()); s, _ = l.accept(); c.sendall(b"pong"); print(s.recv(4).decode())'`, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, code := run(t, s, WorkspaceWrite, p, dir, tc.script)
			if tc.ok != (code == 0) {
				t.Fatalf("%s: exit %d, output %q; want ok=%v", tc.script, code, out, tc.ok)
			}
			if tc.ok && !strings.Contains(out, "pong") {
				t.Errorf("output %q, want pong", out)
			}
		})
	}
	select {
	case <-accepted:
		t.Error("the test's listener accepted a connection from the sandbox")
	default:
	}
	// with sandbox.network the same command reaches the listener
	p.Network = NetworkFull
	if out, code := run(t, s, WorkspaceWrite, p, dir, fmt.Sprintf("exec 3<>/dev/tcp/127.0.0.1/%d", port)); code != 0 {
		t.Errorf("with the network: exit %d, output %q", code, out)
	}
	<-accepted
}

// TestTCPPorts: Landlock's TCP rules let a command connect to the ports
// the policy names only (the API of packaged agents' proxies).
func TestTCPPorts(t *testing.T) {
	s := testSandbox(t)
	dir, tmp := project(t)
	var ports []int
	for range 2 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		go func() { // ends when l is closed
			for {
				c, err := l.Accept()
				if err != nil {
					return
				}
				c.Close()
			}
		}()
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	p := Policy{Read: []string{"/"}, Write: []string{dir, tmp}, TempDir: tmp, ConnectTCP: []uint16{uint16(ports[0])}, BindTCP: []uint16{}}
	needs(t, s, p)
	for i, port := range ports {
		out, code := run(t, s, "", p, dir, fmt.Sprintf("exec 3<>/dev/tcp/127.0.0.1/%d", port))
		if (code == 0) != (i == 0) {
			t.Errorf("connect to port %d (allowed %v): exit %d, output %q", port, i == 0, code, out)
		}
	}
	// An empty list allows no port at all (it is not "no rule").
	p.ConnectTCP = []uint16{}
	if out, code := run(t, s, "", p, dir, fmt.Sprintf("exec 3<>/dev/tcp/127.0.0.1/%d", ports[0])); code == 0 {
		t.Errorf("connect with no port allowed: exit 0, output %q", out)
	}
}

// TestCannotLift: a confined command cannot lift its sandbox: unshare
// and setns fail, a mount fails, tracing a process outside fails, and a
// Landlock ruleset granting everything narrows nothing.
func TestCannotLift(t *testing.T) {
	s := testSandbox(t)
	dir, tmp := project(t)
	p, _ := WorkspaceWrite.Policy(Project{Dir: dir, TempDir: tmp})
	needs(t, s, p)
	target := fmt.Sprintf("/etc/zut-sandbox-lift-%d", os.Getpid())
	t.Cleanup(func() { os.Remove(target) })
	tests := []struct {
		name, script, want string
	}{
		{"unshare", "unshare -U -r -m sh -c 'echo hi > " + target + "'", "blocked by the sandbox: unshare is not allowed (it could undo the sandbox)"},
		{"unshare net", "unshare -U -r -n true", "blocked by the sandbox: unshare is not allowed (it could undo the sandbox)"},
		{"setns", "nsenter -t 1 -U -m sh -c 'echo hi > " + target + "'", "blocked by the sandbox: nsenter is not allowed (it could undo the sandbox)"},
		{"mount", "mount -t tmpfs none .git/hooks", ""},
		// PTRACE_SEIZE of the test process (outside the sandbox): Landlock
		// refuses it (seize does not stop the test, should it succeed).
		{"ptrace", fmt.Sprintf(`python3 -c '
import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
r = libc.ptrace(0x4206, %d, None, None)
print("ptrace", r, ctypes.get_errno())
sys.exit(0 if r == 0 else 1)'`, os.Getpid()), ""},
		{"new ruleset", fmt.Sprintf("%q internal widen %s", os.Args[0], target), "blocked by the sandbox: write outside the workspace: " + target},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if prog := strings.Fields(tc.script)[0]; !strings.HasPrefix(prog, `"`) {
				if _, err := exec.LookPath(prog); err != nil {
					t.Skipf("%s is not installed (util-linux)", prog)
				}
			}
			out, code := run(t, s, WorkspaceWrite, p, dir, tc.script)
			if code == 0 {
				t.Fatalf("%s: exit 0, output %q; want refused", tc.script, out)
			}
			if tc.name == "new ruleset" && !strings.Contains(out, "widened") {
				t.Fatalf("output %q: the ruleset was not added", out)
			}
			c := &Confined{Mode: string(WorkspaceWrite), Policy: p, Dir: dir}
			if got := c.Explain(out); tc.want != "" && (len(got) == 0 || got[0] != tc.want) {
				t.Errorf("Explain(%q) = %q, want %q", out, got, tc.want)
			}
			if _, err := os.Stat(target); err == nil {
				t.Fatalf("%s was written", target)
			}
		})
	}
}

// TestFailClosed: where the machine lacks a mechanism, Confine refuses
// the command, naming the mechanism and danger-full-access.
func TestFailClosed(t *testing.T) {
	full := Support{OS: "linux", LandlockABI: 7, UserNS: true, MountNS: true, NetNS: true, Seccomp: true}
	dir := t.TempDir()
	ws, _ := WorkspaceWrite.Policy(Project{Dir: dir, TempDir: dir})
	wsNet, _ := WorkspaceWrite.Policy(Project{Dir: dir, TempDir: dir, Network: true})
	tests := []struct {
		name    string
		support func(*Support)
		p       Policy
		want    []string
	}{
		{"no landlock", func(s *Support) { s.LandlockABI = 0; s.Why = map[string]string{MechLandlock: "ENOSYS"} }, ws, []string{MechLandlock}},
		{"no user namespaces", func(s *Support) { s.UserNS, s.MountNS, s.NetNS = false, false, false }, ws, []string{MechUserNS, MechMountNS, MechNetNS}},
		{"no network namespaces", func(s *Support) { s.NetNS = false }, ws, []string{MechNetNS}},
		{"network on, no netns", func(s *Support) { s.NetNS = false }, wsNet, nil},
		{"proxy network, no netns", func(s *Support) { s.NetNS = false }, Policy{Read: []string{"/"}, Network: NetworkProxy, Hosts: []string{"github.com"}}, []string{MechNetNS}},
		{"proxy network, no user namespaces", func(s *Support) { s.UserNS, s.NetNS = false, false }, Policy{Read: []string{"/"}, Network: NetworkProxy}, []string{MechUserNS, MechNetNS}},
		{"no seccomp", func(s *Support) { s.Seccomp = false }, ws, []string{MechSeccomp}},
		{"old landlock, ports", func(s *Support) { s.LandlockABI = 3 }, Policy{Read: []string{"/"}, ConnectTCP: []uint16{80}}, []string{MechLandlockNet}},
		{"not linux", func(s *Support) { *s = Support{OS: "darwin"} }, ws, []string{MechLandlock, MechUserNS, MechMountNS, MechNetNS, MechSeccomp}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sup := full
			tc.support(&sup)
			s := New(Config{Exe: os.Args[0], Probe: func(string) Support { return sup }})
			cmd := exec.Command("true")
			_, err := s.Confine(cmd, "workspace-write", tc.p)
			if tc.want == nil {
				if err != nil {
					t.Fatalf("Confine = %v, want no error", err)
				}
				return
			}
			var ue *UnavailableError
			if !errors.As(err, &ue) {
				t.Fatalf("Confine = %v, want an *UnavailableError", err)
			}
			if strings.Join(ue.Missing, ",") != strings.Join(tc.want, ",") {
				t.Errorf("Missing = %q, want %q", ue.Missing, tc.want)
			}
			msg := err.Error()
			for _, w := range append(tc.want, "danger-full-access", "the command was not run", "sandbox workspace-write") {
				if !strings.Contains(msg, w) {
					t.Errorf("message %q does not say %q", msg, w)
				}
			}
			if cmd.Path != "/usr/bin/true" && !strings.HasSuffix(cmd.Path, "/true") {
				t.Errorf("the refused command was rewritten to %s", cmd.Path)
			}
		})
	}
}

// TestShimRefuses: the shim run without a policy, or with a bad one,
// does not run the command.
func TestShimRefuses(t *testing.T) {
	tests := []struct{ name, env, want string }{
		{"no policy", "", "no policy in $ZUT_SANDBOX_POLICY"},
		{"bad policy", policyEnv + "={", "sandbox policy:"},
		{"relative path", policyEnv + `={"write":["x"]}`, "is not absolute"},
		{"proxy without its socket", policyEnv + `={"read":["/"],"network":"proxy"}`, "sandbox proxy: no socket to zut's proxy in $ZUT_SANDBOX_PROXY_FD"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "internal", "sandbox-exec", "--", "/bin/echo", "echo", "ran")
			cmd.Env = []string{tc.env}
			out, err := cmd.CombinedOutput()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != ExitSetup || !bytes.Contains(out, []byte(tc.want)) || bytes.Contains(out, []byte("ran\n")) {
				t.Errorf("shim: %v, output %q; want exit %d and %q", err, out, ExitSetup, tc.want)
			}
		})
	}
}

// TestHidden: a hidden directory reads as empty, a hidden file as empty,
// and neither can be written.
func TestHidden(t *testing.T) {
	s := testSandbox(t)
	dir, tmp := project(t)
	secret := t.TempDir()
	os.WriteFile(filepath.Join(secret, "key"), []byte("s3cret"), 0o600)
	file := filepath.Join(t.TempDir(), "token")
	os.WriteFile(file, []byte("t0ken"), 0o600)
	p, _ := WorkspaceWrite.Policy(Project{Dir: dir, TempDir: tmp, Hidden: []string{secret, file}})
	needs(t, s, p)
	out, _ := run(t, s, WorkspaceWrite, p, dir, fmt.Sprintf("ls -A %s; cat %s/key %s; echo x > %s", secret, secret, file, file))
	if strings.Contains(out, "s3cret") || strings.Contains(out, "t0ken") || strings.Contains(out, "key\n") {
		t.Errorf("hidden paths show: %q", out)
	}
	if b, _ := os.ReadFile(file); string(b) != "t0ken" {
		t.Errorf("hidden file = %q after a write", b)
	}
}

// TestEnv: Policy.Env keeps only the variables it names, and TMPDIR is
// the temp dir.
func TestEnv(t *testing.T) {
	s := testSandbox(t)
	dir, tmp := project(t)
	p := Policy{Read: []string{"/"}, Write: []string{tmp}, TempDir: tmp, Env: []string{"PATH", "KEEP"}}
	needs(t, s, p)
	cmd := exec.Command("bash", "-c", "echo keep=$KEEP drop=$DROP tmp=$TMPDIR")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "KEEP=1", "DROP=2", "TMPDIR=/elsewhere")
	if _, err := s.Confine(cmd, "", p); err != nil {
		t.Fatal(err)
	}
	out, err := cmd.CombinedOutput()
	if want := "keep=1 drop= tmp=" + tmp + "\n"; err != nil || string(out) != want {
		t.Errorf("output %q, %v; want %q", out, err, want)
	}
}

// TestExplain: the usual messages of refused writes, of the missing
// network and of refused namespaces read as the sandbox's refusals;
// other failures do not.
func TestExplain(t *testing.T) {
	p, _ := WorkspaceWrite.Policy(Project{Dir: "/p", TempDir: "/t"})
	c := &Confined{Mode: string(WorkspaceWrite), Policy: p, Dir: "/p/sub", access: func(path string) bool { return path != "/root/secret" }}
	tests := []struct{ name, out, want string }{
		{"the user's own refusal", "cat: /root/secret: Permission denied", ""},
		{"bash redirect", "bash: line 1: /etc/x: Permission denied", "write outside the workspace: /etc/x"},
		{"relative", "bash: line 1: ../../x: Permission denied", "write outside the workspace: /x"},
		{"touch", "touch: cannot touch '/home/u/x': Permission denied", "write outside the workspace: /home/u/x"},
		{"cp", "cp: cannot create regular file '/usr/local/bin/x': Permission denied", "write outside the workspace: /usr/local/bin/x"},
		{"python", "PermissionError: [Errno 13] Permission denied: '/etc/passwd'", "write outside the workspace: /etc/passwd"},
		{"go", "open /var/x: permission denied", "write outside the workspace: /var/x"},
		{"hooks", "bash: /p/.git/hooks/pre-commit: Read-only file system", "write to a read-only part of the workspace: /p/.git/hooks/pre-commit"},
		{"curl", "curl: (6) Could not resolve host: example.com", "no network (sandbox.network is off; the command has a loopback interface of its own only)"},
		{"go dial", "dial tcp 93.184.216.34:443: connect: network is unreachable", "no network (sandbox.network is off; the command has a loopback interface of its own only)"},
		{"unshare", "unshare: unshare failed: Operation not permitted", "unshare is not allowed (it could undo the sandbox)"},
		{"inside the project", "bash: line 1: x: Permission denied", ""},
		{"temp dir", "touch: cannot touch '/t/x': Permission denied", ""},
		{"other failure", "make: *** [all] Error 1", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := c.Explain("some output\n" + tc.out + "\n")
			want := []string(nil)
			if tc.want != "" {
				want = []string{"blocked by the sandbox: " + tc.want}
			}
			if strings.Join(got, "|") != strings.Join(want, "|") {
				t.Errorf("Explain(%q) = %q, want %q", tc.out, got, want)
			}
		})
	}
}

// BenchmarkBash is what the sandbox adds to a bash call: bash -c true
// unconfined and in each mode, in workspace-write with the network
// (no network namespace to make), and with the proxy network (its
// listener handed over and its proxy closed); the machine is probed
// once, as in zut.
func BenchmarkBash(b *testing.B) {
	s := testSandbox(b)
	dir := b.TempDir()
	for _, c := range []struct {
		m          Mode
		net, proxy bool
	}{{DangerFullAccess, false, false}, {ReadOnly, false, false}, {WorkspaceWrite, false, false}, {WorkspaceWrite, true, false}, {WorkspaceWrite, false, true}} {
		m := c.m
		p, confined := m.Policy(Project{Dir: dir, TempDir: dir, Network: c.net})
		name := string(m)
		if c.net {
			name += "+network"
		}
		if c.proxy {
			p.Network, p.Hosts = NetworkProxy, []string{"example.com"}
			name += "+proxy"
		}
		b.Run(name, func(b *testing.B) {
			if confined && len(s.Support().missing(p)) > 0 {
				b.Skip("the machine lacks a mechanism")
			}
			for b.Loop() {
				cmd := exec.Command("bash", "-c", "true")
				cmd.Dir = dir
				var conf *Confined
				if confined {
					var err error
					if conf, err = s.Confine(cmd, string(m), p); err != nil {
						b.Fatal(err)
					}
				}
				if out, err := cmd.CombinedOutput(); err != nil {
					b.Fatalf("%v: %s", err, out)
				}
				conf.Close()
			}
		})
	}
}

// TestHiddenSocket: a unix socket of the test (as an agent's or a
// daemon's) that the policy hides cannot be connected to; without the
// rule it can (Landlock alone does not check such connections).
func TestHiddenSocket(t *testing.T) {
	s := testSandbox(t)
	dir, tmp := project(t)
	sock := filepath.Join(t.TempDir(), "agent.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() { // ends when l is closed
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Write([]byte("answer"))
			c.Close()
		}
	}()
	script := fmt.Sprintf(`python3 -c '
import socket
s = socket.socket(socket.AF_UNIX)
s.connect(%q)
print(s.recv(6).decode())'`, sock)
	for _, hide := range []bool{false, true} {
		pr := Project{Dir: dir, TempDir: tmp}
		if hide {
			pr.Hidden = []string{sock}
		}
		p, _ := WorkspaceWrite.Policy(pr)
		needs(t, s, p)
		out, code := run(t, s, WorkspaceWrite, p, dir, script)
		if connected := code == 0 && strings.Contains(out, "answer"); connected == hide {
			t.Errorf("hidden %v: exit %d, output %q", hide, code, out)
		}
	}
}
