package lsp

import (
	"testing"
)

func TestGoplsSmoke(t *testing.T) {
	gopls := goplsPath(t)
	dir := copyDir(t, "testdata/greet")
	m := newManager(t, dir, goplsConfig(gopls))
	for _, args := range []string{
		`{"action":"status"}`,
		`{"action":"definition","path":"use.go","line":5,"query":"Greet"}`,
		`{"action":"references","path":"greet.go","query":"Greet"}`,
		`{"action":"hover","path":"use.go","line":5,"query":"Greet"}`,
		`{"action":"symbols","path":"greet.go"}`,
		`{"action":"symbols","query":"Gree"}`,
		`{"action":"rename","path":"greet.go","query":"Greet","new_name":"Hello"}`,
		`{"action":"diagnostics","path":"use.go"}`,
		`{"action":"status"}`,
	} {
		r := run(t, m, args)
		t.Logf("%s\n-> err=%v\n%s\n%s", args, r.IsError, r.Text(), r.Details)
	}
	replaceIn(t, dir+"/use.go", "Greet(b)", "Greet(1)")
	t.Log(m.DiagnosticsAfterWrite(t.Context(), "use.go"))
	replaceIn(t, dir+"/use.go", "Greet(1)", "Greet(b)")
	t.Log(m.DiagnosticsAfterWrite(t.Context(), "use.go"))
	r := run(t, m, `{"action":"rename","path":"greet.go","query":"Greet","new_name":"Hello","apply":true}`)
	t.Logf("-> err=%v\n%s", r.IsError, r.Text())
}
