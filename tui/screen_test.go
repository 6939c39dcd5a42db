package tui

import (
	"bytes"
	"fmt"
	"github.com/zut-go/zut/tui/ansi"
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/zut-go/zut/tui/vt"
)

// screenStep is one operation of a screen test: a commit, a render or a
// resize.
type screenStep struct {
	commit   []string
	live     []string
	row, col int
	resize   [2]int
	clear    bool
}

func stepRender(row, col int, live ...string) screenStep {
	return screenStep{live: live, row: row, col: col}
}
func stepCommit(lines ...string) screenStep { return screenStep{commit: lines} }
func stepResize(w, h int) screenStep        { return screenStep{resize: [2]int{w, h}} }

// screenHarness drives a Screen into a virtual terminal and checks after
// every frame that the terminal shows exactly the live region.
type screenHarness struct {
	t      *testing.T
	term   *vt.Terminal
	out    bytes.Buffer
	screen *Screen
	log    strings.Builder
	styles bool // dump style annotations
}

func newScreenHarness(t *testing.T, w, h int, reflow, sync bool) *screenHarness {
	hs := &screenHarness{t: t, term: vt.New(w, h)}
	hs.term.Reflow = reflow
	hs.screen = NewScreen(&hs.out, w, h)
	hs.screen.SetSyncOutput(sync)
	hs.screen.SetReflow(reflow)
	return hs
}

// plain strips escape sequences and trailing blanks, as the vt shows text.
func plainText(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		if n := ansi.EscapeLen(s[i:]); n > 0 {
			i += n
			continue
		}
		b.WriteByte(s[i])
		i++
	}
	return strings.TrimRight(b.String(), " ")
}

func (hs *screenHarness) step(i int, st screenStep) {
	t := hs.t
	t.Helper()
	hs.out.Reset()
	var what string
	switch {
	case st.commit != nil:
		hs.screen.Commit(st.commit...)
		what = fmt.Sprintf("commit %q", st.commit)
	case st.resize != [2]int{}:
		hs.term.Resize(st.resize[0], st.resize[1])
		hs.screen.Resize(st.resize[0], st.resize[1])
		what = fmt.Sprintf("resize %dx%d", st.resize[0], st.resize[1])
	case st.clear:
		if err := hs.screen.Clear(); err != nil {
			t.Fatal(err)
		}
		what = "clear"
	default:
		if err := hs.screen.Render(st.live, st.row, st.col); err != nil {
			t.Fatal(err)
		}
		what = fmt.Sprintf("render %d lines, cursor %d,%d", len(st.live), st.row, st.col)
	}
	hs.term.Write(hs.out.Bytes())
	fmt.Fprintf(&hs.log, "== step %d: %s\n", i, what)
	if out := hs.out.String(); len(out) <= 160 {
		fmt.Fprintf(&hs.log, "wrote %d bytes: %s\n", len(out), strconv.Quote(out))
	} else {
		fmt.Fprintf(&hs.log, "wrote %d bytes\n", len(out))
	}
	hs.log.WriteString(hs.term.Dump(true, hs.styles))
	if st.live != nil || st.clear {
		hs.check(i, st)
	}
}

