package vt

import (
	"fmt"
	"strconv"
	"strings"
)

// escape interprets the escape sequence at the start of b and returns its
// length, or 0 when b ends before the sequence does.
func (t *Terminal) escape(b []byte) int {
	if len(b) < 2 {
		return 0
	}
	t.last = nil
	switch b[1] {
	case '[':
		for i := 2; i < len(b); i++ {
			c := b[i]
			if c >= 0x40 && c <= 0x7e {
				t.csi(string(b[2:i]), c)
				return i + 1
			}
			if c < 0x20 || c > 0x7e {
				t.Unknown = append(t.Unknown, string(b[:i]))
				return i
			}
		}
		return 0
	case ']', 'P', '_', '^', 'X':
		for i := 2; i < len(b); i++ {
			end := 0
			switch {
			case b[i] == 0x07 && b[1] == ']':
				end = i + 1
			case b[i] == 0x1b && i+1 < len(b) && b[i+1] == '\\':
				end = i + 2
			case b[i] == 0x1b && i+1 == len(b):
				return 0
			}
			if end > 0 {
				if b[1] == ']' {
					t.osc(string(b[2:i]), string(b[:end]))
				} else {
					t.Unknown = append(t.Unknown, string(b[:end]))
				}
				return end
			}
		}
		return 0
	case '7':
		t.savedX, t.savedY = t.cx, t.cy
		return 2
	case '8':
		t.cx, t.cy, t.pendingWrap = t.savedX, t.savedY, false
		return 2
	case 'M': // reverse index
		if t.cy > 0 {
			t.cy--
		} else {
			copy(t.rows[1:], t.rows[:t.height-1])
			t.rows[0] = t.blankRow()
		}
		return 2
	case 'c':
		*t = *New(t.width, t.height)
		return 2
	}
	if b[1] >= 0x20 && b[1] <= 0x2f {
		if len(b) < 3 {
			return 0
		}
		t.Unknown = append(t.Unknown, string(b[:3]))
		return 3
	}
	t.Unknown = append(t.Unknown, string(b[:2]))
	return 2
}

// params parses "1;2;3" with empty parameters as -1.
func params(s string) []int {
	if s == "" {
		return nil
	}
	var out []int
	for _, p := range strings.Split(s, ";") {
		main, _, _ := strings.Cut(p, ":")
		v, err := strconv.Atoi(main)
		if err != nil {
			v = -1
		}
		out = append(out, v)
	}
	return out
}

// arg returns parameter i, or def when it is missing, empty or zero.
func arg(ps []int, i, def int) int {
	if i >= len(ps) || ps[i] <= 0 {
		return def
	}
	return ps[i]
}

