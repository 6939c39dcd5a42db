package main

import (
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// maxInitBytes bounds what zut's own packages allocate when they
// initialise: every run pays for it, also zut --version. What only one
// subcommand or tool needs (flag sets, help, tables, regular expressions,
// templates) is made on first use (sync.OnceValue) instead.
const maxInitBytes = 50 << 10

// TestInitAllocations runs zut --version with GODEBUG=inittrace=1 and
// adds up the bytes the initialisers of zut's packages allocate.
func TestInitAllocations(t *testing.T) {
	cmd := exec.Command(zutBinary, "--version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("zut --version: %v\n%s", err, out)
	}
	type pkgInit struct {
		name  string
		bytes int
	}
	var inits []pkgInit
	total := 0
	for _, l := range strings.Split(string(out), "\n") {
		// init github.com/zut-go/zut/host @2.6 ms, 0.18 ms clock, 96 bytes, 2 allocs
		f := strings.Fields(l)
		if len(f) < 10 || f[0] != "init" || !strings.HasPrefix(f[1], modulePath) || f[8] != "bytes," {
			continue
		}
		n, err := strconv.Atoi(f[7])
		if err != nil {
			t.Fatalf("cannot read %q: %v", l, err)
		}
		inits = append(inits, pkgInit{f[1], n})
		total += n
	}
	if len(inits) == 0 {
		t.Fatalf("GODEBUG=inittrace=1 printed no init line of zut's packages:\n%s", out)
	}
	if total > maxInitBytes {
		sort.Slice(inits, func(i, j int) bool { return inits[i].bytes > inits[j].bytes })
		var top []string
		for _, p := range inits[:min(len(inits), 8)] {
			top = append(top, fmt.Sprintf("%s %d", p.name, p.bytes))
		}
		t.Errorf("zut's packages allocate %d bytes initialising, more than %d; make what one subcommand needs lazy. The largest:\n%s", total, maxInitBytes, strings.Join(top, "\n"))
	}
	t.Logf("zut's packages allocate %d bytes in %d initialisers", total, len(inits))
}