// check verifies the live region: the rows from the region's top show the
// live lines (their last rows when taller than the screen), all rows below
// are blank, no sequence was unknown and synchronized output is off.
func (hs *screenHarness) check(i int, st screenStep) {
	t := hs.t
	t.Helper()
	if len(hs.term.Unknown) > 0 {
		t.Fatalf("step %d: terminal did not understand %q", i, hs.term.Unknown)
	}
	if hs.term.Modes[2026] {
		t.Fatalf("step %d: synchronized output left on", i)
	}
	w, h := hs.term.Size()
	lines := hs.term.Lines()
	crow, ccol := hs.term.Cursor()
	live := st.live
	row := st.row
	if st.clear {
		live, row = nil, 0
	}
	hidden := row < 0
	if extra := len(live) - h; extra > 0 {
		live = live[extra:]
		row = max(row-extra, 0)
	}
	if hidden {
		row = max(len(live)-1, 0)
	}
	row = min(row, max(len(live)-1, 0))
	top := crow - row
	if top < 0 {
		t.Fatalf("step %d: cursor at row %d, live cursor row %d: region above the screen", i, crow, row)
	}
	for j, l := range live {
		want := plainText(ansi.Truncate(l, w, "…"))
		if top+j >= h || lines[top+j] != want {
			t.Fatalf("step %d: row %d = %q, want %q\n%s", i, top+j, rowAt(lines, top+j), want, hs.tail())
		}
	}
	for y := top + len(live); y < h; y++ {
		if lines[y] != "" {
			t.Fatalf("step %d: row %d below the live region = %q, want blank\n%s", i, y, lines[y], hs.tail())
		}
	}
	if !hidden && !st.clear && ccol != min(max(st.col, 0), w-1) {
		t.Fatalf("step %d: cursor column %d, want %d", i, ccol, st.col)
	}
	if hs.term.CursorVisible == hidden {
		t.Fatalf("step %d: cursor visible = %v, want %v", i, hs.term.CursorVisible, !hidden)
	}
}

// tail returns the end of the log for failure messages.
func (hs *screenHarness) tail() string {
	l := hs.log.String()
	return l[max(0, len(l)-2500):]
}

func rowAt(lines []string, i int) string {
	if i < len(lines) {
		return lines[i]
	}
	return "<off screen>"
}

func goldenFile(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden file: %v (go test ./tui -update creates it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file; got:\n%s", path, got)
	}
}