func (t *Terminal) csi(body string, final byte) {
	raw := "\x1b[" + body + string(final)
	prefix := byte(0)
	if body != "" && body[0] >= '<' && body[0] <= '?' {
		prefix, body = body[0], body[1:]
	}
	inter := ""
	if i := strings.IndexFunc(body, func(r rune) bool { return r >= 0x20 && r <= 0x2f }); i >= 0 {
		body, inter = body[:i], body[i:]
	}
	ps := params(body)
	switch {
	case prefix == '?' && inter == "" && (final == 'h' || final == 'l'):
		for _, p := range ps {
			t.setMode(p, final == 'h')
		}
		return
	case prefix == '?' && inter == "$" && final == 'p':
		v := 0
		switch {
		case knownModes[arg(ps, 0, 0)] && t.Modes[arg(ps, 0, 0)]:
			v = 1
		case knownModes[arg(ps, 0, 0)]:
			v = 2
		}
		t.respond(fmt.Sprintf("\x1b[?%d;%d$y", arg(ps, 0, 0), v))
		return
	case prefix == '>' && final == 'u':
		t.KittyFlags = append(t.KittyFlags, arg(ps, 0, 0))
		return
	case prefix == '<' && final == 'u':
		n := min(arg(ps, 0, 1), len(t.KittyFlags))
		t.KittyFlags = t.KittyFlags[:len(t.KittyFlags)-n]
		return
	case prefix == '?' && final == 'u':
		f := 0
		if len(t.KittyFlags) > 0 {
			f = t.KittyFlags[len(t.KittyFlags)-1]
		}
		t.respond(fmt.Sprintf("\x1b[?%du", f))
		return
	case prefix == '>' && final == 'm':
		if arg(ps, 0, 0) == 4 {
			t.ModifyOtherKeys = max(0, arg(ps, 1, 0))
		}
		return
	case prefix == 0 && inter == "" && final == 'c':
		t.respond("\x1b[?62;22c")
		return
	case prefix != 0 || inter != "":
		t.Unknown = append(t.Unknown, raw)
		return
	}
	t.pendingWrapReset(final)
	switch final {
	case 'A':
		t.cy = max(t.cy-arg(ps, 0, 1), 0)
	case 'B':
		t.cy = min(t.cy+arg(ps, 0, 1), t.height-1)
	case 'C':
		t.cx = min(t.cx+arg(ps, 0, 1), t.width-1)
	case 'D':
		t.cx = max(t.cx-arg(ps, 0, 1), 0)
	case 'E':
		t.cy, t.cx = min(t.cy+arg(ps, 0, 1), t.height-1), 0
	case 'F':
		t.cy, t.cx = max(t.cy-arg(ps, 0, 1), 0), 0
	case 'G', '`':
		t.cx = min(arg(ps, 0, 1), t.width) - 1
	case 'd':
		t.cy = min(arg(ps, 0, 1), t.height) - 1
	case 'H', 'f':
		t.cy = min(arg(ps, 0, 1), t.height) - 1
		t.cx = min(arg(ps, 1, 1), t.width) - 1
	case 'J':
		t.eraseDisplay(max(0, arg(ps, 0, 0)))
	case 'K':
		switch max(0, arg(ps, 0, 0)) {
		case 0:
			t.erase(t.cy, t.cx, t.width)
		case 1:
			t.erase(t.cy, 0, t.cx+1)
		case 2:
			t.erase(t.cy, 0, t.width)
		}
	case 'X':
		t.erase(t.cy, t.cx, t.cx+arg(ps, 0, 1))
	case 'S':
		t.scrollUp(arg(ps, 0, 1))
	case 'L':
		t.insertLines(arg(ps, 0, 1))
	case 'M':
		t.deleteLines(arg(ps, 0, 1))
	case 'm':
		t.sgr(body)
	case 'n':
		if arg(ps, 0, 0) == 6 {
			t.respond(fmt.Sprintf("\x1b[%d;%dR", t.cy+1, t.cx+1))
		}
	case 's':
		t.savedX, t.savedY = t.cx, t.cy
	case 'u':
		t.cx, t.cy = t.savedX, t.savedY
	default:
		t.Unknown = append(t.Unknown, raw)
	}
}

// pendingWrapReset clears the pending-wrap state for every sequence except
// SGR, which xterm lets through without losing it.
func (t *Terminal) pendingWrapReset(final byte) {
	if final != 'm' {
		t.pendingWrap = false
	}
}

// knownModes are the private modes DECRQM reports as recognised.
var knownModes = map[int]bool{7: true, 25: true, 1004: true, 2004: true, 2026: true}

func (t *Terminal) setMode(m int, on bool) {
	switch m {
	case 25:
		t.CursorVisible = on
	case 7:
		t.autowrap = on
	case 2026:
		if t.Modes[2026] && !on {
			t.SyncFrames++
		}
	}
	t.Modes[m] = on
}

func (t *Terminal) respond(s string) {
	if t.Respond != nil {
		t.Respond(s)
	}
}

func (t *Terminal) eraseDisplay(mode int) {
	switch mode {
	case 0:
		t.erase(t.cy, t.cx, t.width)
		for y := t.cy + 1; y < t.height; y++ {
			t.erase(y, 0, t.width)
			t.rows[y].wrapped = false
		}
		t.rows[t.cy].wrapped = false
	case 1:
		for y := 0; y < t.cy; y++ {
			t.erase(y, 0, t.width)
		}
		t.erase(t.cy, 0, t.cx+1)
	case 2:
		for y := 0; y < t.height; y++ {
			t.erase(y, 0, t.width)
			t.rows[y].wrapped = false
		}
	case 3:
		t.scrollback = nil
	}
}

func (t *Terminal) osc(body, raw string) {
	code, rest, _ := strings.Cut(body, ";")
	switch code {
	case "0", "2":
		t.Title = rest
	case "8":
		_, uri, _ := strings.Cut(rest, ";")
		t.pen.Link = uri
	case "11":
		if rest == "?" {
			bg := t.Background
			if bg == "" {
				bg = "rgb:0000/0000/0000"
			}
			t.respond("\x1b]11;" + bg + "\x1b\\")
			return
		}
		t.Unknown = append(t.Unknown, raw)
	default:
		t.Unknown = append(t.Unknown, raw)
	}
}

