//go:build unix

package host

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zut-go/zut/proto/regular"
)

// TestExtensionLogCapped: an extension that writes 40 MiB to stderr
// before its handshake leaves a log of at most regular.MaxLog bytes plus
// one older file, both saying what happened, and it still loads. Before,
// the log grew with every byte (6.3 GB in 15 s).
func TestExtensionLogCapped(t *testing.T) {
	checkNoLeaks(t)
	f := newFixture(t)
	dir := filepath.Join(f.global(), "noisy")
	writeScript(t, filepath.Join(dir, "noisy.sh"), `#!/bin/sh
head -c 41943040 /dev/zero | tr '\0' 'x' >&2
echo '{"type":"hello","protocol_version":2,"name":"noisy","version":"1.0.0","capabilities":["commands"]}'
while IFS= read -r line; do
	case $line in
	*'"type":"hello_ack"'*) echo '{"type":"ready"}' ;;
	*'"type":"shutdown"'*) echo '{"type":"shutdown_ack"}'; exit 0 ;;
	esac
done
`)
	writeManifest(t, dir, map[string]any{"name": "noisy", "version": "1.0.0", "exec": "./noisy.sh"})
	h := f.start(t, f.config())
	var status string
	for _, r := range h.Diagnostics() {
		if r.Name == "noisy" {
			status = r.Status
		}
	}
	if status != "ok" {
		t.Fatalf("noisy loaded with status %q, want ok", status)
	}
	closeHost(t, h)
	path := LogPath(f.home, "noisy")
	for _, p := range []string{path, path + ".1"} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatalf("the log %s: %v", p, err)
		}
		if fi.Size() > regular.MaxLog {
			t.Errorf("%s holds %d bytes, over the %d cap", p, fi.Size(), regular.MaxLog)
		}
	}
	cur, _ := os.ReadFile(path)
	if !strings.Contains(string(cur), "older than it dropped]") || !strings.Contains(string(cur), "log closed after") {
		t.Errorf("%s does not say what was dropped: %q", path, cur[:min(len(cur), 300)])
	}
}
