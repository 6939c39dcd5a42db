package markdown

import (
	"flag"
	"github.com/zut-go/zut/tui/ansi"
	"github.com/zut-go/zut/tui/internal/styletest"
	"github.com/zut-go/zut/tui/internal/txtar"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// update rewrites the golden files under testdata.
var update = flag.Bool("update", false, "rewrite golden files")

// setting reads "key: value" from the archive comment.

func TestMarkdownGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/markdown/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files: %v", err)
	}
	for _, path := range files {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txtar"), func(t *testing.T) {
			a := txtar.Read(t, path)
			in, ok := a.Get("input.md")
			if !ok {
				t.Fatal("no input.md section")
			}
			width := a.IntSetting("width", 50)
			plain := Render(in, Options{Width: width, Profile: ansi.ProfileNone})
			styled := Render(in, Options{Width: width, Profile: ansi.ProfileANSI256, Theme: styletest.Theme(), Hyperlinks: a.IntSetting("hyperlinks", 0) == 1})
			for _, l := range styled {
				if w := ansi.StringWidth(l); w > width {
					t.Errorf("line %q is %d cells wide, more than %d", l, w, width)
				}
			}
			got := map[string]string{"plain": styletest.JoinLines(plain), "styled": styletest.JoinLines(styletest.MapLines(styled, styletest.Annotate))}
			if *update {
				for _, k := range []string{"plain", "styled"} {
					a.Set(k, got[k])
				}
				if err := os.WriteFile(path, []byte(a.Format()), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			for _, k := range []string{"plain", "styled"} {
				if want := a.Data(k); got[k] != want {
					t.Errorf("RenderMarkdown(%s) %s output differs:\n--- got\n%s--- want\n%s", path, k, got[k], want)
				}
			}
		})
	}
}

// TestMarkdownStreaming feeds every golden input in many chunkings and
// checks that stable lines never change, that no line is too wide, that
// the unfinished output equals a fresh render of the same prefix, and that
// the finished output equals the one-shot render.
func TestMarkdownStreaming(t *testing.T) {
	files, _ := filepath.Glob("testdata/markdown/*.txtar")
	for _, path := range files {
		a := txtar.Read(t, path)
		in := a.Data("input.md")
		width := a.IntSetting("width", 50)
		opts := Options{Width: width, Profile: ansi.ProfileANSI256, Theme: styletest.Theme()}
		want := Render(in, opts)
		rng := rand.New(rand.NewPCG(1, uint64(len(in))))
		chunkings := map[string]func() int{
			"1": func() int { return 1 },
			"3": func() int { return 3 },
			"7": func() int { return 7 },
			"random": func() int {
				return 1 + rng.IntN(12)
			},
		}
		for name, next := range chunkings {
			t.Run(filepath.Base(path)+"/"+name, func(t *testing.T) {
				m := NewStream(opts)
				var stable []string
				check := func(prefix string) {
					lines := m.Lines()
					if m.Stable() < len(stable) || m.Stable() > len(lines) {
						t.Fatalf("after %q: Stable() = %d, was %d, have %d lines", prefix, m.Stable(), len(stable), len(lines))
					}
					for i, l := range stable {
						if lines[i] != l {
							t.Fatalf("after %q: stable line %d changed from %q to %q", prefix, i, l, lines[i])
						}
					}
					stable = slices.Clone(lines[:m.Stable()])
					for _, l := range lines {
						if ansi.StringWidth(l) > width {
							t.Fatalf("after %q: line %q wider than %d", prefix, l, width)
						}
					}
				}
				for i := 0; i < len(in); {
					n := min(next(), len(in)-i)
					m.WriteString(in[i : i+n])
					i += n
					check(in[:i])
					if i%61 == 0 || i == len(in) {
						fresh := NewStream(opts)
						fresh.WriteString(in[:i])
						if !slices.Equal(fresh.Lines(), m.Lines()) {
							t.Fatalf("after %q: streamed output\n%s\ndiffers from a fresh render\n%s", in[:i], strings.Join(m.Lines(), "\n"), strings.Join(fresh.Lines(), "\n"))
						}
					}
				}
				m.Finish()
				check(in)
				if m.Stable() != len(m.Lines()) {
					t.Errorf("after Finish: Stable() = %d, want %d", m.Stable(), len(m.Lines()))
				}
				if !slices.Equal(m.Lines(), want) {
					t.Errorf("streamed then finished:\n%s\nwant one-shot:\n%s", strings.Join(m.Lines(), "\n"), strings.Join(want, "\n"))
				}
			})
		}
	}
}

// FuzzMarkdown checks any text: no panic, no line wider than the width,
// no escape sequence but the renderer's own, stable lines that stay put,
// and streamed output equal to the one-shot output.
func FuzzMarkdown(f *testing.F) {
	files, _ := filepath.Glob("testdata/markdown/*.txtar")
	for _, path := range files {
		a := txtar.Read(f, path)
		f.Add(a.Data("input.md"), uint8(20), uint16(7))
	}
	f.Add("- a\n  ```go\n  x\n- b\n> c\n| a |\n|---|\n| 1 |", uint8(9), uint16(3))
	f.Fuzz(func(t *testing.T, in string, w uint8, seed uint16) {
		width := 1 + int(w)%60
		opts := Options{Width: width, Profile: ansi.ProfileANSI256, Theme: styletest.Theme(), Hyperlinks: seed%2 == 0}
		want := Render(in, opts)
		for _, l := range want {
			if ansi.StringWidth(l) > width {
				t.Fatalf("line %q wider than %d", l, width)
			}
			if a := styletest.Annotate(l); strings.Contains(a, "«esc") || strings.Contains(a, "?") && strings.Contains(a, "«?") {
				t.Fatalf("line %q carries a foreign escape sequence: %s", l, a)
			}
		}
		m := NewStream(opts)
		rng := rand.New(rand.NewPCG(uint64(seed), 1))
		var stable []string
		for i := 0; i < len(in); {
			n := min(1+rng.IntN(9), len(in)-i)
			m.WriteString(in[i : i+n])
			i += n
			lines := m.Lines()
			for k, l := range stable {
				if lines[k] != l {
					t.Fatalf("after %q: stable line %d changed from %q to %q", in[:i], k, l, lines[k])
				}
			}
			stable = slices.Clone(lines[:m.Stable()])
		}
		m.Finish()
		if !slices.Equal(m.Lines(), want) {
			t.Fatalf("streamed:\n%s\none-shot:\n%s", strings.Join(m.Lines(), "\n"), strings.Join(want, "\n"))
		}
	})
}

