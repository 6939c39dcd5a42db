package sandbox

import (
	"testing"
)

// FuzzDecodePolicy: the shim's policy decoder never panics, and what it
// accepts is a checked policy that encodes back to itself.
func FuzzDecodePolicy(f *testing.F) {
	p, _ := WorkspaceWrite.Policy(Project{Dir: "/p", TempDir: "/t", Hidden: []string{"/h"}})
	f.Add(p.encode())
	f.Add(`{"read":["/"],"connect_tcp":[80],"network":"none"}`)
	f.Add(`{"write":["x"]}`)
	f.Add(`{"read":["/"],"connect_tcp":[],"bind_tcp":[]}`)
	f.Add(`{`)
	f.Fuzz(func(t *testing.T, s string) {
		p, err := decodePolicy(s)
		if err != nil {
			return
		}
		if err := p.check(); err != nil {
			t.Fatalf("decodePolicy(%q) accepted a policy check refuses: %v", s, err)
		}
		q, err := decodePolicy(p.encode())
		if err != nil || q.encode() != p.encode() || q.netRules() != p.netRules() ||
			(q.ConnectTCP == nil) != (p.ConnectTCP == nil) || (q.BindTCP == nil) != (p.BindTCP == nil) {
			t.Fatalf("decodePolicy(encode(%q)) = %+v, %v; want %+v", s, q, err, p)
		}
	})
}

// FuzzExplain: any output of a command is read without a panic, and
// every line returned is a refusal.
func FuzzExplain(f *testing.F) {
	f.Add("bash: line 1: /etc/x: Permission denied")
	f.Add("touch: cannot touch '': Read-only file system")
	f.Add("unshare: unshare failed: Operation not permitted\n: Permission denied: ''")
	p, _ := WorkspaceWrite.Policy(Project{Dir: "/p", TempDir: "/t"})
	c := &Confined{Mode: string(WorkspaceWrite), Policy: p, Dir: "/p", access: func(string) bool { return true }}
	f.Fuzz(func(t *testing.T, out string) {
		got := c.Explain(out)
		if len(got) > maxExplained {
			t.Fatalf("Explain returned %d lines", len(got))
		}
		for _, l := range got {
			if len(l) < len("blocked by the sandbox: ") || l[:len("blocked by the sandbox: ")] != "blocked by the sandbox: " {
				t.Fatalf("Explain line %q", l)
			}
		}
	})
}
