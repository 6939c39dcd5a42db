package main

import (
	"debug/elf"
	"fmt"
	"os"
	"os/exec"
	"runtime"
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

// maxInitPackages bounds how many of zut's packages run an initialiser at
// all. Each one costs more than its allocations: the runtime calls it at
// every start, which faults in the part of the binary around it (the
// kernel maps 64 KiB around each fault), so every package with a map
// literal, a regexp, a sync.OnceValue or a call at package level added
// about 64 KiB to the peak memory of zut --version. Tables are switches,
// constants or made on first use (each package's lazy type) instead.
const maxInitPackages = 0

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
	if !strings.Contains(string(out), "init runtime @") {
		t.Fatalf("GODEBUG=inittrace=1 printed no init lines:\n%s", out)
	}
	if len(inits) > maxInitPackages {
		var names []string
		for _, p := range inits {
			names = append(names, p.name)
		}
		t.Errorf("%d of zut's packages run an initialiser, more than %d; make their package-level values static data (a switch, a constant, a literal without calls) or lazy:\n%s", len(inits), maxInitPackages, strings.Join(names, "\n"))
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

// maxImageBytes bounds the code, read-only data and function tables of
// the zut binary (.text, .rodata and .gopclntab): what a run maps and
// faults in, 64 KiB around each page it touches, and most of what it
// holds resident (docs/architecture.md). 14.92 MB when it was set, with
// Go 1.26. A change that needs more raises it and says why in its commit.
const maxImageBytes = 15_400_000

// imageGoVersion is the Go release maxImageBytes was measured with;
// another release lays the binary out differently, so the bound is
// checked with this one only.
const imageGoVersion = "go1.26"

// TestBinarySize keeps the binary from growing unnoticed.
func TestBinarySize(t *testing.T) {
	if v := runtime.Version(); v != imageGoVersion && !strings.HasPrefix(v, imageGoVersion+".") {
		t.Skipf("the bound is for %s; this is %s", imageGoVersion, v)
	}
	f, err := elf.Open(zutBinary)
	if err != nil {
		t.Skipf("not an ELF binary (%v): the bound is for Linux builds", err)
	}
	defer f.Close()
	total := uint64(0)
	var parts []string
	for _, name := range []string{".text", ".rodata", ".gopclntab"} {
		s := f.Section(name)
		if s == nil {
			t.Fatalf("%s has no %s section", zutBinary, name)
		}
		total += s.Size
		parts = append(parts, fmt.Sprintf("%s %d", name, s.Size))
	}
	if total > maxImageBytes {
		t.Errorf("the binary's code and tables are %d bytes (%s), more than maxImageBytes (%d): find what grew (go tool nm -size -sort size), or raise the bound and say why", total, strings.Join(parts, ", "), maxImageBytes)
	}
	t.Logf("%d bytes (%s)", total, strings.Join(parts, ", "))
}
