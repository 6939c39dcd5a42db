package lsp

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestGopls runs every action against a real gopls on the small module in
// testdata/greet (copied, since the rename writes to it). One gopls serves
// the steps, in order.
func TestGopls(t *testing.T) {
	gopls := goplsPath(t)
	dir := copyDir(t, "testdata/greet")
	m := newManager(t, dir, goplsConfig(gopls))
	use := filepath.Join(dir, "use.go")

	steps := []struct {
		name, args string
	}{
		{"definition", `{"action":"definition","path":"use.go","line":5,"query":"Greet"}`},
		{"definition-column", `{"action":"definition","path":"use.go","line":5,"column":15}`},
		{"references", `{"action":"references","path":"greet.go","query":"Greet"}`},
		{"hover", `{"action":"hover","path":"use.go","line":5,"query":"Greet"}`},
		{"symbols", `{"action":"symbols","path":"greet.go"}`},
		{"diagnostics-clean", `{"action":"diagnostics","path":"use.go"}`},
		{"rename", `{"action":"rename","path":"greet.go","query":"Greet","new_name":"Hello"}`},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			r := run(t, m, st.args)
			if r.IsError {
				t.Fatalf("lsp %s: %s", st.args, r.Text())
			}
			golden(t, "gopls-"+st.name, strings.ReplaceAll(r.Text(), dir, "$DIR")+"\n")
		})
	}

	t.Run("rename-not-applied", func(t *testing.T) {
		data, _ := os.ReadFile(use)
		if strings.Contains(string(data), "Hello") {
			t.Fatalf("rename without apply changed use.go:\n%s", data)
		}
	})

	t.Run("workspace-symbols", func(t *testing.T) {
		r := run(t, m, `{"action":"symbols","query":"Greet"}`)
		d := details(t, r)
		if r.IsError || len(d.Symbols) == 0 || d.Symbols[0].Name != "Greet" || d.Symbols[0].Path != "greet.go" || d.Symbols[0].Line != 12 {
			t.Fatalf("workspace symbols = %q, want Greet at greet.go:12 first", r.Text())
		}
	})

	t.Run("after-edit", func(t *testing.T) {
		replaceIn(t, use, "Greet(b)", "Greet(len(b))")
		got := m.DiagnosticsAfterWrite(t.Context(), "use.go")
		golden(t, "gopls-after-edit", got+"\n")
		r := run(t, m, `{"action":"diagnostics","path":"use.go"}`)
		d := details(t, r)
		if len(d.Diagnostics) != 1 || d.Diagnostics[0].Severity != "error" || d.Diagnostics[0].Line != 6 || d.Diagnostics[0].Column != 27 {
			t.Fatalf("diagnostics after the breaking edit = %q %s, want one error at 6:27", r.Text(), r.Details)
		}
		r = run(t, m, `{"action":"diagnostics"}`)
		if !strings.Contains(r.Text(), "gopls report 1 error in 1 file:") {
			t.Errorf("all diagnostics = %q, want the error", r.Text())
		}
		replaceIn(t, use, "Greet(len(b))", "Greet(b)")
		if got := m.DiagnosticsAfterWrite(t.Context(), "use.go"); got != "lsp: gopls reports no problems in use.go" {
			t.Errorf("DiagnosticsAfterWrite after the fix = %q", got)
		}
	})

	t.Run("rename-applied", func(t *testing.T) {
		r := run(t, m, `{"action":"rename","path":"greet.go","query":"Greet","new_name":"Hello","apply":true}`)
		if r.IsError || !details(t, r).Applied {
			t.Fatalf("rename apply: %s", r.Text())
		}
		if !strings.Contains(r.Text(), "applied 5 edits in 2 files.\ngopls reports no errors in the renamed files.") {
			t.Errorf("rename apply = %q, want 5 edits applied and no errors", r.Text())
		}
		for name, want := range map[string]string{"greet.go": "func Hello(name string) string", "use.go": `s := "😀 " + Hello(a)`} {
			data, _ := os.ReadFile(filepath.Join(dir, name))
			if !strings.Contains(string(data), want) || strings.Contains(string(data), "Greet(") {
				t.Errorf("%s after the rename:\n%s\nwant %q and no Greet(", name, data, want)
			}
		}
		r = run(t, m, `{"action":"definition","path":"use.go","line":6,"query":"Hello"}`)
		if r.IsError || !strings.Contains(r.Text(), "greet.go:12:6: func Hello(name string) string {") {
			t.Errorf("definition after the rename = %q", r.Text())
		}
	})
}

