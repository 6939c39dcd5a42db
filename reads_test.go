package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// plantedReadHelper is the package that owns reading the files anyone
// can plant (docs/architecture.md): the only package that may open files
// with the os functions below without saying why.
const plantedReadHelper = "proto/regular"

// rawOpens are the os functions that open a file without the checks of
// proto/regular: on a FIFO they wait for a writer for good, on a device or
// a huge file they read without end.
var rawOpens = map[string]bool{"Open": true, "OpenFile": true, "ReadFile": true}

// openDirective is the comment that lets one raw open through: on the
// call's line or the line above, followed by why the file cannot be
// planted (a file zut just created, /proc, a test's own fixture).
const openDirective = "//zut:open "

// TestPlantedFileReads scans every non-test Go file of the module (the
// examples and testdata programs included) and fails on a call of
// os.Open, os.OpenFile or os.ReadFile outside proto/regular, unless it
// is an os.OpenFile with O_EXCL (a file created new, so nothing planted
// can be there) or O_NONBLOCK (spelt openNonblock where it is 0 outside
// Unix: the open does not wait, and the caller checks with fstat), or
// carries a //zut:open comment giving the reason. Reads
// of configuration, settings, manifests, skills, context files, themes,
// history, sessions, LSP and MCP configuration and auth go through
// regular.Read or regular.Open (or provider.ReadRegular and
// provider.OpenRegular, which forward to them), which this test accepts
// wherever they are called.
func TestPlantedFileReads(t *testing.T) {
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		if filepath.ToSlash(filepath.Dir(path)) == plantedReadHelper {
			return nil
		}
		for _, bad := range rawOpenCalls(t, fset, path) {
			t.Errorf("%s: %s opens a file without proto/regular's checks (a FIFO planted there hangs zut); use regular.Read / regular.Open (provider.ReadRegular / provider.OpenRegular), or say why the file cannot be planted in a %q comment", bad.pos, bad.call, strings.TrimSpace(openDirective))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

type rawOpen struct {
	pos  token.Position
	call string
}

// rawOpenCalls returns the raw opens of one file that no rule lets
// through.
func rawOpenCalls(t *testing.T, fset *token.FileSet, path string) []rawOpen {
	t.Helper()
	f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
	if err != nil {
		t.Fatalf("parse %s: %v", path, err)
	}
	osName := ""
	for _, imp := range f.Imports {
		if imp.Path.Value == `"os"` {
			osName = "os"
			if imp.Name != nil {
				osName = imp.Name.Name
			}
		}
	}
	if osName == "" || osName == "_" {
		return nil
	}
	// The lines holding a //zut:open comment with a reason.
	excused := map[int]bool{}
	for _, g := range f.Comments {
		for _, c := range g.List {
			if strings.HasPrefix(c.Text, openDirective) && strings.TrimSpace(strings.TrimPrefix(c.Text, openDirective)) != "" {
				excused[fset.Position(c.Slash).Line] = true
			}
		}
	}
	var out []rawOpen
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok || !rawOpens[sel.Sel.Name] {
			return true
		}
		if x, ok := sel.X.(*ast.Ident); !ok || x.Name != osName {
			return true
		}
		pos := fset.Position(call.Pos())
		if excused[pos.Line] || excused[pos.Line-1] {
			return true
		}
		if sel.Sel.Name == "OpenFile" && len(call.Args) > 1 &&
			(mentions(call.Args[1], "O_EXCL") || mentions(call.Args[1], "O_NONBLOCK") || mentions(call.Args[1], "openNonblock")) {
			return true // a new file, or a non-blocking open checked with fstat after
		}
		out = append(out, rawOpen{pos, osName + "." + sel.Sel.Name})
		return true
	})
	return out
}

// mentions reports whether the expression uses the identifier name (as
// os.O_EXCL or a bare O_EXCL).
func mentions(e ast.Expr, name string) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			found = found || n.Sel.Name == name
		case *ast.Ident:
			found = found || n.Name == name
		}
		return !found
	})
	return found
}

// TestPlantedFileReadsCatches runs the scan on a file holding each kind
// of open, so that the rules above are known to fail and pass as said.
func TestPlantedFileReadsCatches(t *testing.T) {
	src := `package x

import "os"

func f(p string) {
	os.ReadFile(p)
	os.Open(p)
	os.OpenFile(p, os.O_RDONLY, 0)
	os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	os.OpenFile(p, os.O_RDONLY|openNonblock, 0)
	os.Open(p) //zut:open the test's own file
	//zut:open a file this process made
	os.ReadFile(p)
	os.Open(p) //zut:open
}
`
	path := filepath.Join(t.TempDir(), "x.go")
	if err := writeFile(path, src); err != nil {
		t.Fatal(err)
	}
	got := rawOpenCalls(t, token.NewFileSet(), path)
	var lines []int
	for _, g := range got {
		lines = append(lines, g.pos.Line)
	}
	want := []int{6, 7, 8, 14}
	if len(lines) != len(want) {
		t.Fatalf("rawOpenCalls flagged lines %v, want %v", lines, want)
	}
	for i := range want {
		if lines[i] != want[i] {
			t.Fatalf("rawOpenCalls flagged lines %v, want %v", lines, want)
		}
	}
}
func writeFile(path, s string) error { return os.WriteFile(path, []byte(s), 0o600) }
