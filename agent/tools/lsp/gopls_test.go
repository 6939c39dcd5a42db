package lsp

import (
	"os"
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