var screenTests = []struct {
	name   string
	w, h   int
	reflow bool
	sync   bool
	steps  []screenStep
}{
	{"frames", 30, 8, true, true, []screenStep{
		stepRender(0, 2, "> "),
		stepRender(0, 2, "> "),
		stepRender(0, 7, "> hello"),
		stepRender(1, 2, "status: thinking", "> hello"),
		stepRender(2, 8, "status: thinking", "note: saved", "> hello!"),
		stepRender(1, 2, "status: done", "> "),
		stepRender(-1, 0, "panel", "  item one", "  item two"),
		stepRender(0, 2, "> "),
	}},
	{"streaming", 24, 6, true, true, []screenStep{
		stepRender(1, 2, "assistant:", "> "),
		stepRender(2, 2, "assistant:", "The quick", "> "),
		stepRender(2, 2, "assistant:", "The quick brown", "> "),
		stepRender(2, 2, "assistant:", "The quick brown fox", "> "),
		stepCommit("assistant:", "The quick brown fox"),
		stepRender(1, 2, "jumps", "> "),
		stepRender(1, 2, "jumps over the lazy", "> "),
		stepCommit("jumps over the lazy"),
		stepRender(1, 2, "dog.", "> "),
		stepCommit("dog.", ""),
		stepRender(0, 2, "> "),
		stepCommit("you: next question"),
		stepRender(0, 2, "> "),
	}},
	{"no sync", 20, 5, false, false, []screenStep{
		stepRender(0, 2, "> "),
		stepRender(1, 4, "working", "> ab"),
		stepCommit("line 1", "line 2"),
		stepRender(1, 4, "working", "> ab"),
		stepRender(0, 2, "> "),
	}},
	{"small 20x5", 20, 5, true, true, []screenStep{
		stepRender(0, 2, "> "),
		stepCommit("first committed line", "second"),
		stepRender(6, 2, "l1", "l2", "l3", "l4", "l5", "l6", "> "),
		stepRender(7, 3, "l1", "l2", "l3", "l4", "l5", "l6", "l7", "> x"),
		stepCommit("l1", "l2", "l3"),
		stepRender(4, 3, "l4", "l5", "l6", "l7", "> x"),
		stepRender(0, 3, "> x"),
		stepRender(0, 40, "> a line far wider than twenty cells"),
	}},
	{"cjk emoji", 16, 6, true, true, []screenStep{
		stepRender(0, 4, "世界"),
		stepRender(0, 8, "世界世界"),
		stepRender(0, 6, "世界👍🏽"),
		stepRender(1, 2, "🇯🇵 flag e\u0301", "👨\u200d👩\u200d👧 fam"),
		stepRender(1, 2, "🇯🇵 flag é", "👨\u200d👩\u200d👧 family!"),
		stepRender(0, 16, "日本語のテキストが長すぎる"),
		stepCommit("日本語のテキストが長すぎる"),
		stepRender(0, 2, "> "),
	}},
	{"styles", 20, 4, true, true, []screenStep{
		stepRender(0, 0, "\x1b[1mbold\x1b[0m plain"),
		stepRender(0, 0, "\x1b[1mbold and more"),
		stepRender(0, 0, "\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\ after"),
		stepRender(0, 0, "\x1b[31mred text that is too long"),
	}},
	{"resize reflow", 20, 6, true, true, []screenStep{
		stepCommit("history line one", "history line two"),
		stepRender(2, 10, "streaming text here.", "status", "> typing.."),
		stepResize(10, 6),
		stepRender(3, 10, "streaming", "text here.", "status", "> typing.."),
		stepResize(30, 6),
		stepRender(2, 10, "streaming text here. more", "status", "> typing.."),
		stepResize(12, 6),
		stepRender(4, 10, "streaming", "text here.", "more", "status", "> typing.."),
		stepResize(20, 6),
		stepRender(2, 10, "streaming text here.", "status", "> typing.."),
	}},
	// A known limit: when a narrower terminal rewraps the live region into
	// more rows than the screen has, the terminal pushes its top rows into
	// the scrollback, where nothing can erase them.
	{"resize reflow region pushed into scrollback", 30, 6, true, true, []screenStep{
		stepCommit("history line one", "history line two"),
		stepRender(2, 10, "streaming text here. more", "status", "> typing.."),
		stepResize(12, 4),
		stepRender(4, 10, "streaming", "text here.", "more", "status", "> typing.."),
		stepResize(20, 6),
		stepRender(2, 10, "streaming text here.", "status", "> typing.."),
	}},
	{"resize cut", 20, 6, false, false, []screenStep{
		stepCommit("history line one", "history line two"),
		stepRender(2, 10, "streaming text here.", "status", "> typing.."),
		stepResize(10, 6),
		stepRender(3, 10, "streaming", "text here.", "status", "> typing.."),
		stepResize(25, 8),
		stepRender(2, 10, "streaming text here.", "status", "> typing.."),
		stepResize(25, 3),
		stepRender(2, 10, "streaming text here.", "status", "> typing.."),
	}},
	{"clear", 20, 5, true, true, []screenStep{
		stepRender(1, 2, "status", "> "),
		stepCommit("pending"),
		{clear: true},
		stepRender(0, 2, "> "),
	}},
}

func TestScreen(t *testing.T) {
	for _, tc := range screenTests {
		t.Run(tc.name, func(t *testing.T) {
			hs := newScreenHarness(t, tc.w, tc.h, tc.reflow, tc.sync)
			hs.styles = tc.name == "styles"
			for i, st := range tc.steps {
				hs.step(i, st)
			}
			goldenFile(t, "screen/"+strings.ReplaceAll(tc.name, " ", "_")+".txt", hs.log.String())
		})
	}
}

// TestScreenIdle checks that a frame without changes writes nothing.
func TestScreenIdle(t *testing.T) {
	var out bytes.Buffer
	s := NewScreen(&out, 40, 10)
	live := []string{"status", "> hello"}
	s.Render(live, 1, 7)
	out.Reset()
	for range 3 {
		s.Render(live, 1, 7)
	}
	s.Render(nil, 0, 0)
	out.Reset()
	s.Render(nil, 0, 0)
	if out.Len() != 0 {
		t.Errorf("idle frames wrote %q, want nothing", out.String())
	}
}

