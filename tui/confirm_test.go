package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/zut-go/zut/tui/ansi"
)

func runes(s string) []Key {
	var ks []Key
	for _, r := range s {
		ks = append(ks, Key{Code: KeyRune, Rune: r})
	}
	return ks
}

func TestConfirmKeys(t *testing.T) {
	keys := func(groups ...[]Key) []Key {
		var out []Key
		for _, g := range groups {
			out = append(out, g...)
		}
		return out
	}
	k := func(c KeyCode) []Key { return []Key{{Code: c}} }
	ctrlC := []Key{{Code: KeyRune, Rune: 'c', Mod: ModCtrl}}
	tests := []struct {
		name string
		keys []Key
		want ConfirmChoice
	}{
		{"y allows once", runes("y"), ConfirmChoice{Allow: true}},
		{"1 allows once", runes("1"), ConfirmChoice{Allow: true}},
		{"a allows always", runes("a"), ConfirmChoice{Allow: true, Always: true}},
		{"enter on the first choice", k(KeyEnter), ConfirmChoice{Allow: true}},
		{"down enter", keys(k(KeyDown), k(KeyEnter)), ConfirmChoice{Allow: true, Always: true}},
		{"esc stops the turn", k(KeyEsc), ConfirmChoice{Stop: true}},
		{"ctrl+c stops the turn", ctrlC, ConfirmChoice{Stop: true}},
		{"4 stops the turn", runes("4"), ConfirmChoice{Stop: true}},
		{"up wraps to stop", keys(k(KeyUp), k(KeyEnter)), ConfirmChoice{Stop: true}},
		{"tab three times is stop", keys(k(KeyTab), k(KeyTab), k(KeyTab), k(KeyEnter)), ConfirmChoice{Stop: true}},
		{"n and a reason: the model goes on", keys(runes("nno"), k(KeyEnter)), ConfirmChoice{Reason: "no"}},
		{"n and enter: no reason", keys(runes("n"), k(KeyEnter)), ConfirmChoice{}},
		{"down down enter opens the reason", keys(k(KeyDown), k(KeyDown), k(KeyEnter), runes("x"), k(KeyEnter)), ConfirmChoice{Reason: "x"}},
		{"esc while typing the reason stops", keys(runes("nwait"), k(KeyEsc)), ConfirmChoice{Reason: "wait", Stop: true}},
		{"ctrl+c while typing the reason stops", keys(runes("n"), ctrlC), ConfirmChoice{Stop: true}},
		{"scroll keys decide nothing", keys(k(KeyPageDown), k(KeyPageUp), k(KeyHome), k(KeyEnd), runes("y")), ConfirmChoice{Allow: true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := &Confirm{Tool: "bash", Preview: "$ rm -rf build", Body: "rm -rf build"}
			d.Render(80, 20, ansi.DarkTheme(), ansi.ProfileNone)
			var got ConfirmChoice
			done := false
			for i, key := range tc.keys {
				if got, done = d.HandleKey(key); done {
					if i != len(tc.keys)-1 {
						t.Fatalf("decided %+v after key %d of %d", got, i+1, len(tc.keys))
					}
					break
				}
			}
			if !done || got != tc.want {
				t.Errorf("HandleKey = %+v, %v; want %+v, true", got, done, tc.want)
			}
		})
	}
}

// numbered is a command of n lines, "echo line 1" to "echo line n".
func numbered(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "echo line %d\n", i)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// TestConfirmScroll: a body taller than the dialog shows a window of it
// with a line saying which lines show; PgDn, PgUp, End and Home move the
// window, and End reaches the last line.
func TestConfirmScroll(t *testing.T) {
	d := &Confirm{Tool: "bash", Preview: "$ echo line 1 …", Body: numbered(60), BodyLabel: "command"}
	th := ansi.DarkTheme()
	render := func() string {
		lines, _, _ := d.Render(80, 20, th, ansi.ProfileNone)
		if len(lines) > 20 {
			t.Fatalf("%d rows, want at most 20", len(lines))
		}
		return strings.Join(lines, "\n")
	}
	has := func(s string, n int) bool {
		return strings.Contains(s, fmt.Sprintf("echo line %d │", n)) || strings.Contains(s, fmt.Sprintf("echo line %d ", n))
	}
	steps := []struct {
		key         KeyCode
		first, last int    // lines that must show
		hidden      int    // a line that must not show
		position    string // the scroll line
	}{
		{0, 1, 9, 10, "lines 1–9 of 60 · pgup/pgdn"},
		{KeyPageDown, 10, 18, 9, "lines 10–18 of 60"},
		{KeyPageDown, 19, 27, 18, "lines 19–27 of 60"},
		{KeyPageUp, 10, 18, 19, "lines 10–18 of 60"},
		{KeyEnd, 52, 60, 51, "lines 52–60 of 60"},
		{KeyPageDown, 52, 60, 51, "lines 52–60 of 60"},
		{KeyHome, 1, 9, 10, "lines 1–9 of 60"},
	}
	for _, st := range steps {
		if st.key != 0 {
			d.HandleKey(Key{Code: st.key})
		}
		s := render()
		if !has(s, st.first) || !has(s, st.last) || has(s, st.hidden) || !strings.Contains(s, st.position) || !strings.Contains(s, "command · 60 lines") {
			t.Fatalf("after %v: want lines %d to %d, not %d, and %q:\n%s", Key{Code: st.key}, st.first, st.last, st.hidden, st.position, s)
		}
	}
}

