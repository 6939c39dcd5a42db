package rpcmode

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/zut-go/zut/provider/providertest"
)

var update = flag.Bool("update", false, "rewrite the transcripts in testdata")

// TestRPCTranscripts runs every testdata/*.txtar script (see
// rpc_harness_test.go) and compares zut's stdout with the archive's
// stdout file; -update rewrites it.
func TestRPCTranscripts(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no transcripts in testdata")
	}
	builds := newRPCBuilds(t)
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".txtar")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			a := parseRPCArchive(data)
			work := t.TempDir()
			var replies []providertest.Reply
			if script, ok := a.file("model.json"); ok {
				replies, err = providertest.ParseScript(bytes.ReplaceAll(script, []byte("$WORK"), []byte(work)))
				if err != nil {
					t.Fatalf("model.json: %v", err)
				}
			}
			r := newRPCRunIn(t, work, builds, replies)
			for _, f := range a.files {
				if f.name == "model.json" || f.name == "stdout" {
					continue
				}
				p := filepath.Join(r.work, f.name)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				mode := os.FileMode(0o644)
				if bytes.HasPrefix(f.data, []byte("#!")) {
					mode = 0o755 // a script, such as a raw extension
				}
				if err := os.WriteFile(p, f.data, mode); err != nil {
					t.Fatal(err)
				}
			}
			r.script(a)
			got := strings.Join(r.normalise(r.lines), "\n") + "\n"
			want, ok := a.file("stdout")
			if *update {
				if ok {
					for i := range a.files {
						if a.files[i].name == "stdout" {
							a.files[i].data = []byte(got)
						}
					}
				} else {
					a.files = append(a.files, rpcFile{name: "stdout", data: []byte(got)})
				}
				if err := os.WriteFile(file, a.format(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if !ok {
				t.Fatalf("%s has no stdout file; run go test -run TestRPCTranscripts -update", file)
			}
			if got != string(want) {
				t.Errorf("stdout differs from %s (go test -run TestRPCTranscripts -update rewrites it):\n%s", file, lineDiff(string(want), got))
			}
		})
	}
}

// lineDiff shows the first differing lines of two transcripts.
func lineDiff(want, got string) string {
	w := strings.Split(want, "\n")
	g := strings.Split(got, "\n")
	var b strings.Builder
	shown := 0
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl == gl {
			continue
		}
		b.WriteString("line " + strconv.Itoa(i+1) + ":\n  want " + wl + "\n  got  " + gl + "\n")
		if shown++; shown == 5 {
			break
		}
	}
	return b.String()
}
