package node_test

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
// Python SDK check too.
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

// TestCanonicalKeyTable runs canonicalKey of zut_ext.mjs in a real Node
// over the shared table of key names, so that the SDK names keys as zut
// does.
func TestCanonicalKeyTable(t *testing.T) {
	needRuntime(t)
	want := tableCases(t, keyTable)
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", filepath.Join("testdata", "keys.mjs"), "zut_ext.mjs", keyTable)
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node testdata/keys.mjs: %v\n%s", err, out)
	}
	if got := strings.TrimSpace(string(out)); got != fmt.Sprintf("checked %d", want) {
		t.Errorf("node testdata/keys.mjs printed %q, want %q", got, fmt.Sprintf("checked %d", want))
	}
}
