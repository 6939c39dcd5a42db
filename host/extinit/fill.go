package extinit

import (
	"fmt"
	"strings"
)

// The scaffold templates use a small language of their own, a subset of
// text/template's syntax that zut fills by plain substitution (the
// template package would keep every exported method of the binary for
// its reflection, which costs size and start-up):
//
//	{{.Name}}                        a field of data
//	{{if .Tool}} … {{end}}           a boolean field
//	{{if eq .Lang "go"}} … {{else if .Panel}} … {{else}} … {{end}}
//	{{- …}}                          also removes the white space before it
//
// Conditions nest; anything else is an error naming the template and
// the offset.

// fill expands the template src with d.
func fill(name, src string, d data) (string, error) {
	var b strings.Builder
	p := &filler{name: name, src: src, d: d}
	if err := p.block(&b, true, 0); err != nil {
		return "", err
	}
	if p.pos < len(src) {
		return "", p.errorf("%s without a matching {{if}}", p.last)
	}
	return b.String(), nil
}

// filler walks a template once; emit says whether the current branch is
// written.
type filler struct {
	name string
	src  string
	pos  int
	d    data
	last string // the action that ended the last block: "end", "else", "else if …"
}

func (p *filler) errorf(format string, args ...any) error {
	return fmt.Errorf("template %s, offset %d: %s", p.name, p.pos, fmt.Sprintf(format, args...))
}

// block writes text and actions until an {{end}} or {{else…}} at this
// depth (left in p.last) or the end of the template.
func (p *filler) block(b *strings.Builder, emit bool, depth int) error {
	for {
		i := strings.Index(p.src[p.pos:], "{{")
		if i < 0 {
			if depth > 0 {
				return p.errorf("{{if}} without {{end}}")
			}
			if emit {
				b.WriteString(p.src[p.pos:])
			}
			p.pos = len(p.src)
			return nil
		}
		text := p.src[p.pos : p.pos+i]
		j := strings.Index(p.src[p.pos+i:], "}}")
		if j < 0 {
			return p.errorf("{{ without }}")
		}
		action := p.src[p.pos+i+2 : p.pos+i+j]
		if strings.HasPrefix(action, "-") {
			text = strings.TrimRight(text, " \t\r\n")
			action = action[1:]
		}
		action = strings.TrimSpace(action)
		if emit {
			b.WriteString(text)
		}
		p.pos += i + j + 2
		switch {
		case action == "end" || action == "else" || strings.HasPrefix(action, "else if "):
			if depth == 0 {
				p.last = "{{" + action + "}}"
				return p.errorf("{{%s}} without a matching {{if}}", action)
			}
			p.last = action
			return nil
		case strings.HasPrefix(action, "if "):
			if err := p.ifChain(b, emit, strings.TrimPrefix(action, "if "), depth); err != nil {
				return err
			}
		case strings.HasPrefix(action, "."):
			v, err := p.text(action[1:])
			if err != nil {
				return err
			}
			if emit {
				b.WriteString(v)
			}
		default:
			return p.errorf("unknown action {{%s}}", action)
		}
	}
}

// ifChain writes the first branch whose condition holds, of an {{if}}
// whose condition is cond, up to its {{end}}.
func (p *filler) ifChain(b *strings.Builder, emit bool, cond string, depth int) error {
	taken := false
	for {
		ok, err := p.cond(cond)
		if err != nil {
			return err
		}
		run := emit && !taken && ok
		taken = taken || ok
		if err := p.block(b, run, depth+1); err != nil {
			return err
		}
		switch {
		case p.last == "end":
			return nil
		case p.last == "else":
			if err := p.block(b, emit && !taken, depth+1); err != nil {
				return err
			}
			if p.last != "end" {
				return p.errorf("{{%s}} after {{else}}", p.last)
			}
			return nil
		default: // else if COND
			cond = strings.TrimPrefix(p.last, "else if ")
		}
	}
}

// cond evaluates ".Field" (a boolean) or `eq .Field "value"`.
func (p *filler) cond(c string) (bool, error) {
	if rest, ok := strings.CutPrefix(c, "eq "); ok {
		field, lit, ok := strings.Cut(strings.TrimSpace(rest), " ")
		lit = strings.TrimSpace(lit)
		if !ok || !strings.HasPrefix(field, ".") || len(lit) < 2 || lit[0] != '"' || lit[len(lit)-1] != '"' {
			return false, p.errorf("cannot read the condition %q: want eq .Field \"value\"", c)
		}
		v, err := p.text(field[1:])
		return v == lit[1:len(lit)-1], err
	}
	if !strings.HasPrefix(c, ".") {
		return false, p.errorf("cannot read the condition %q", c)
	}
	switch c[1:] {
	case "Command":
		return p.d.Command, nil
	case "Tool":
		return p.d.Tool, nil
	case "Panel":
		return p.d.Panel, nil
	}
	return false, p.errorf("no boolean field %s", c)
}

// text is the value of a string field of data.
func (p *filler) text(field string) (string, error) {
	switch field {
	case "Name":
		return p.d.Name, nil
	case "ToolName":
		return p.d.ToolName, nil
	case "PanelCommand":
		return p.d.PanelCommand, nil
	case "Lang":
		return p.d.Lang, nil
	case "LangText":
		return p.d.LangText, nil
	}
	return "", p.errorf("no text field %s", field)
}