// sgr applies Select Graphic Rendition parameters to the pen.
func (t *Terminal) sgr(body string) {
	if body == "" {
		body = "0"
	}
	ps := strings.Split(body, ";")
	for i := 0; i < len(ps); i++ {
		p := ps[i]
		code, sub, hasSub := strings.Cut(p, ":")
		n, err := strconv.Atoi(code)
		if code == "" {
			n, err = 0, nil
		}
		if err != nil {
			t.Unknown = append(t.Unknown, "\x1b["+body+"m")
			return
		}
		switch {
		case n == 0:
			t.pen = Style{Link: t.pen.Link}
		case n == 1:
			t.pen.Bold = true
		case n == 2:
			t.pen.Dim = true
		case n == 3:
			t.pen.Italic = true
		case n == 4:
			t.pen.Underline = !(hasSub && sub == "0")
		case n == 5 || n == 6:
			t.pen.Blink = true
		case n == 7:
			t.pen.Reverse = true
		case n == 8:
			t.pen.Hidden = true
		case n == 9:
			t.pen.Strike = true
		case n == 21:
			t.pen.Underline = true
		case n == 22:
			t.pen.Bold, t.pen.Dim = false, false
		case n == 23:
			t.pen.Italic = false
		case n == 24:
			t.pen.Underline = false
		case n == 25:
			t.pen.Blink = false
		case n == 27:
			t.pen.Reverse = false
		case n == 28:
			t.pen.Hidden = false
		case n == 29:
			t.pen.Strike = false
		case n >= 30 && n <= 37:
			t.pen.FG = strconv.Itoa(n - 30)
		case n >= 90 && n <= 97:
			t.pen.FG = strconv.Itoa(n - 90 + 8)
		case n == 39:
			t.pen.FG = ""
		case n >= 40 && n <= 47:
			t.pen.BG = strconv.Itoa(n - 40)
		case n >= 100 && n <= 107:
			t.pen.BG = strconv.Itoa(n - 100 + 8)
		case n == 49:
			t.pen.BG = ""
		case n == 38 || n == 48 || n == 58:
			var c string
			if hasSub {
				c = extColor(strings.Split(sub, ":"))
			} else {
				k := len(ps) - i - 1
				switch {
				case k >= 2 && ps[i+1] == "5":
					c = extColor(ps[i+1 : i+3])
					i += 2
				case k >= 4 && ps[i+1] == "2":
					c = extColor(ps[i+1 : i+5])
					i += 4
				default:
					i = len(ps)
				}
			}
			switch n {
			case 38:
				t.pen.FG = c
			case 48:
				t.pen.BG = c
			}
		case n == 53 || n == 55 || n == 59:
		default:
			t.Unknown = append(t.Unknown, "\x1b["+body+"m")
		}
	}
}

// extColor reads "5;n" or "2;r;g;b" (also the colon form, where RGB may
// carry an empty colour-space id).
func extColor(ps []string) string {
	if len(ps) == 0 {
		return ""
	}
	num := func(s string) int { v, _ := strconv.Atoi(s); return v }
	switch ps[0] {
	case "5":
		if len(ps) >= 2 {
			return "p" + strconv.Itoa(num(ps[1]))
		}
	case "2":
		rgb := ps[1:]
		if len(rgb) == 4 {
			rgb = rgb[1:]
		}
		if len(rgb) >= 3 {
			return fmt.Sprintf("#%02x%02x%02x", num(rgb[0]), num(rgb[1]), num(rgb[2]))
		}
	}
	return ""
}

// insertLines inserts n blank rows at the cursor row, pushing the rows
// below down and off the bottom; the cursor goes to column 0.
func (t *Terminal) insertLines(n int) {
	n = min(n, t.height-t.cy)
	copy(t.rows[t.cy+n:], t.rows[t.cy:t.height-n])
	for y := t.cy; y < t.cy+n; y++ {
		t.rows[y] = t.blankRow()
	}
	t.cx = 0
}

// deleteLines deletes n rows at the cursor row, pulling the rows below up
// and adding blank rows at the bottom; the cursor goes to column 0.
func (t *Terminal) deleteLines(n int) {
	n = min(n, t.height-t.cy)
	copy(t.rows[t.cy:], t.rows[t.cy+n:])
	for y := t.height - n; y < t.height; y++ {
		t.rows[y] = t.blankRow()
	}
	t.cx = 0
}
