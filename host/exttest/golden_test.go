package exttest

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

var (
	durations = regexp.MustCompile(`\b\d+(\.\d+)?(ms|µs|s)\b`)
	tempDirs  = regexp.MustCompile(`/[^ "]*zut-ext-test-\d+`)
)

// normalize replaces what changes from run to run: durations and paths.
func normalize(text, dir string) string {
	text = strings.ReplaceAll(text, dir, "$DIR")
	text = tempDirs.ReplaceAllString(text, "$$TMP")
	return durations.ReplaceAllString(text, "<dur>")
}

// TestGolden compares the text report of a passing example and of a few
// broken extensions with testdata/golden/<name>.txt.
func TestGolden(t *testing.T) {
	needPython(t)
	cases := []struct {
		name, dir string
		args      map[string][]string
	}{
		{"hello-py", filepath.Join(examplesDir, "hello-py"), map[string][]string{"hellopy-echo": {"", "hi there"}}},
		{"handshake.name", filepath.Join("testdata", "corpus", "handshake.name"), nil},
		{"calls.command", filepath.Join("testdata", "corpus", "calls.command"), nil},
		{"events.chain", filepath.Join("testdata", "corpus", "events.chain"), nil},
		{"robustness.stdout", filepath.Join("testdata", "corpus", "robustness.stdout"), nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			rep, err := Test(ctx, tc.dir, Options{Args: tc.args, Timeouts: generous(Timeouts{})})
			if err != nil {
				t.Fatalf("Test(%s) error: %v", tc.dir, err)
			}
			var b bytes.Buffer
			if err := rep.WriteText(&b); err != nil {
				t.Fatal(err)
			}
			got := normalize(b.String(), rep.Dir)
			file := filepath.Join("testdata", "golden", tc.name+".txt")
			if *update {
				if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatalf("%v (run go test ./host/exttest -run TestGolden -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("WriteText(%s) differs from %s (go test ./host/exttest -run TestGolden -update rewrites it)\ngot:\n%s\nwant:\n%s", tc.dir, file, got, want)
			}
		})
	}
}