// TestConfirmShowsEveryCharacter: at any width every character of every
// line of the body shows (long lines wrapped, never cut) and every word
// of every choice shows, on rows that fit the width.
func TestConfirmShowsEveryCharacter(t *testing.T) {
	body := "printf '%s\\n' " + strings.Repeat("abcdefghij", 25) + "\n\tcd /tmp && rm -rf important_dir   # the end\nécho 日本語 👍🏽"
	always := "Always allow bash(printf *) in this project"
	for width := 20; width <= 120; width++ {
		d := &Confirm{Tool: "bash", Preview: "$ printf …", Body: body, Always: always, AlwaysShort: "Always bash(printf *)"}
		lines, _, _ := d.Render(width, 200, ansi.DarkTheme(), ansi.ProfileNone)
		var text []string
		var got []string // the body's lines, put back together from their rows
		inBody := false
		for _, l := range lines {
			if w := ansi.StringWidth(l); w > width {
				t.Fatalf("width %d: row %q is %d cells wide", width, l, w)
			}
			r := []rune(l)
			if len(r) < 4 || r[0] != '│' {
				continue
			}
			in := string(r[2 : len(r)-2]) // inside "│ " and " │"
			text = append(text, in)
			switch {
			case strings.HasPrefix(in, "call · 3 lines"):
				inBody = true
			case inBody && strings.TrimSpace(in) == "":
				inBody = false
			case inBody && in[0] != ' ':
				got = append(got, in[2:]) // the gutter: "1 "
			case inBody && len(got) > 0:
				got[len(got)-1] += in[2:]
			}
		}
		all := strings.Join(text, "\n")
		want := strings.Split(body, "\n")
		if len(got) != len(want) {
			t.Fatalf("width %d: the body shows %d lines, want %d:\n%s", width, len(got), len(want), all)
		}
		for i := range want {
			if w := ansi.ExpandTabs(want[i]); strings.TrimRight(got[i], " ") != w {
				t.Fatalf("width %d: line %d shows as %q, want %q:\n%s", width, i+1, got[i], w, all)
			}
		}
		var plain []string // the rows without the keys of the choices
		for _, l := range text {
			l = strings.TrimRight(l, " ")
			for _, key := range []string{" y", " a", " n", " esc"} {
				if strings.HasSuffix(l, key) {
					l = strings.TrimSuffix(l, key)
					break
				}
			}
			plain = append(plain, l)
		}
		squeezed := strings.Join(strings.Fields(strings.Join(plain, " ")), "")
		labels := []string{"Allow once", always, "No, tell the model why…", "No, and stop the turn"}
		if width-4 < narrowConfirm {
			labels = []string{"Yes", "Always bash(printf *)", "No, say why", "Stop turn"}
		}
		for _, label := range labels {
			if !strings.Contains(squeezed, strings.Join(strings.Fields(label), "")) {
				t.Fatalf("width %d: the choices lack %q:\n%s", width, label, all)
			}
		}
	}
}

// TestConfirmLongRule: a rule too long for the choices (a whole script)
// keeps its head and its tail, and every choice shows.
func TestConfirmLongRule(t *testing.T) {
	rule := "bash(" + numbered(60) + " *)"
	for _, width := range []int{20, 44, 80, 120} {
		d := &Confirm{Tool: "bash", Body: numbered(60), Always: "Always allow " + rule + " in this project", AlwaysShort: "Always " + rule}
		lines, _, _ := d.Render(width, 30, ansi.DarkTheme(), ansi.ProfileNone)
		s := strings.Join(lines, "\n")
		wants := []string{"…", "60 *)", "y │", "a │", "n │", "esc │"}
		if width >= 44 {
			wants = append(wants, "⏎", "echo line 60 *)")
		}
		for _, want := range wants {
			if !strings.Contains(s, want) {
				t.Errorf("width %d: the dialog lacks %q:\n%s", width, want, s)
			}
		}
		if strings.Contains(s, "… +") {
			t.Errorf("width %d: the box cut the choices:\n%s", width, s)
		}
	}
}

