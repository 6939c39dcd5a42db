package telegram_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/zut-go/zut/agent/bot/telegram"
	"github.com/zut-go/zut/agent/bot/telegram/telegramtest"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// golden compares got with the file, or rewrites it with -update.
func golden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs (go test -update rewrites it):\n--- got ---\n%s\n--- want ---\n%s", path, got, want)
	}
}

// wire converts f's entities to what the Bot API reports (UTF-16).
func wire(f telegram.Formatted) []telegramtest.Entity {
	var out []telegramtest.Entity
	for _, e := range f.Entities {
		off := telegram.UTF16Len(f.Text[:e.Start])
		out = append(out, telegramtest.Entity{Type: e.Type, Offset: off, Length: telegram.UTF16Len(f.Text[e.Start:e.End]), URL: e.URL, Language: e.Language})
	}
	return out
}

// checkParses asserts that Telegram's parser reads both renderings of f
// back as f.
func checkParses(t *testing.T, name string, f telegram.Formatted) {
	t.Helper()
	want := fmt.Sprint(wire(f))
	for _, mode := range []string{"HTML", "MarkdownV2"} {
		src := f.HTML()
		if mode == "MarkdownV2" {
			src = f.MarkdownV2()
		}
		text, ents, err := telegramtest.Parse(mode, src)
		if err != nil {
			t.Errorf("%s: Parse(%s, %q): %v", name, mode, src, err)
			continue
		}
		if text != f.Text {
			t.Errorf("%s: %s text = %q, want %q", name, mode, text, f.Text)
		}
		if got := fmt.Sprint(ents); got != want {
			t.Errorf("%s: %s entities = %s, want %s\nsource: %q", name, mode, got, want, src)
		}
	}
}

func TestMarkdownGolden(t *testing.T) {
	files, _ := filepath.Glob("testdata/format/*.md")
	if len(files) == 0 {
		t.Fatal("no testdata/format/*.md")
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".md")
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			f := telegram.Markdown(string(src))
			golden(t, strings.TrimSuffix(file, ".md")+".html", f.HTML())
			golden(t, strings.TrimSuffix(file, ".md")+".mdv2", f.MarkdownV2())
			checkParses(t, name, f)
		})
	}
}

func TestSplitGolden(t *testing.T) {
	files, _ := filepath.Glob("testdata/split/*.md")
	if len(files) == 0 {
		t.Fatal("no testdata/split/*.md")
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".md")
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			head, body, _ := strings.Cut(string(src), "\n")
			limit, err := strconv.Atoi(strings.TrimPrefix(head, "limit: "))
			if err != nil {
				t.Fatalf("%s: the first line must be \"limit: N\"", file)
			}
			f := telegram.Markdown(body)
			parts := telegram.Split(f, limit)
			var b strings.Builder
			for i, p := range parts {
				fmt.Fprintf(&b, "--- part %d: %d UTF-16 units ---\n%s\n", i+1, telegram.UTF16Len(p.Text), p.HTML())
			}
			golden(t, strings.TrimSuffix(file, ".md")+".golden", b.String())
			checkSplit(t, name, f, parts, limit)
		})
	}
}

// checkSplit asserts the invariants of Split: every part fits, parses in
// both modes, and together the parts hold exactly the text of f (apart
// from the white space at the cuts).
func checkSplit(t *testing.T, name string, f telegram.Formatted, parts []telegram.Formatted, limit int) {
	t.Helper()
	var all strings.Builder
	for i, p := range parts {
		if n := telegram.UTF16Len(p.Text); n > max(limit, 8) {
			t.Errorf("%s: part %d has %d UTF-16 units, more than %d", name, i+1, n, limit)
		}
		if strings.TrimSpace(p.Text) == "" {
			t.Errorf("%s: part %d is empty", name, i+1)
		}
		checkParses(t, fmt.Sprintf("%s part %d", name, i+1), p)
		all.WriteString(p.Text)
	}
	if got, want := noSpace(all.String()), noSpace(f.Text); got != want {
		t.Errorf("%s: the parts hold %q, want %q", name, got, want)
	}
}

func noSpace(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return r
	}, s)
}

