package zutfile

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// benchTree is an agent of 200 files of 16 KiB of text.
func benchTree(b *testing.B) string {
	files := map[string]string{"manifest.json": testManifest, "AGENT.md": "Review."}
	body := strings.Repeat("a line of text in a skill of the agent\n", 420)
	for i := 0; i < 200; i++ {
		files["skills/s"+string(rune('a'+i%26))+"/f"+strings.Repeat("x", i/26)+".md"] = body
	}
	return writeTree(b, files)
}

// BenchmarkPack packs a tree of 200 files (3.2 MiB).
func BenchmarkPack(b *testing.B) {
	dir := benchTree(b)
	var buf bytes.Buffer
	for i := 0; i < b.N; i++ {
		buf.Reset()
		if _, err := Pack(dir, &buf); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(buf.Len()), "archive-bytes")
}

// BenchmarkLoadArchive loads the pack of that tree: extract, walk,
// digest, parse.
func BenchmarkLoadArchive(b *testing.B) {
	dir := benchTree(b)
	var buf bytes.Buffer
	if _, err := Pack(dir, &buf); err != nil {
		b.Fatal(err)
	}
	zut := filepath.Join(b.TempDir(), "a.zut")
	os.WriteFile(zut, buf.Bytes(), 0o644)
	tmp := b.TempDir()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_, cleanup, err := Load(context.Background(), zut, LoadOptions{TempDir: tmp})
		if err != nil {
			b.Fatal(err)
		}
		cleanup()
	}
}
