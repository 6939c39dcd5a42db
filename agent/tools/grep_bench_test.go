package tools

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// mediumTree writes 2,000 source-like files (about 8 MiB) in 100
// directories, a tenth of them under an ignored directory.
func mediumTree(b *testing.B) Config {
	b.Helper()
	dir := b.TempDir()
	cfg := Config{CWD: dir, Home: dir, TempDir: dir}.withDefaults()
	files := map[string]string{".gitignore": "gen/\n*.tmp\n"}
	var body strings.Builder
	for i := range 100 {
		fmt.Fprintf(&body, "func handler%d(w http.ResponseWriter, r *http.Request) { // line %d\n", i, i)
	}
	text := body.String()
	for d := range 100 {
		sub := fmt.Sprintf("pkg%02d", d)
		if d%10 == 0 {
			sub = filepath.Join("gen", sub)
		}
		for f := range 20 {
			extra := ""
			if f == 7 {
				extra = "// TODO: rare marker\n"
			}
			files[fmt.Sprintf("%s/file%02d.go", sub, f)] = text + extra
		}
	}
	for p, s := range files {
		writeFilesB(b, dir, p, s)
	}
	return cfg
}

func writeFilesB(b *testing.B, root, p, s string) {
	b.Helper()
	full := filepath.Join(root, filepath.FromSlash(p))
	if err := mkdirWrite(full, s); err != nil {
		b.Fatal(err)
	}
}

func benchmarkGrep(b *testing.B, cfg Config, pattern string) {
	tl := &grepTool{cfg}
	args := []byte(fmt.Sprintf(`{"pattern":%q}`, pattern))
	b.ResetTimer()
	for b.Loop() {
		r := tl.Run(b.Context(), args, nil)
		if r.IsError {
			b.Fatal(r.Text())
		}
	}
}

func BenchmarkGrepGoRare(b *testing.B) {
	cfg := mediumTree(b)
	cfg.NoRipgrep = true
	benchmarkGrep(b, cfg, "TODO: rare")
}

// BenchmarkGrepGoRareScoped is BenchmarkGrepGoRare under a Scope, which
// checks each file the Go backend opens by the kernel's name for it,
// with the fifteen hidden members of zut's home an agent's scope has.
func BenchmarkGrepGoRareScoped(b *testing.B) {
	cfg := mediumTree(b)
	cfg.NoRipgrep = true
	cfg.Scope = &Scope{Write: []string{cfg.CWD}}
	for i := range 15 {
		cfg.Scope.Hidden = append(cfg.Scope.Hidden, filepath.Join(cfg.CWD, "zuthome", fmt.Sprint("member", i)))
	}
	benchmarkGrep(b, cfg, "TODO: rare")
}

func BenchmarkGrepGoCommon(b *testing.B) {
	cfg := mediumTree(b)
	cfg.NoRipgrep = true
	benchmarkGrep(b, cfg, `handler\d+\(`)
}

func BenchmarkGrepRipgrepRare(b *testing.B) {
	rg, err := exec.LookPath("rg")
	if err != nil {
		b.Skip("rg is not installed")
	}
	cfg := mediumTree(b)
	cfg.Ripgrep = rg
	benchmarkGrep(b, cfg, "TODO: rare")
}

func mkdirWrite(path, s string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(s), 0o644)
}
