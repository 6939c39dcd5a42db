package main

import (
	"bufio"
	"encoding/json"
	"maps"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// importPolicy is the package DAG of STYLE.md as data. A package belongs to
// the group named by the first element of its path inside the module ("" is
// the main package at the root); it may import packages of its own group and
// of the groups listed here, and nothing else from the module.
var importPolicy = map[string][]string{
	"proto":    {},
	"ext":      {"proto"},
	"host":     {"proto"},
	"provider": {},
	"agent":    {"provider"},
	"tui":      {},
	"examples": {"ext"},
	"":         {"proto", "ext", "host", "provider", "agent", "tui"},
}

// forbiddenStd lists standard packages a group must never import.
var forbiddenStd = map[string][]string{
	"ext":   {"net/http"},
	"proto": {"net/http", "os/exec"},
}

// allowedModules are the only modules zut may require.
var allowedModules = map[string]bool{
	"golang.org/x/term": true,
	"golang.org/x/sys":  true,
}

const modulePath = "github.com/zut-go/zut"

type listedPackage struct {
	ImportPath   string
	Imports      []string
	TestImports  []string
	XTestImports []string
}

func TestImportPolicy(t *testing.T) {
	out, err := exec.Command("go", "list", "-json", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	n := 0
	for dec.More() {
		var p listedPackage
		if err := dec.Decode(&p); err != nil {
			t.Fatalf("decode go list output: %v", err)
		}
		n++
		group := groupOf(p.ImportPath)
		allowed, ok := importPolicy[group]
		if !ok {
			t.Errorf("package %s is in group %q, which the import policy does not know; add it to importPolicy", p.ImportPath, group)
			continue
		}
		for _, imp := range p.Imports {
			if !strings.HasPrefix(imp, modulePath) {
				checkExternal(t, p.ImportPath, imp)
				for _, bad := range forbiddenStd[group] {
					if imp == bad {
						t.Errorf("%s imports %s, which group %q must not use", p.ImportPath, imp, group)
					}
				}
				continue
			}
			ig := groupOf(imp)
			if ig == group || slices.Contains(allowed, ig) {
				continue
			}
			t.Errorf("%s imports %s: edge %q -> %q is not in the import policy", p.ImportPath, imp, group, ig)
		}
		for _, imp := range append(p.TestImports, p.XTestImports...) {
			if !strings.HasPrefix(imp, modulePath) {
				checkExternal(t, p.ImportPath+" (tests)", imp)
			}
		}
	}
	if n == 0 {
		t.Fatal("go list returned no packages")
	}
}

func checkExternal(t *testing.T, from, imp string) {
	t.Helper()
	first, _, _ := strings.Cut(imp, "/")
	if !strings.Contains(first, ".") {
		return // standard library
	}
	for m := range allowedModules {
		if imp == m || strings.HasPrefix(imp, m+"/") {
			return
		}
	}
	t.Errorf("%s imports %s, outside the standard library and %v", from, imp, keys(allowedModules))
}

func TestGoModRequiresOnlyAllowedModules(t *testing.T) {
	f, err := os.Open("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var required []string
	inBlock := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if i := strings.Index(line, "//"); i >= 0 {
			line = strings.TrimSpace(line[:i])
		}
		switch {
		case line == "require (":
			inBlock = true
		case inBlock && line == ")":
			inBlock = false
		case inBlock && line != "":
			required = append(required, strings.Fields(line)[0])
		case strings.HasPrefix(line, "require "):
			required = append(required, strings.Fields(line)[1])
		case strings.HasPrefix(line, "replace ") || strings.HasPrefix(line, "tool "):
			t.Errorf("go.mod has %q; zut uses no replace or tool directives", line)
		}
	}
	if len(required) == 0 {
		t.Fatal("go.mod requires nothing; expected golang.org/x/term and golang.org/x/sys")
	}
	for _, m := range required {
		if !allowedModules[m] {
			t.Errorf("go.mod requires %s; only %v are allowed", m, keys(allowedModules))
		}
	}
}

func groupOf(importPath string) string {
	rest := strings.TrimPrefix(importPath, modulePath)
	rest = strings.TrimPrefix(rest, "/")
	first, _, _ := strings.Cut(rest, "/")
	return first
}

func keys(m map[string]bool) []string { return slices.Sorted(maps.Keys(m)) }