// TestScreenRandom drives random frames, commits and resizes through the
// virtual terminal and checks every frame.
func TestScreenRandom(t *testing.T) {
	words := []string{"a", "word", "世界", "👍🏽", "e\u0301", "\x1b[1mbold\x1b[0m", "longer-word", " ", "  "}
	for seed := int64(1); seed <= 200; seed++ {
		rng := rand.New(rand.NewSource(seed))
		w, h := 10+rng.Intn(30), 3+rng.Intn(8)
		hs := newScreenHarness(t, w, h, seed%4 < 2, seed%2 == 0)
		line := func() string {
			var b strings.Builder
			for k := rng.Intn(8); k > 0; k-- {
				b.WriteString(words[rng.Intn(len(words))])
			}
			return b.String()
		}
		var live []string
		for i := range 60 {
			var st screenStep
			switch r := rng.Intn(10); {
			case r == 0 && len(live) > 0:
				n := 1 + rng.Intn(len(live))
				st = stepCommit(live[:n]...)
				hs.step(i, st)
				live = live[n:]
				continue
			case r == 1:
				st = stepCommit(line())
				hs.step(i, st)
				continue
			case r == 2 && seed%3 == 0:
				w, h = 10+rng.Intn(30), 3+rng.Intn(8)
				hs.step(i, stepResize(w, h))
				continue
			case r < 5 && len(live) > 0:
				live[rng.Intn(len(live))] = line()
			case r < 7:
				live = append(live, line())
			case len(live) > 0:
				live = live[:rng.Intn(len(live))]
			}
			row := rng.Intn(len(live)+1) - 1
			hs.step(i, stepRender(row, rng.Intn(w), append([]string(nil), live...)...))
		}
	}
}

// BenchmarkScreenKeystroke measures a keystroke from the key to the bytes
// of the frame: the editor takes the key and renders, the screen diffs,
// after 10,000 transcript lines went into the scrollback.
func BenchmarkScreenKeystroke(b *testing.B) {
	var out bytes.Buffer
	s := NewScreen(&out, 100, 40)
	s.SetSyncOutput(true)
	for i := range 10000 {
		s.Commit(fmt.Sprintf("transcript line %d with some text in it", i))
		if i%100 == 0 {
			s.Render([]string{"status", "> "}, 1, 2)
		}
	}
	e := &Editor{}
	e.SetText(strings.Repeat("some earlier text in the editor ", 5))
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if len(e.Text()) > 400 {
			e.SetText(strings.Repeat("some earlier text in the editor ", 5))
		}
		if i%50 == 49 {
			e.HandleKey(Key{Code: KeyBackspace})
		} else {
			e.HandleKey(Key{Code: KeyRune, Rune: rune('a' + i%26)})
		}
		lines, row, col := e.Render(98)
		live := append([]string{"⠋ working · 12s · 1.2k tokens", ""}, lines...)
		out.Reset()
		s.Render(live, row+2, col+2)
	}
}

// BenchmarkScreenStream streams tokens into the tail line of the live
// region, committing each line when it fills, and reports bytes written
// per byte of token text, rendering once per token.
func BenchmarkScreenStream(b *testing.B) {
	tokens := strings.Fields(strings.Repeat("the quick brown fox jumps over the lazy dog and keeps on running ", 50))
	for _, perFrame := range []int{1, 8, 32} {
		b.Run(fmt.Sprintf("tokens-per-frame-%d", perFrame), func(b *testing.B) {
			var out countWriter
			var tokenBytes int
			for b.Loop() {
				s := NewScreen(&out, 80, 24)
				s.SetSyncOutput(true)
				tail := ""
				for i, tok := range tokens {
					tok += " "
					if ansi.StringWidth(tail)+len(tok) > 80 {
						s.Commit(tail)
						tail = ""
					}
					tail += tok
					tokenBytes += len(tok)
					if (i+1)%perFrame == 0 {
						s.Render([]string{tail, "", "⠋ working 3s", "> "}, 3, 2)
					}
				}
			}
			b.ReportMetric(float64(out.n)/float64(tokenBytes), "bytes/token-byte")
		})
	}
}

type countWriter struct{ n int }

func (c *countWriter) Write(p []byte) (int, error) {
	c.n += len(p)
	return len(p), nil
}
