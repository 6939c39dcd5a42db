package tui

import (
	"strconv"
	"strings"
)

// Profile is the colour capability of the output terminal.
type Profile int

const (
	ProfileNone      Profile = iota // no colour and no attributes (NO_COLOR, TERM=dumb, not a TTY)
	ProfileANSI                     // 16 colours
	ProfileANSI256                  // xterm 256 colours
	ProfileTrueColor                // 24-bit RGB
)

// Color is a terminal colour: the zero value is the terminal default.
// Kind says how to read Value: an ANSI index 0-15, an xterm-256 index, or
// 0xRRGGBB.
type Color struct {
	Kind  ColorKind
	Value uint32
}

// ColorKind says how a Color is encoded.
type ColorKind uint8

const (
	ColorDefault ColorKind = iota
	ColorANSI
	Color256
	ColorRGB
)

// RGB returns a 24-bit colour.
func RGB(r, g, b uint8) Color {
	return Color{Kind: ColorRGB, Value: uint32(r)<<16 | uint32(g)<<8 | uint32(b)}
}

// Style is a set of SGR attributes.
type Style struct {
	FG, BG                                        Color
	Bold, Dim, Italic, Underline, Reverse, Strike bool
}

// IsZero reports whether s changes nothing.
func (s Style) IsZero() bool { return s == Style{} }

// SGR returns the escape sequence that turns s on under profile p, or "" when
// there is nothing to emit.
func (s Style) SGR(p Profile) string {
	if p == ProfileNone || s.IsZero() {
		return ""
	}
	var params []string
	add := func(on bool, code string) {
		if on {
			params = append(params, code)
		}
	}
	add(s.Bold, "1")
	add(s.Dim, "2")
	add(s.Italic, "3")
	add(s.Underline, "4")
	add(s.Reverse, "7")
	add(s.Strike, "9")
	if c := colorParams(s.FG, p, false); c != "" {
		params = append(params, c)
	}
	if c := colorParams(s.BG, p, true); c != "" {
		params = append(params, c)
	}
	if len(params) == 0 {
		return ""
	}
	return "\x1b[" + strings.Join(params, ";") + "m"
}

// Render wraps text in s's SGR sequence and a reset.
func (s Style) Render(p Profile, text string) string {
	on := s.SGR(p)
	if on == "" || text == "" {
		return text
	}
	return on + text + "\x1b[0m"
}

func colorParams(c Color, p Profile, bg bool) string {
	c = downgrade(c, p)
	base := 30
	if bg {
		base = 40
	}
	switch c.Kind {
	case ColorANSI:
		if c.Value < 8 {
			return strconv.Itoa(base + int(c.Value))
		}
		return strconv.Itoa(base + 60 + int(c.Value-8))
	case Color256:
		return strconv.Itoa(base+8) + ";5;" + strconv.Itoa(int(c.Value))
	case ColorRGB:
		return strconv.Itoa(base+8) + ";2;" + strconv.Itoa(int(c.Value>>16&0xff)) + ";" +
			strconv.Itoa(int(c.Value>>8&0xff)) + ";" + strconv.Itoa(int(c.Value&0xff))
	}
	return ""
}

// downgrade maps c to the nearest colour profile p can show.
func downgrade(c Color, p Profile) Color {
	switch {
	case p == ProfileNone:
		return Color{}
	case c.Kind == ColorRGB && p < ProfileTrueColor:
		c = Color{Kind: Color256, Value: uint32(rgbTo256(c.Value))}
		fallthrough
	case c.Kind == Color256 && p < ProfileANSI256:
		if c.Kind == Color256 {
			c = Color{Kind: ColorANSI, Value: uint32(xterm256ToANSI(uint8(c.Value)))}
		}
	}
	return c
}

// rgbTo256 picks the nearest xterm-256 colour from the 6x6x6 cube or the
// grey ramp.
func rgbTo256(v uint32) uint8 {
	r, g, b := int(v>>16&0xff), int(v>>8&0xff), int(v&0xff)
	cube := func(x int) int {
		if x < 48 {
			return 0
		}
		if x < 115 {
			return 1
		}
		return (x - 35) / 40
	}
	levels := [6]int{0, 95, 135, 175, 215, 255}
	ci, cj, ck := cube(r), cube(g), cube(b)
	cr, cg, cb := levels[ci], levels[cj], levels[ck]
	avg := (r + g + b) / 3
	gi := 23
	if avg < 238 {
		gi = (avg - 3) / 10
		if gi < 0 {
			gi = 0
		}
	}
	gv := 8 + 10*gi
	d := func(x, y, z int) int { return (r-x)*(r-x) + (g-y)*(g-y) + (b-z)*(b-z) }
	if d(gv, gv, gv) < d(cr, cg, cb) {
		return uint8(232 + gi)
	}
	return uint8(16 + 36*ci + 6*cj + ck)
}

// xterm256ToANSI maps an xterm-256 index to one of the 16 ANSI colours.
func xterm256ToANSI(i uint8) uint8 {
	if i < 16 {
		return i
	}
	var r, g, b int
	if i >= 232 {
		v := 8 + 10*int(i-232)
		r, g, b = v, v, v
	} else {
		levels := [6]int{0, 95, 135, 175, 215, 255}
		j := int(i - 16)
		r, g, b = levels[j/36], levels[j/6%6], levels[j%6]
	}
	bright := 0
	if r > 191 || g > 191 || b > 191 || (r+g+b) > 500 {
		bright = 8
	}
	idx := 0
	if r > 95 {
		idx |= 1
	}
	if g > 95 {
		idx |= 2
	}
	if b > 95 {
		idx |= 4
	}
	if idx == 0 && (r+g+b) > 200 {
		idx = 7
		bright = 0
	}
	return uint8(idx + bright)
}
