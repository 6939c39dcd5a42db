package syntax

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestGoDifferential holds the Go scanner and parser of this package to
// go/parser and go/ast (golang_old_test.go, the implementation they
// replaced): over every .go file of the Go distribution's src and of this
// repository that go/parser accepts, the outline, the calls (call:*) and
// the references (*, and *.* with its qualifier rules) must be identical,
// and no error may be reported. Files with //line directives are left
// out: go/token moved their line numbers, the scanner counts the file's
// own lines. With -short only this repository is read.
func TestGoDifferential(t *testing.T) {
	roots := []string{filepath.Join("..", "..", "..")}
	if !testing.Short() {
		out, err := exec.Command("go", "env", "GOROOT").Output()
		if err != nil {
			t.Fatalf("go env GOROOT: %v", err)
		}
		roots = append(roots, filepath.Join(strings.TrimSpace(string(out)), "src"))
	}
	calls, _ := parseQuery("call:*")
	refs, _ := parseQuery("*")
	qualRefs, _ := parseQuery("*.*")
	files, rejected, flagged, same, failed := 0, 0, 0, 0, 0
	for _, root := range roots {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
				return err
			}
			src, err := os.ReadFile(path) //zut:open test input: the Go distribution and this repository
			if err != nil {
				return err
			}
			if strings.Contains(string(src), "//line ") || strings.Contains(string(src), "/*line ") {
				return nil
			}
			old := oldParseGo(path, src)
			g := parseGo(path, src)
			if old.err != nil {
				rejected++
				if g.err != nil {
					flagged++
				}
				if g.err != nil && g.err.String() == oldFirstError(old.err) {
					same++
				}
				if testing.Verbose() {
					t.Logf("%s: go/parser: %s; now: %v", path, oldFirstError(old.err), g.err)
				}
				return nil
			}
			files++
			msg := ""
			switch {
			case g.err != nil:
				msg = "error " + g.err.String()
			default:
				msg = diffSymbols("outline", oldGoOutline(old), goOutline(g))
				if msg == "" {
					msg = diffSymbols("calls", oldGoCalls(old, calls), goCalls(g, calls))
				}
				if msg == "" {
					msg = diffSymbols("refs", oldGoRefs(old, refs), goRefs(g, refs))
				}
				if msg == "" {
					msg = diffSymbols("qualified refs", oldGoRefs(old, qualRefs), goRefs(g, qualRefs))
				}
			}
			if msg != "" {
				failed++
				if failed <= 20 {
					t.Errorf("%s: %s", path, msg)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("%d files compared, %d differ; of the %d that go/parser rejects, %d are reported broken, %d with the same error", files, failed, rejected, flagged, same)
	if files < 100 {
		t.Errorf("compared %d files, want the repository's at least", files)
	}
}

// diffSymbols describes the first difference between want and got.
func diffSymbols(what string, want, got []Symbol) string {
	for i := 0; i < len(want) || i < len(got); i++ {
		switch {
		case i >= len(want):
			return fmt.Sprintf("%s: extra %+v", what, got[i])
		case i >= len(got):
			return fmt.Sprintf("%s: missing %+v", what, want[i])
		case want[i] != got[i]:
			return fmt.Sprintf("%s: got %+v\n\twant %+v", what, got[i], want[i])
		}
	}
	return ""
}

// BenchmarkOutlineGo5000Old is BenchmarkOutlineGo5000 with go/parser, to
// compare in one run.
func BenchmarkOutlineGo5000Old(b *testing.B) {
	src := goSource(5000)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		g := oldParseGo("gen.go", src)
		if len(oldGoOutline(g)) < 1000 {
			b.Fatal("outline too short")
		}
	}
}