// TestConfirmRender: the dialog at several widths and heights, in golden
// files: a 12-line command, a 60-line one, a long single line, JSON
// arguments, an edit's diff, and the reason being typed.
func TestConfirmRender(t *testing.T) {
	long := "curl -fsSL https://example.com/install.sh -o /tmp/install.sh && sh /tmp/install.sh --prefix=/usr/local --with-everything --yes"
	tests := []struct {
		name string
		d    func() *Confirm
		keys []Key
	}{
		{"twelve", func() *Confirm {
			return &Confirm{Tool: "bash", Preview: "$ echo line 1 …", Body: numbered(11) + "\nrm -rf important_dir", BodyLabel: "command", Always: "Always allow bash(echo *) in this project"}
		}, nil},
		{"sixty", func() *Confirm {
			return &Confirm{Tool: "bash", Preview: "$ echo line 1 …", Body: numbered(60), BodyLabel: "command"}
		}, nil},
		{"sixty_end", func() *Confirm {
			return &Confirm{Tool: "bash", Preview: "$ echo line 1 …", Body: numbered(60), BodyLabel: "command"}
		}, []Key{{Code: KeyEnd}}},
		{"long_line", func() *Confirm {
			return &Confirm{Tool: "bash", Preview: "$ " + long, Body: long, BodyLabel: "command", Always: "Always allow bash(curl -fsSL https://example.com/install.sh *) in this project"}
		}, nil},
		{"json", func() *Confirm {
			return &Confirm{Tool: "deploy", Preview: `deploy {"target":"prod","replicas":3}`, Body: "{\n  \"target\": \"prod\",\n  \"replicas\": 3\n}", BodyLabel: "arguments"}
		}, nil},
		{"diff", func() *Confirm {
			return &Confirm{Tool: "edit", Preview: "edit main.go (1 edit)", Diff: &ToolDiff{Old: "package main\n\nfunc main() {\n\tprintln(\"hi\")\n}\n", New: "package main\n\nfunc main() {\n\tprintln(\"hello\")\n}\n"}, Always: "Always allow edit(main.go) in this project"}
		}, nil},
		{"reason", func() *Confirm {
			return &Confirm{Tool: "bash", Preview: "$ make deploy", Body: "make deploy", BodyLabel: "command"}
		}, runes("nuse the staging target")},
	}
	sizes := [][2]int{{80, 24}, {80, 12}, {40, 20}, {20, 16}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out strings.Builder
			for _, sz := range sizes {
				d := tc.d()
				d.Render(sz[0], sz[1], ansi.DarkTheme(), ansi.ProfileNone)
				for _, k := range tc.keys {
					d.HandleKey(k)
				}
				lines, row, col := d.Render(sz[0], sz[1], ansi.DarkTheme(), ansi.ProfileNone)
				fmt.Fprintf(&out, "-- %dx%d (cursor %d,%d)\n", sz[0], sz[1], row, col)
				for _, l := range lines {
					if w := ansi.StringWidth(l); w > sz[0] {
						t.Errorf("%dx%d: row %q is %d cells wide", sz[0], sz[1], l, w)
					}
					out.WriteString(l + "\n")
				}
				if len(lines) > sz[1] {
					t.Errorf("%dx%d: %d rows", sz[0], sz[1], len(lines))
				}
				if s := strings.Join(lines, "\n"); !strings.Contains(s, "y │") || !strings.Contains(s, "esc │") || strings.Contains(s, "… +") {
					t.Errorf("%dx%d: the choices do not show:\n%s", sz[0], sz[1], s)
				}
			}
			goldenFile(t, "confirm/"+tc.name+".txt", out.String())
		})
	}
}

// FuzzConfirmRender: any call, at any size, after any scrolling renders
// without a panic and no row wider than the dialog.
func FuzzConfirmRender(f *testing.F) {
	f.Add("$ ls", "ls\n\tpwd\x1b[2J", "Always allow bash(ls *) in this project", 80, 24, 3)
	f.Add("", strings.Repeat("日本語👍🏽", 40), "", 20, 5, 9)
	f.Add("x", "", "\n\n", 6, 1, 0)
	f.Fuzz(func(t *testing.T, preview, body, always string, width, rows, scroll int) {
		if width < 1 || width > 300 || rows < 1 || rows > 200 || scroll < 0 || scroll > 50 || len(body) > 2000 || len(preview) > 2000 || len(always) > 2000 {
			return
		}
		d := &Confirm{Tool: "bash", Preview: preview, Body: body, Always: always}
		if len(body)%2 == 1 {
			d.Diff = &ToolDiff{Old: body, New: preview}
		}
		keys := []KeyCode{KeyPageDown, KeyEnd, KeyPageUp, KeyHome, KeyDown}
		for i := 0; i <= scroll; i++ {
			lines, _, _ := d.Render(width, rows, ansi.DarkTheme(), ansi.ProfileTrueColor)
			for _, l := range lines {
				if w := ansi.StringWidth(l); w > width {
					t.Fatalf("row %q is %d cells wide, the dialog %d", l, w, width)
				}
			}
			d.HandleKey(Key{Code: keys[i%len(keys)]})
		}
	})
}
