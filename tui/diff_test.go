package tui

import (
	"flag"
	"fmt"
	"github.com/zut-go/zut/tui/ansi"
	"github.com/zut-go/zut/tui/internal/styletest"
	"github.com/zut-go/zut/tui/internal/txtar"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// update rewrites the golden files under testdata.
var update = flag.Bool("update", false, "rewrite golden files")

// applyHunks rebuilds the new text from the old text and the hunks, as
// patch would; it fails the test when a hunk does not fit.
func applyHunks(t *testing.T, old string, hs []Hunk) string {
	t.Helper()
	a := splitLines(old)
	var b strings.Builder
	next := 0 // next old line index to copy
	for _, h := range hs {
		first := h.OldStart - 1
		if h.OldLines == 0 {
			first = h.OldStart
		}
		if first < next || first > len(a) {
			t.Fatalf("hunk %+v starts at old line %d, already at %d of %d", h, first+1, next+1, len(a))
		}
		for _, l := range a[next:first] {
			b.WriteString(l)
		}
		next = first
		for _, l := range h.Lines {
			text := l.Text
			if !l.NoEOL {
				text += "\n"
			}
			switch l.Kind {
			case ' ', '-':
				if next >= len(a) || a[next] != text {
					t.Fatalf("hunk line %q does not match old line %d", text, next+1)
				}
				next++
				if l.Kind == ' ' {
					b.WriteString(text)
				}
			case '+':
				b.WriteString(text)
			}
		}
	}
	for _, l := range a[next:] {
		b.WriteString(l)
	}
	return b.String()
}

// lcsLen is the textbook dynamic programme, to check that diffs are
// shortest.
func lcsLen(a, b []string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for i := range a {
		for j := range b {
			if a[i] == b[j] {
				cur[j+1] = prev[j] + 1
			} else {
				cur[j+1] = max(cur[j], prev[j+1])
			}
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func randomText(rng *rand.Rand, n int) string {
	var b strings.Builder
	for range n {
		b.WriteString([]string{"a", "b", "c", "d", "", "}"}[rng.IntN(6)])
		b.WriteByte('\n')
	}
	if rng.IntN(4) == 0 {
		b.WriteString("end")
	}
	return b.String()
}

func TestDiffRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for i := range 2000 {
		old, new := randomText(rng, rng.IntN(30)), randomText(rng, rng.IntN(30))
		if rng.IntN(3) == 0 {
			// Mostly similar texts, the usual case.
			new = old[:rng.IntN(len(old)+1)] + randomText(rng, 2) + old[rng.IntN(len(old)+1):]
		}
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			for _, ctx := range []int{0, 1, 3} {
				hs := Diff(old, new, ctx)
				if got := applyHunks(t, old, hs); got != new {
					t.Fatalf("Diff(%q, %q, %d) applied gives %q", old, new, ctx, got)
				}
				changes := 0
				for _, h := range hs {
					for _, l := range h.Lines {
						if l.Kind != ' ' {
							changes++
						}
					}
				}
				a, b := splitLines(old), splitLines(new)
				if want := len(a) + len(b) - 2*lcsLen(a, b); changes != want {
					t.Fatalf("Diff(%q, %q) has %d changed lines, want the minimum %d", old, new, changes, want)
				}
			}
		})
	}
}

func TestDiffEqual(t *testing.T) {
	for _, s := range []string{"", "a", "a\n", "a\nb\n"} {
		if hs := Diff(s, s, 3); len(hs) != 0 {
			t.Errorf("Diff(%q, %q) = %v, want no hunks", s, s, hs)
		}
		if u := UnifiedDiff("a", "b", s, s); u != "" {
			t.Errorf("UnifiedDiff of equal %q = %q, want \"\"", s, u)
		}
	}
}

// TestDiffLarge checks that a pathological diff ends quickly and still
// applies (the cost limit splits in the middle).
func TestDiffLarge(t *testing.T) {
	var a, b strings.Builder
	for i := range 6000 {
		fmt.Fprintf(&a, "old %d\n", i)
		fmt.Fprintf(&b, "new %d\n", i)
		if i%7 == 0 {
			fmt.Fprintf(&a, "same %d\n", i)
			fmt.Fprintf(&b, "same %d\n", i)
		}
	}
	hs := Diff(a.String(), b.String(), 3)
	if got := applyHunks(t, a.String(), hs); got != b.String() {
		t.Fatal("large diff does not apply")
	}
}

func TestDiffGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/diff/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files: %v", err)
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			a := txtar.Read(t, path)
			old, new := a.Data("old"), a.Data("new")
			if a.IntSetting("noeol-old", 0) == 1 {
				old = strings.TrimSuffix(old, "\n")
			}
			width := a.IntSetting("width", 40)
			hs := Diff(old, new, a.IntSetting("context", 3))
			if got := applyHunks(t, old, hs); got != new {
				t.Fatalf("golden diff does not apply: got %q", got)
			}
			got := map[string]string{
				"unified": UnifiedDiff("a/file", "b/file", old, new),
				"plain":   styletest.JoinLines(RenderDiff(hs, DiffOptions{Width: width, MaxLines: a.IntSetting("max", 0)})),
				"styled":  styletest.JoinLines(styletest.MapLines(RenderDiff(hs, DiffOptions{Width: width, Theme: styletest.Theme(), Profile: ansi.ProfileANSI256, MaxLines: a.IntSetting("max", 0)}), styletest.Annotate)),
			}
			for _, l := range RenderDiff(hs, DiffOptions{Width: width, Profile: ansi.ProfileTrueColor}) {
				if w := ansi.StringWidth(l); w > width {
					t.Errorf("rendered line %q is %d cells, more than %d", l, w, width)
				}
			}
			if *update {
				for _, k := range []string{"unified", "plain", "styled"} {
					a.Set(k, got[k])
				}
				if err := os.WriteFile(path, []byte(a.Format()), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			for _, k := range []string{"unified", "plain", "styled"} {
				if got[k] != a.Data(k) {
					t.Errorf("%s of %s:\n--- got\n%s--- want\n%s", k, path, got[k], a.Data(k))
				}
			}
		})
	}
}

func FuzzDiff(f *testing.F) {
	f.Add("a\nb\nc\n", "a\nc\nd\n")
	f.Add("x", "x\n")
	f.Add("", "new\n")
	f.Add("\t\x1b[31m\n", "\x00\n\r\n")
	f.Fuzz(func(t *testing.T, old, new string) {
		hs := Diff(old, new, 2)
		if got := applyHunks(t, old, hs); got != new {
			t.Fatalf("Diff(%q, %q) applied gives %q", old, new, got)
		}
		for _, l := range RenderDiff(hs, DiffOptions{Width: 17, Profile: ansi.ProfileTrueColor}) {
			if ansi.StringWidth(l) > 17 {
				t.Fatalf("line %q wider than 17", l)
			}
		}
	})
}

func BenchmarkDiff(b *testing.B) {
	var old, new strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&old, "line %d of the file with some text\n", i)
		if i%50 == 0 {
			fmt.Fprintf(&new, "changed line %d\n", i)
			continue
		}
		fmt.Fprintf(&new, "line %d of the file with some text\n", i)
	}
	o, n := old.String(), new.String()
	b.ReportAllocs()
	for b.Loop() {
		Diff(o, n, 3)
	}
}
