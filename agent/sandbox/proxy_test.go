package sandbox

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestHostAllowed: names match themselves, "*." their subdomains, IP
// addresses their canonical form; case, trailing dots and ports do not
// matter.
func TestHostAllowed(t *testing.T) {
	pats := []string{"github.com", "*.example.org", "127.0.0.1", "::1", "localhost", "Mixed.Case."}
	tests := []struct {
		host string
		want bool
	}{
		{"github.com", true},
		{"GitHub.COM", true},
		{"github.com.", true},
		{"github.com:443", true},
		{"api.github.com", false},
		{"github.com.evil.net", false},
		{"evilgithub.com", false},
		{"a.example.org", true},
		{"a.b.example.org:8080", true},
		{"example.org", false},
		{".example.org", false},
		{"aexample.org", false},
		{"127.0.0.1", true},
		{"127.0.0.1:8080", true},
		{"127.0.0.2", false},
		{"[::1]:80", true},
		{"::1", true},
		{"0:0:0:0:0:0:0:1", true},
		{"[::ffff:127.0.0.1]:80", true},
		{"localhost", true},
		{"LOCALHOST:3000", true},
		{"sub.localhost", false},
		{"mixed.case", true},
		{"", false},
		{":80", false},
		{"*.example.org", false},
		{"[::1", false},
	}
	for _, tc := range tests {
		t.Run(tc.host, func(t *testing.T) {
			if got := HostAllowed(pats, tc.host); got != tc.want {
				t.Errorf("HostAllowed(%q, %q) = %v, want %v", pats, tc.host, got, tc.want)
			}
		})
	}
	for _, tc := range []struct {
		pats []string
		host string
	}{
		{nil, "github.com"},
		{[]string{"*"}, "github.com"},
		{[]string{"*."}, "github.com"},
		{[]string{"*.0.0.1"}, "127.0.0.1"},
		{[]string{""}, ""},
		{[]string{"*.*.org"}, "a.b.org"},
	} {
		if HostAllowed(tc.pats, tc.host) {
			t.Errorf("HostAllowed(%q, %q) = true, want false", tc.pats, tc.host)
		}
	}
}

// FuzzHostAllowed: any host and pattern are read without a panic; a host
// always matches itself as a pattern unless it is empty or a pattern,
// and case never matters.
func FuzzHostAllowed(f *testing.F) {
	f.Add("*.example.org", "a.example.org")
	f.Add("::1", "[::1]:80")
	f.Add("GitHub.com.", "github.com:443")
	f.Add("[", "]")
	f.Fuzz(func(t *testing.T, pat, host string) {
		got := HostAllowed([]string{pat}, host)
		if up := HostAllowed([]string{strings.ToUpper(pat)}, strings.ToLower(host)); up != got && isASCII(pat+host) {
			t.Fatalf("HostAllowed(%q, %q) = %v, but %v with other case", pat, host, got, up)
		}
		if h, _ := normalHost(host); h != "" && !strings.Contains(h, "*") && !HostAllowed([]string{host}, host) {
			t.Fatalf("HostAllowed([%q], %q) = false: a host must match itself", host, host)
		}
	})
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// waitProxies waits until no proxy goroutine runs (a 60 s guard against a
// leak that never ends).
func waitProxies(t testing.TB) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for proxyGoroutines.Load() != 0 {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d proxy goroutines still run:\n%s", proxyGoroutines.Load(), buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// openFDs counts the process's open file descriptors.
func openFDs(t testing.TB) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("cannot count open files: %v", err)
	}
	return len(ents)
}