// TestMarkdownPartial shows what an unfinished text looks like: markers
// that are still open render as if closed, half a closing fence and half
// a table row are held back.
func TestMarkdownPartial(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string // plain lines, styles annotated
	}{
		{"open bold", "Some **bold te", []string{"«fg=text»Some «bold fg=text»bold te«»"}},
		{"open italic", "an *ital", []string{"«fg=text»an «italic fg=text»ital«»"}},
		{"open strike", "~~gone", []string{"«strike fg=text»gone«»"}},
		{"open code", "run `go te", []string{"«fg=text»run «fg=md_code bg=md_code_bg»go te«»"}},
		{"open link", "see [docs](https://exa", []string{"«fg=text»see «underline fg=md_link»docs«fg=muted» (https://exa)«»"}},
		{"open bracket stays", "see [docs", []string{"«fg=text»see [docs«»"}},
		{"times is not emphasis", "2*3", []string{"«fg=text»2*3«»"}},
		{"half closing fence", "```\ncode\n``", []string{"«fg=border»" + strings.Repeat("─", 30) + "«»", "«fg=md_code_block»code«»"}},
		{"half table row", "| a |\n|---|\n| 1 |\n| 2", []string{"«fg=md_table_border»┌───┐«»", "«fg=md_table_border»│«» «bold fg=text»a«» «fg=md_table_border»│«»", "«fg=md_table_border»├───┤«»", "«fg=md_table_border»│«» «fg=text»1«» «fg=md_table_border»│«»", "«fg=md_table_border»└───┘«»"}},
		{"split rune", "caf\xc3", []string{"«fg=text»caf«»"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := NewStream(Options{Width: 30, Profile: ansi.ProfileANSI256, Theme: styletest.Theme()})
			m.WriteString(tc.in)
			if got := styletest.MapLines(m.Lines(), styletest.Annotate); !slices.Equal(got, tc.want) {
				t.Errorf("WriteString(%q) lines =\n%s\nwant\n%s", tc.in, strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

// TestMarkdownStableGrows checks that lines become stable while the text
// streams, not only at the end: after a block is followed by another, and
// line by line inside a code block and a list.
func TestMarkdownStableGrows(t *testing.T) {
	m := NewStream(Options{Width: 40, Profile: ansi.ProfileNone})
	steps := []struct {
		write  string
		stable int
	}{
		{"# Title\n", 1},
		{"Para", 1},
		{"graph\n", 1},
		{"\n", 3}, // the paragraph closed by a blank line: title, blank, paragraph
		{"```go\n", 5},
		{"a := 1\n", 6},
		{"b := 2", 6},
		{"\n", 7},
		{"```\n", 8},
		{"\n- one\n", 8},
		{"- two\n", 10},
		{"- three", 10}, // "- three" may still become something else
		{"\n", 11},
	}
	for _, s := range steps {
		m.WriteString(s.write)
		if m.Stable() != s.stable {
			t.Fatalf("after %q: Stable() = %d, want %d; lines:\n%s", m.Text(), m.Stable(), s.stable, strings.Join(m.Lines(), "\n"))
		}
	}
	m.Finish()
	if m.Stable() != len(m.Lines()) {
		t.Errorf("after Finish: Stable() = %d of %d lines", m.Stable(), len(m.Lines()))
	}
}

func TestMarkdownLifecycle(t *testing.T) {
	m := NewStream(Options{Width: 20})
	m.WriteString("hello **world**")
	m.Finish()
	if _, err := m.WriteString("more"); err == nil {
		t.Error("WriteString after Finish succeeded, want an error")
	}
	m.Set("hello **world**") // the same text: nothing to do
	if !m.Done() || len(m.Lines()) != 1 {
		t.Errorf("Set(same text) changed the finished renderer: done=%v lines=%q", m.Done(), m.Lines())
	}
	m.Set("other text")
	if m.Done() || m.Text() != "other text" || m.Lines()[0] != "other text" {
		t.Errorf("Set(other text) = %q (done %v), want a fresh render", m.Lines(), m.Done())
	}
	m.Set("other text, continued")
	if m.Text() != "other text, continued" {
		t.Errorf("Set(continuation) text = %q", m.Text())
	}
	o := m.Options()
	o.Width = 8
	m.SetOptions(o)
	for _, l := range m.Lines() {
		if ansi.StringWidth(l) > 8 {
			t.Errorf("after SetOptions(width 8): line %q is wider", l)
		}
	}
	if want := Render("other text, continued", o); !slices.Equal(append(m.Lines()[:0:0], m.Lines()...), want) && m.Done() {
		t.Errorf("after SetOptions: %q, want %q", m.Lines(), want)
	}
	m.Reset()
	if len(m.Lines()) != 0 || m.Stable() != 0 || m.Text() != "" {
		t.Errorf("after Reset: lines %q, stable %d, text %q", m.Lines(), m.Stable(), m.Text())
	}
}
