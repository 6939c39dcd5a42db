// Package styletest helps the tests of the terminal renderer read styled
// output: a theme that gives every role its own colour, and Annotate,
// which turns the escape sequences of a line rendered with it back into
// role names.
package styletest

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/zut-go/zut/tui/ansi"
)

// Theme gives every role its own xterm-256 colour so that styled
// output can be read back as role names.
func Theme() *ansi.Theme {
	t := &ansi.Theme{Name: "test", Dark: true, Spinner: ansi.Spinner{Frames: []string{"-", "\\", "|", "/"}}}
	for _, r := range ansi.Roles() {
		t.SetColor(r, ansi.Color{Kind: ansi.Color256, Value: uint32(16 + int(r))})
	}
	return t
}

// Annotate rewrites the escape sequences of a line rendered with
// Theme under ProfileANSI256 as readable markers: «bold fg=md_heading»
// for a style, «» for the reset, «link https://...» and «/link».
func Annotate(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		if s[i] != 0x1b {
			b.WriteByte(s[i])
			i++
			continue
		}
		n := ansi.EscapeLen(s[i:])
		seq := s[i : i+n]
		i += n
		switch {
		case strings.HasPrefix(seq, "\x1b]8;;"):
			url := strings.TrimSuffix(strings.TrimPrefix(seq, "\x1b]8;;"), "\x1b\\")
			if url == "" {
				b.WriteString("«/link»")
			} else {
				b.WriteString("«link " + url + "»")
			}
		case strings.HasPrefix(seq, "\x1b[") && strings.HasSuffix(seq, "m"):
			b.WriteString("«" + describeSGR(seq[2:len(seq)-1]) + "»")
		default:
			fmt.Fprintf(&b, "«esc %q»", seq)
		}
	}
	return b.String()
}

func describeSGR(params string) string {
	ps := strings.Split(params, ";")
	var out []string
	names := map[string]string{"1": "bold", "2": "dim", "3": "italic", "4": "underline", "7": "reverse", "9": "strike"}
	for i := 0; i < len(ps); i++ {
		p := ps[i]
		switch {
		case p == "0" || p == "":
		case names[p] != "":
			out = append(out, names[p])
		case (p == "38" || p == "48") && i+2 < len(ps) && ps[i+1] == "5":
			idx, _ := strconv.Atoi(ps[i+2])
			name := "256:" + ps[i+2]
			if r := idx - 16; r >= 0 && r < len(ansi.Roles()) {
				name = ansi.Role(r).String()
			}
			if p == "38" {
				out = append(out, "fg="+name)
			} else {
				out = append(out, "bg="+name)
			}
			i += 2
		default:
			out = append(out, "?"+p)
		}
	}
	return strings.Join(out, " ")
}

// JoinLines joins lines, each ending in "|" to show its trailing spaces.
func JoinLines(lines []string) string {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(l)
		b.WriteString("|\n")
	}
	return b.String()
}

// MapLines applies f to every line.
func MapLines(lines []string, f func(string) string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = f(l)
	}
	return out
}