// TestProxyNetwork: a command under NetworkProxy reaches, through the
// proxy in its environment, the test's servers on the machine's loopback
// when net.allow lists "127.0.0.1" or "localhost", plain HTTP and HTTPS
// (CONNECT); a host not listed gets the proxy's 403, which Explain
// reports; a connection around the proxy fails; and when the command
// has ended and the Confined is closed no goroutine of the proxy and no
// file it opened is left.
func TestProxyNetwork(t *testing.T) {
	s := testSandbox(t)
	dir, tmp := project(t)
	p, _ := WorkspaceWrite.Policy(Project{Dir: dir, TempDir: tmp})
	p.Network = NetworkProxy
	needs(t, s, p)
	for _, tool := range []string{"curl", "python3"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed", tool)
		}
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "plain %s %s", r.Method, r.URL.Path)
	}))
	defer srv.Close()
	tls := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "tls %s", r.URL.Path)
	}))
	defer tls.Close()
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	tlsPort := tls.Listener.Addr().(*net.TCPAddr).Port
	tests := []struct {
		name   string
		hosts  []string
		script string
		ok     bool
		want   string   // in the output
		refuse []string // the hosts Explain names
	}{
		{"curl http", []string{"127.0.0.1"}, fmt.Sprintf("curl -sS http://127.0.0.1:%d/a", port), true, "plain GET /a", nil},
		{"curl https", []string{"127.0.0.1"}, fmt.Sprintf("curl -sSk https://127.0.0.1:%d/b", tlsPort), true, "tls /b", nil},
		{"python localhost", []string{"localhost"}, fmt.Sprintf(`python3 -c '
import urllib.request
print(urllib.request.urlopen("http://localhost:%d/c").read().decode())'`, port), true, "plain GET /c", nil},
		{"python https", []string{"localhost"}, fmt.Sprintf(`python3 -c '
import ssl, urllib.request
print(urllib.request.urlopen("https://localhost:%d/d", context=ssl._create_unverified_context()).read().decode())'`, tlsPort), true, "tls /d", nil},
		{"not listed", []string{"localhost"}, fmt.Sprintf("curl -sS -w '%%{http_code}\\n' http://127.0.0.1:%d/ && curl -sSf http://other.example/", port), false,
			"refused host 127.0.0.1: it is not in the agent's net.allow", []string{"127.0.0.1", "other.example"}},
		{"not listed https", []string{"github.com"}, fmt.Sprintf("curl -sSk https://127.0.0.1:%d/", tlsPort), false, "403", []string{"127.0.0.1"}},
		{"around the proxy", []string{"127.0.0.1"}, fmt.Sprintf("curl -sS --noproxy '*' http://127.0.0.1:%d/", port), false, "", nil},
		{"bash tcp", []string{"127.0.0.1"}, fmt.Sprintf("exec 3<>/dev/tcp/127.0.0.1/%d", port), false, "", nil},
		{"environment", []string{"127.0.0.1"}, "echo $HTTPS_PROXY $http_proxy no=$NO_PROXY$no_proxy", true, "no=\n", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := p
			p.Hosts = tc.hosts
			fds := openFDs(t)
			cmd := exec.Command("bash", "-c", tc.script)
			cmd.Dir = dir
			cmd.Env = append(cmd.Environ(), "NO_PROXY=127.0.0.1,localhost", "no_proxy=localhost")
			c, err := s.Confine(cmd, string(WorkspaceWrite), p)
			if err != nil {
				t.Fatal(err)
			}
			out, err := cmd.CombinedOutput()
			t.Logf("%s: %v\n%s", tc.script, err, out)
			if tc.ok != (err == nil) || !strings.Contains(string(out), tc.want) {
				t.Errorf("%s: %v, output %q; want ok=%v and %q", tc.script, err, out, tc.ok, tc.want)
			}
			var want []string
			for _, h := range tc.refuse {
				want = append(want, "blocked by the sandbox: the sandbox's proxy refused host "+h+" (not in net.allow)")
			}
			if got := c.Explain(string(out)); len(want) > 0 && strings.Join(got[:min(len(got), len(want))], "|") != strings.Join(want, "|") {
				t.Errorf("Explain(%q) = %q, want %q first", out, got, want)
			}
			c.Close()
			waitProxies(t)
			// Close closed the proxy's files at once (a finalizer would
			// close them some time later); the servers' side of the
			// connections is closed here.
			srv.CloseClientConnections()
			tls.CloseClientConnections()
			if n := openFDs(t); n != fds {
				t.Errorf("%d files open after the command and Close, %d before", n, fds)
			}
		})
	}
}

// TestProxyPortRules: when Landlock's TCP rules allow no port at all,
// the command still reaches the proxy (the shim adds its port), and
// through it the listed host.
func TestProxyPortRules(t *testing.T) {
	s := testSandbox(t)
	dir, tmp := project(t)
	p := Policy{Read: []string{"/"}, Write: []string{dir, tmp}, TempDir: tmp, Network: NetworkProxy, Hosts: []string{"127.0.0.1"},
		ConnectTCP: []uint16{}, BindTCP: []uint16{}}
	needs(t, s, p)
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl is not installed")
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "reached") }))
	defer srv.Close()
	cmd := exec.Command("curl", "-sS", srv.URL+"/")
	c, err := s.Confine(cmd, "", p)
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.CombinedOutput()
	c.Close()
	if err != nil || string(out) != "reached" {
		t.Errorf("curl through the proxy with no TCP port allowed: %v, output %q; want reached", err, out)
	}
	waitProxies(t)
}

// TestExplainProxy: under the proxy network a failed lookup or
// connection is explained as the missing direct network, after the hosts
// the proxy refused.
func TestExplainProxy(t *testing.T) {
	c := &Confined{Mode: string(WorkspaceWrite), Policy: Policy{Network: NetworkProxy}, proxy: newProxy(nil)}
	c.proxy.refuse("github.com")
	c.proxy.refuse("github.com")
	got := c.Explain("curl: (6) Could not resolve host: example.com\n")
	want := []string{
		"blocked by the sandbox: the sandbox's proxy refused host github.com (not in net.allow)",
		"blocked by the sandbox: no direct network (the command reaches the hosts of net.allow only, through the sandbox's HTTP proxy in $HTTPS_PROXY and $HTTP_PROXY)",
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("Explain = %q, want %q", got, want)
	}
	var nilC *Confined
	if nilC.Close() != nil || nilC.Refused() != nil {
		t.Error("a nil Confined's Close or Refused did something")
	}
}