func TestMarkdownEntities(t *testing.T) {
	type ent struct{ typ, text string }
	tests := []struct {
		name, md, text string
		ents           []ent
	}{
		{"bold", "a **b** c", "a b c", []ent{{"bold", "b"}}},
		{"intraword underscore", "snake_case_name", "snake_case_name", nil},
		{"intraword star", "a*b*c", "abc", []ent{{"italic", "b"}}},
		{"unclosed", "**open and `tick", "**open and `tick", nil},
		{"em around strong", "*a **b** c*", "a b c", []ent{{"italic", "a b c"}, {"bold", "b"}}},
		{"rule of three", "*foo**bar*", "foo**bar", []ent{{"italic", "foo**bar"}}},
		{"strong in em", "***x***", "x", []ent{{"italic", "x"}, {"bold", "x"}}},
		{"strike needs two", "~a~ ~~b~~", "~a~ b", []ent{{"strikethrough", "b"}}},
		{"code keeps markup", "`**x**`", "**x**", []ent{{"code", "**x**"}}},
		{"link", "[t](https://x.y)", "t", []ent{{"text_link", "t"}}},
		{"relative link keeps text", "[t](a/b.md)", "t", nil},
		{"javascript link", "[t](javascript:x)", "t", nil},
		{"link in link", "[a [b](https://b) c](https://a)", "[a b c](https://a)", []ent{{"text_link", "b"}}},
		{"escape", `\*x\*`, "*x*", nil},
		{"heading", "## Title ##", "Title", []ent{{"bold", "Title"}}},
		{"heading drops inner bold", "# a **b**", "a b", []ent{{"bold", "a b"}}},
		{"fence language", "```py\nx\n```", "x", []ent{{"pre", "x"}}},
		{"unclosed fence", "```\ncode", "code", []ent{{"pre", "code"}}},
		{"quote", "> q\n> r", "q\nr", []ent{{"blockquote", "q\nr"}}},
		{"list", "- a\n- b", "• a\n• b", nil},
		{"blank lines kept", "a\n\n\nb", "a\n\nb", nil},
		{"html stays text", "<b>x</b>", "<b>x</b>", nil},
		{"invalid utf8", "a\xffb", "a\uFFFDb", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := telegram.Markdown(tc.md)
			if f.Text != tc.text {
				t.Errorf("Markdown(%q).Text = %q, want %q", tc.md, f.Text, tc.text)
			}
			var got []ent
			for _, e := range f.Entities {
				got = append(got, ent{e.Type, f.Text[e.Start:e.End]})
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.ents) {
				t.Errorf("Markdown(%q) entities = %v, want %v", tc.md, got, tc.ents)
			}
			checkParses(t, tc.name, f)
		})
	}
}

func TestSplitLimits(t *testing.T) {
	tests := []struct {
		name  string
		md    string
		limit int
		parts int
	}{
		{"fits", "short", 4096, 1},
		{"100000 characters", strings.Repeat("word ", 20000), 4096, 25},
		{"one long line", strings.Repeat("x", 10000), 4096, 3},
		{"emoji count twice", strings.Repeat("😀", 2049), 4096, 2},
		{"long code block", "```\n" + strings.Repeat("line of code\n", 800) + "```", 4096, 3},
		{"empty", "  \n\n ", 4096, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := telegram.Markdown(tc.md)
			parts := telegram.Split(f, tc.limit)
			if len(parts) != tc.parts {
				t.Errorf("Split(%s) = %d parts, want %d", tc.name, len(parts), tc.parts)
			}
			checkSplit(t, tc.name, f, parts, tc.limit)
		})
	}
}

func TestSplitCodeBlockReopens(t *testing.T) {
	md := "```go\n" + strings.Repeat("fmt.Println(\"<x> & y\")\n", 300) + "```"
	parts := telegram.Split(telegram.Markdown(md), telegram.MaxMessage)
	if len(parts) < 2 {
		t.Fatalf("Split = %d parts, want at least 2", len(parts))
	}
	for i, p := range parts {
		if len(p.Entities) != 1 || p.Entities[0].Type != "pre" || p.Entities[0].Language != "go" ||
			p.Entities[0].Start != 0 || p.Entities[0].End != len(p.Text) {
			t.Errorf("part %d entities = %+v, want one go pre block over the whole part", i+1, p.Entities)
		}
		if strings.Contains(p.Text, "\n\n") || strings.HasPrefix(p.Text, "\n") {
			t.Errorf("part %d starts or breaks oddly: %q", i+1, p.Text[:40])
		}
		if !strings.HasPrefix(p.Text, "fmt.Println") {
			t.Errorf("part %d = %q..., want it to start at a line", i+1, p.Text[:20])
		}
	}
}

func FuzzMarkdown(f *testing.F) {
	for _, s := range []string{"**a** _b_ `c` [d](https://e)", "```go\nx\n```", "> q\n- l\n# h", "***a*b**", "~~x~~", "a\\*b", "[a](<b c>)", "| a |\n|---|\n| b |"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, md string) {
		fm := telegram.Markdown(md)
		checkEntities(t, fm)
		checkParses(t, "fuzz", fm)
	})
}

func FuzzSplit(f *testing.F) {
	f.Add(strings.Repeat("**bold** and `code` ", 30), uint16(50))
	f.Add("```\n"+strings.Repeat("x\n", 100)+"```", uint16(20))
	f.Add(strings.Repeat("😀e\u0301 ", 50), uint16(9))
	f.Fuzz(func(t *testing.T, md string, limit uint16) {
		l := int(limit%120) + 8 // small, so that most inputs need cuts
		fm := telegram.Markdown(md)
		parts := telegram.Split(fm, l)
		for _, p := range parts {
			checkEntities(t, p)
		}
		checkSplit(t, "fuzz", fm, parts, l)
	})
}

// checkEntities asserts the documented invariants of Formatted.
func checkEntities(t *testing.T, f telegram.Formatted) {
	t.Helper()
	var stack []telegram.Entity
	for i, e := range f.Entities {
		if e.Start < 0 || e.End > len(f.Text) || e.Start >= e.End {
			t.Fatalf("entity %d %+v out of range of %d bytes", i, e, len(f.Text))
		}
		for len(stack) > 0 && stack[len(stack)-1].End <= e.Start {
			stack = stack[:len(stack)-1]
		}
		for _, a := range stack {
			if e.End > a.End {
				t.Fatalf("entity %+v crosses %+v", e, a)
			}
			if a.Type == e.Type || a.Type == "code" || a.Type == "pre" {
				t.Fatalf("entity %+v is inside %+v", e, a)
			}
		}
		stack = append(stack, e)
	}
}