// TestGoplsRenameAcrossPackages renames a type used in every package of
// testdata/shop, and in a catalog package of 22 files made here (so that
// the rename writes more files than zut once re-synced, the declaration's
// last), with a real gopls: afterwards gopls reports no errors (go build
// agrees), and an error made later is reported, of the version zut sent
// last.
func TestGoplsRenameAcrossPackages(t *testing.T) {
	gopls := goplsPath(t)
	dir := copyDir(t, "testdata/shop")
	const catalog = 22
	if err := os.Mkdir(filepath.Join(dir, "catalog"), 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range catalog {
		writeFile(t, filepath.Join(dir, "catalog", fmt.Sprintf("c%02d.go", i)), fmt.Sprintf(
			"package catalog\n\nimport \"example.com/shop/store\"\n\n// Tea%02d is an item of the catalog.\nvar Tea%02d = store.Item{Name: \"tea\", Cents: %d}\n", i, i, i))
	}
	m := newManager(t, dir, goplsConfig(gopls))

	r := run(t, m, `{"action":"rename","path":"store/store.go","query":"Item","new_name":"Product","apply":true}`)
	if r.IsError || !details(t, r).Applied {
		t.Fatalf("rename apply: %s", r.Text())
	}
	want := fmt.Sprintf("applied %d edits in %d files.\ngopls reports no errors in the renamed files.", 16+catalog, 5+catalog)
	if !strings.Contains(r.Text(), want) {
		t.Errorf("rename apply = %q, want %q", r.Text(), want)
	}
	goBuild(t, dir)
	r = run(t, m, `{"action":"diagnostics"}`)
	for _, d := range details(t, r).Diagnostics {
		if d.Severity == "error" {
			t.Errorf("after the rename gopls reports %s:%d:%d: %s", d.Path, d.Line, d.Column, d.Message)
		}
	}

	// A deliberate error, reported of the file's current version.
	report := filepath.Join(dir, "report", "report.go")
	replaceIn(t, report, `return s + fmt.Sprintf("total: %d", c.Total())`, `return s + c.Total()`)
	got := m.DiagnosticsAfterWrite(t.Context(), report)
	if !strings.HasPrefix(got, "lsp: gopls reports 1 error in report/report.go:\nreport/report.go:24:9: error: invalid operation: s + c.Total() (mismatched types string and int)") {
		t.Errorf("DiagnosticsAfterWrite after the error = %q", got)
	}
	s := serverOf(t, m)
	f := s.diag.of(report)
	s.docs.mu.Lock()
	doc := s.docs.open[report]
	s.docs.mu.Unlock()
	if doc == nil || doc.version < 2 || f == nil || f.version == nil || *f.version != doc.version {
		t.Errorf("the diagnostics held are of version %v, want the version sent last (document %+v)", f, doc)
	}
	r = run(t, m, `{"action":"diagnostics"}`)
	if !strings.HasPrefix(r.Text(), "gopls report 1 error in 1 file:\nreport/report.go:24:9:") {
		t.Errorf("all diagnostics = %q, want the one error", r.Text())
	}
}

// TestGoplsColdServer edits four files of testdata/shop, one error each,
// starting with a gopls that has not loaded the workspace yet: each
// edit's error is reported.
func TestGoplsColdServer(t *testing.T) {
	gopls := goplsPath(t)
	dir := copyDir(t, "testdata/shop")
	m := newManager(t, dir, goplsConfig(gopls))
	edits := []struct{ file, old, new, want string }{
		{"cart/cart.go", "return price.Total(c.Items)", `return price.Total(c.Items) + "x"`, "cart/cart.go:16:"},
		{"price/price.go", "n += it.Cents", "n += it.Name", "price/price.go:10:"},
		{"report/report.go", "it.Name, it.Cents)", "it.Name, it.Euros)", "report/report.go:13:"},
		{"main.go", `s.Add(store.NewItem("tea", 300))`, `s.Add(store.NewItem(300, "tea"))`, "main.go:13:"},
	}
	for i, e := range edits {
		replaceIn(t, filepath.Join(dir, e.file), e.old, e.new)
		got := m.DiagnosticsAfterWrite(t.Context(), e.file)
		if !strings.HasPrefix(got, "lsp: gopls reports ") || !strings.Contains(got, "\n"+e.want) || strings.Contains(got, "incomplete") {
			t.Errorf("edit %d (%s): DiagnosticsAfterWrite = %q, want an error at %s", i+1, e.file, got, e.want)
		}
	}
	s := serverOf(t, m)
	s.mu.Lock()
	announced, waits := s.announced, s.loadWaits
	s.mu.Unlock()
	t.Logf("%d calls waited for gopls to load the workspace", waits)
	if !s.isLoaded() || !announced {
		t.Errorf("gopls loaded %v, reported progress %v; want the load ended by its progress", s.isLoaded(), announced)
	}
}

// goBuild runs go build in dir, failing the test when it fails.
func goBuild(t *testing.T, dir string) {
	t.Helper()
	cmd := exec.Command("go", "build", "./...")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOTOOLCHAIN=local", "GOFLAGS=-mod=mod", "GOPROXY=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build after the rename: %v\n%s", err, out)
	}
}
