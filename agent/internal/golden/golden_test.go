package golden

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recorder is a testing.TB that keeps what Check reports.
type recorder struct {
	testing.TB
	errors []string
}

func (r *recorder) Helper()                        {}
func (r *recorder) Errorf(format string, a ...any) { r.errors = append(r.errors, format) }
func (r *recorder) Fatalf(format string, a ...any) { r.errors = append(r.errors, "fatal: "+format) }
func (r *recorder) Fatal(a ...any)                 { r.errors = append(r.errors, "fatal") }

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	wd, _ := os.Getwd()
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	tests := []struct {
		name, file, got string
		update          bool
		want            string // what Check reports, "" for nothing
	}{
		{name: "missing", file: "a.txt", got: "x", want: "fatal: %v (run go test -update to create it)"},
		{name: "update writes", file: "a.txt", got: "one\ntwo\n", update: true},
		{name: "equal", file: "a.txt", got: "one\ntwo\n"},
		{name: "differs", file: "a.txt", got: "one\nTWO\n", want: "differs at line"},
		{name: "longer", file: "a.txt", got: "one\ntwo\nthree\n", want: "differs at line"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := &recorder{TB: t}
			Check(r, tc.file, tc.got, tc.update)
			got := strings.Join(r.errors, "\n")
			if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
				t.Errorf("Check reported %q, want %q", got, tc.want)
			}
		})
	}
	if b, err := os.ReadFile(filepath.Join(dir, "testdata", "a.txt")); err != nil || string(b) != "one\ntwo\n" {
		t.Errorf("golden file = %q, %v", b, err)
	}
}
