package exttest

import (
	"context"
	"path/filepath"
	"testing"
)

// BenchmarkHelloPy is "zut ext test" on a simple Python extension, the
// quick-start example: every phase, three processes. The target is at most
// 2 s per run; no deadline is waited out when the reply has come.
func BenchmarkHelloPy(b *testing.B) {
	if testing.Short() {
		b.Skip("starts Python processes")
	}
	dir := filepath.Join(examplesDir, "hello-py")
	for i := 0; i < b.N; i++ {
		rep, err := Test(context.Background(), dir, Options{})
		if err != nil {
			b.Fatal(err)
		}
		if rep.Verdict != Pass {
			b.Fatalf("Test(%s).Verdict = %s: %q", dir, rep.Verdict, rep.Failed())
		}
	}
}
