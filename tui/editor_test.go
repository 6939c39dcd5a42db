package tui

import (
	"fmt"
	"github.com/zut-go/zut/tui/ansi"
	"github.com/zut-go/zut/tui/internal/txtar"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// fields splits a script line into words and Go-quoted strings.
func scriptFields(t *testing.T, line string) []string {
	var out []string
	for line = strings.TrimSpace(line); line != ""; line = strings.TrimSpace(line) {
		if line[0] == '"' {
			q, err := strconv.QuotedPrefix(line)
			if err != nil {
				t.Fatalf("bad quoted string in %q", line)
			}
			s, _ := strconv.Unquote(q)
			out = append(out, "\x00"+s)
			line = line[len(q):]
			continue
		}
		w, rest, _ := strings.Cut(line, " ")
		out = append(out, w)
		line = rest
	}
	return out
}

func scriptString(t *testing.T, w string) string {
	if !strings.HasPrefix(w, "\x00") {
		t.Fatalf("want a quoted string, got %q", w)
	}
	return w[1:]
}

// runEditorScript interprets a key script and returns the log to compare
// with the golden "want" file.
//
//	width N           render width (default 20)
//	type "text"       type each character
//	KEYNAME ...       any other word is a key in ParseKey form
//	paste "text"      a bracketed paste
//	insert "text"     Editor.Insert
//	set "text"        Editor.SetText
//	history "a" ...   attach a History holding these entries
//	commands a b ...  attach a CommandCompleter with these names
//	placeholder "p"   set the placeholder
//	render            log the rendered editor and cursor
//	value             log Text and Value
//
// Keys answered EditSubmit log the submitted value; EditIgnored is logged.
func runEditorScript(t *testing.T, script string) string {
	e := &Editor{}
	width := 20
	var log strings.Builder
	for n, line := range strings.Split(script, "\n") {
		if i := strings.Index(line, "#"); i >= 0 && !strings.Contains(line[:i], "\"") {
			line = line[:i]
		}
		f := scriptFields(t, line)
		if len(f) == 0 {
			continue
		}
		switch f[0] {
		case "width":
			width, _ = strconv.Atoi(f[1])
		case "type":
			for _, r := range scriptString(t, f[1]) {
				e.HandleKey(Key{Code: KeyRune, Rune: r})
			}
		case "paste":
			e.Paste(scriptString(t, f[1]))
		case "insert":
			e.Insert(scriptString(t, f[1]))
		case "set":
			e.SetText(scriptString(t, f[1]))
		case "placeholder":
			e.Placeholder = scriptString(t, f[1])
		case "history":
			h, _ := OpenHistory("", 0)
			for _, w := range f[1:] {
				h.Add(scriptString(t, w))
			}
			e.History = h
		case "commands":
			var cmds []Command
			for _, w := range f[1:] {
				cmds = append(cmds, Command{Name: w, Description: "the " + w + " command"})
			}
			e.Completer = &CommandCompleter{Commands: cmds}
		case "render":
			lines, row, col := e.Render(width)
			fmt.Fprintf(&log, "render (line %d):\n", n+1)
			for _, l := range lines {
				fmt.Fprintf(&log, "  |%s|\n", ansi.PadRight(l, width))
			}
			fmt.Fprintf(&log, "  cursor %d,%d\n", row, col)
			if m := e.Menu(); m != nil {
				for _, l := range m.Render(width, 5, func(s string) string { return ">" + s }) {
					fmt.Fprintf(&log, "  menu %s\n", l)
				}
			}
		case "value":
			fmt.Fprintf(&log, "text %q value %q\n", e.Text(), e.Value())
		default:
			for _, w := range f {
				k, err := ParseKey(w)
				if err != nil {
					t.Fatalf("line %d: %v", n+1, err)
				}
				switch e.HandleKey(k) {
				case EditSubmit:
					v, _ := e.Submit()
					fmt.Fprintf(&log, "submit %q (line %d)\n", v, n+1)
				case EditIgnored:
					fmt.Fprintf(&log, "ignored %s (line %d)\n", w, n+1)
				}
			}
		}
	}
	return log.String()
}

// TestEditorScripts runs testdata/editor/*.txtar: each has a "keys" script
// and a "want" log, rewritten by -update.
func TestEditorScripts(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join("testdata", "editor", "*.txtar"))
	if len(paths) == 0 {
		t.Fatal("no editor scripts")
	}
	for _, p := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(p), ".txtar"), func(t *testing.T) {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			a := txtar.Parse(string(b))
			want := a.Data("want")
			got := runEditorScript(t, a.Data("keys"))
			if *update {
				a.Set("want", got)
				if err := os.WriteFile(p, []byte(a.Format()), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if got != want {
				t.Errorf("%s: got\n%s\nwant\n%s", p, got, want)
			}
		})
	}
}
