package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zut-go/zut/agent/skills"
)

func TestSkill(t *testing.T) {
	cfg := testConfig(t)
	writeFiles(t, cfg.CWD, map[string]string{
		".zut/skills/pdf/SKILL.md":    "---\nname: pdf\ndescription: Work with PDF files.\n---\n\n# PDF\n\nRun `scripts/extract.py` on the file.\n",
		".zut/skills/pdf/scripts/x":   "",
		".zut/skills/big/SKILL.md":    "---\nname: big\ndescription: Long.\n---\n" + strings.Repeat("0123456789\n", 6000),
		".zut/skills/gone/SKILL.md":   "---\nname: gone\ndescription: Removed after discovery.\n---\nbody\n",
		".agents/skills/pdf/SKILL.md": "---\nname: pdf\ndescription: shadowed\n---\nnever shown\n",
	})
	idx := skills.Discover(skills.Options{CWD: cfg.CWD})
	cfg.Skills = idx
	var tl Tool
	for _, b := range Builtins(cfg) {
		if b.Definition().Name == "skill" {
			tl = b
		}
	}
	if tl == nil {
		t.Fatal("Builtins with Skills set has no skill tool")
	}
	// Remove one file after discovery: the tool must report it cleanly.
	if err := os.Remove(filepath.Join(cfg.CWD, ".zut/skills/gone/SKILL.md")); err != nil {
		t.Fatal(err)
	}
	cases := []goldenCase{
		{"load", call(t, tl, map[string]any{"name": "pdf"})},
		{"slash form", call(t, tl, map[string]any{"name": "/skill:pdf"})},
		{"unknown", call(t, tl, map[string]any{"name": "docx"})},
		{"file removed", call(t, tl, map[string]any{"name": "gone"})},
		{"none installed", Skill(skills.New(), "x")},
	}
	big := call(t, tl, map[string]any{"name": "big"})
	if big.IsError || len(big.Text()) > skillMaxBytes+1024 || !strings.Contains(big.Text(), "[the skill is longer than 50.0 KiB; read ") {
		t.Errorf("skill big = %d bytes, want it cut at %d with a note", len(big.Text()), skillMaxBytes)
	}
	checkGolden(t, "skill.golden", cases, cfg.CWD, "$CWD")
}
