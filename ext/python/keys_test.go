package python_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// keyTable is the table of key names that proto.CanonicalKey and the
// Node SDK check too.
var keyTable = filepath.Join("..", "..", "proto", "testdata", "keys.txt")

// tableCases counts the cases of a table of testdata lines: the lines
// that are neither blank nor "#" comments.
func tableCases(t *testing.T, path string) int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); line != "" && !strings.HasPrefix(line, "#") {
			n++
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestCanonicalKeyTable runs zut_ext.canonical_key in a real Python over
// the shared table of key names, so that the SDK names keys as zut does.
func TestCanonicalKeyTable(t *testing.T) {
	needRuntime(t)
	want := tableCases(t, keyTable)
	sdk, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	cmd := exec.CommandContext(ctx, "python3", filepath.Join("testdata", "keys.py"), keyTable)
	cmd.Env = append(os.Environ(), "PYTHONPATH="+sdk, "PYTHONDONTWRITEBYTECODE=1")
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("python3 testdata/keys.py: %v\n%s", err, out)
	}
	if got := strings.TrimSpace(string(out)); got != fmt.Sprintf("checked %d", want) {
		t.Errorf("python3 testdata/keys.py printed %q, want %q", got, fmt.Sprintf("checked %d", want))
	}
}
