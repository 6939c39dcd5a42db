package ansi

import (
	"fmt"
	"strconv"
	"strings"
)

// Profile is the colour capability of the output terminal.
//
// ProfileNone emits no escape sequences at all; it is for output that is
// not a terminal and for TERM=dumb. ProfileMono is for NO_COLOR: colours are
// dropped but bold, dim, italic, underline, reverse and strike are kept,
// because NO_COLOR asks for no colour, not for unreadable structure.
type Profile int

const (
	ProfileNone      Profile = iota // no colour and no attributes (TERM=dumb, not a TTY)
	ProfileMono                     // attributes without colour (NO_COLOR)
	ProfileANSI                     // 16 colours
	ProfileANSI256                  // xterm 256 colours
	ProfileTrueColor                // 24-bit RGB
)

// String names the profile as in docs/themes.md.
func (p Profile) String() string {
	switch p {
	case ProfileNone:
		return "none"
	case ProfileMono:
		return "mono"
	case ProfileANSI:
		return "ansi"
	case ProfileANSI256:
		return "ansi256"
	case ProfileTrueColor:
		return "truecolor"
	}
	return "Profile(" + strconv.Itoa(int(p)) + ")"
}

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

// ansiNames are the 16 ANSI colour names in index order.
var ansiNames = [16]string{
	"black", "red", "green", "yellow", "blue", "magenta", "cyan", "white",
	"bright_black", "bright_red", "bright_green", "bright_yellow",
	"bright_blue", "bright_magenta", "bright_cyan", "bright_white",
}

// ParseColor reads a colour as theme files write it: "#rrggbb", "#rgb", an
// xterm-256 index "0".."255", one of the 16 ANSI names ("red",
// "bright_blue"; "gray" and "grey" mean bright_black; "-" and a space may
// replace "_"), or "default" for the terminal's own colour.
func ParseColor(s string) (Color, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	switch {
	case t == "default" || t == "none":
		return Color{}, nil
	case strings.HasPrefix(t, "#"):
		hex := t[1:]
		if len(hex) == 3 {
			hex = string([]byte{hex[0], hex[0], hex[1], hex[1], hex[2], hex[2]})
		}
		if len(hex) != 6 {
			return Color{}, fmt.Errorf("colour %q: want #rrggbb or #rgb", s)
		}
		v, err := strconv.ParseUint(hex, 16, 32)
		if err != nil {
			return Color{}, fmt.Errorf("colour %q: %q is not hexadecimal", s, hex)
		}
		return Color{Kind: ColorRGB, Value: uint32(v)}, nil
	case t != "" && t[0] >= '0' && t[0] <= '9':
		n, err := strconv.Atoi(t)
		if err != nil || n > 255 {
			return Color{}, fmt.Errorf("colour %q: an xterm-256 index is a whole number 0-255", s)
		}
		return Color{Kind: Color256, Value: uint32(n)}, nil
	}
	name := strings.NewReplacer("-", "_", " ", "_").Replace(t)
	if name == "gray" || name == "grey" {
		name = "bright_black"
	}
	if strings.HasPrefix(name, "bright") && !strings.HasPrefix(name, "bright_") {
		name = "bright_" + name[len("bright"):]
	}
	for i, n := range ansiNames {
		if n == name {
			return Color{Kind: ColorANSI, Value: uint32(i)}, nil
		}
	}
	return Color{}, fmt.Errorf("colour %q: want #rrggbb, an xterm-256 index 0-255, an ANSI name such as red or bright_blue, or default", s)
}

// String writes c in the syntax ParseColor reads.
func (c Color) String() string {
	switch c.Kind {
	case ColorANSI:
		if c.Value < 16 {
			return ansiNames[c.Value]
		}
	case Color256:
		return strconv.Itoa(int(c.Value))
	case ColorRGB:
		return fmt.Sprintf("#%06x", c.Value&0xffffff)
	}
	return "default"
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
	var buf [64]byte
	b := append(buf[:0], "\x1b["...)
	n := len(b)
	for _, a := range [...]struct {
		on   bool
		code byte
	}{{s.Bold, '1'}, {s.Dim, '2'}, {s.Italic, '3'}, {s.Underline, '4'}, {s.Reverse, '7'}, {s.Strike, '9'}} {
		if a.on {
			b = append(b, a.code, ';')
		}
	}
	b = appendColor(b, s.FG, p, false)
	b = appendColor(b, s.BG, p, true)
	if len(b) == n {
		return ""
	}
	b[len(b)-1] = 'm'
	return string(b)
}

// Render wraps text in s's SGR sequence and a reset.
func (s Style) Render(p Profile, text string) string {
	on := s.SGR(p)
	if on == "" || text == "" {
		return text
	}
	return on + text + "\x1b[0m"
}

// Span is a run of text in one style. A non-empty Link makes the run a
// hyperlink to that URL when hyperlinks are enabled (OSC 8).
type Span struct {
	Text  string
	Style Style
	Link  string
}

// RenderSpans joins spans into one line with the escape sequences profile p
// needs. The line starts from the terminal's default state and ends back in
// it, so lines can be redrawn in any order. Links become OSC 8 hyperlinks
// when hyperlinks is true and p is not ProfileNone; otherwise only their
// text is written. Span text is written as given: callers sanitise it.
func RenderSpans(spans []Span, p Profile, hyperlinks bool) string {
	var b strings.Builder
	cur, link := "", ""
	links := hyperlinks && p != ProfileNone
	for _, sp := range spans {
		if sp.Text == "" {
			continue
		}
		if links && sp.Link != link {
			if link != "" {
				b.WriteString("\x1b]8;;\x1b\\")
			}
			if sp.Link != "" {
				b.WriteString("\x1b]8;;")
				b.WriteString(osc8URL(sp.Link))
				b.WriteString("\x1b\\")
			}
			link = sp.Link
		}
		if sgr := sp.Style.SGR(p); sgr != cur {
			switch {
			case sgr == "":
				b.WriteString("\x1b[0m")
			case cur == "":
				b.WriteString(sgr)
			default:
				b.WriteString("\x1b[0;")
				b.WriteString(sgr[2:])
			}
			cur = sgr
		}
		b.WriteString(sp.Text)
	}
	if link != "" {
		b.WriteString("\x1b]8;;\x1b\\")
	}
	if cur != "" {
		b.WriteString("\x1b[0m")
	}
	return b.String()
}

// osc8URL makes u safe inside an OSC 8 sequence: bytes outside printable
// ASCII are percent-encoded, so nothing in a URL from model text can end
// the sequence early or smuggle another one in.
func osc8URL(u string) string {
	clean := true
	for i := 0; i < len(u); i++ {
		if u[i] <= 0x20 || u[i] >= 0x7f {
			clean = false
			break
		}
	}
	if clean {
		return u
	}
	var b strings.Builder
	for i := 0; i < len(u); i++ {
		c := u[i]
		if c <= 0x20 || c >= 0x7f {
			fmt.Fprintf(&b, "%%%02X", c)
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// appendColor appends the SGR parameters of c, followed by ';', to b.
func appendColor(b []byte, c Color, p Profile, bg bool) []byte {
	c = downgrade(c, p)
	base := 30
	if bg {
		base = 40
	}
	switch c.Kind {
	case ColorANSI:
		if c.Value < 8 {
			return append(strconv.AppendInt(b, int64(base+int(c.Value)), 10), ';')
		}
		return append(strconv.AppendInt(b, int64(base+60+int(c.Value&7)), 10), ';')
	case Color256:
		b = strconv.AppendInt(b, int64(base+8), 10)
		b = append(b, ";5;"...)
		return append(strconv.AppendInt(b, int64(c.Value&0xff), 10), ';')
	case ColorRGB:
		b = strconv.AppendInt(b, int64(base+8), 10)
		b = append(b, ";2;"...)
		b = append(strconv.AppendInt(b, int64(c.Value>>16&0xff), 10), ';')
		b = append(strconv.AppendInt(b, int64(c.Value>>8&0xff), 10), ';')
		return append(strconv.AppendInt(b, int64(c.Value&0xff), 10), ';')
	}
	return b
}

// downgrade maps c to the nearest colour profile p can show.
func downgrade(c Color, p Profile) Color {
	switch {
	case p <= ProfileMono:
		return Color{}
	case p >= ProfileTrueColor:
		return c
	case c.Kind == ColorRGB && p == ProfileANSI256:
		return Color{Kind: Color256, Value: uint32(rgbTo256(c.Value))}
	case c.Kind == ColorRGB && p == ProfileANSI:
		return Color{Kind: ColorANSI, Value: uint32(rgbToANSI(c.Value))}
	case c.Kind == Color256 && p == ProfileANSI:
		return Color{Kind: ColorANSI, Value: uint32(xterm256ToANSI(uint8(c.Value)))}
	}
	return c
}

// cubeLevels are the channel values of xterm's 6x6x6 colour cube.
var cubeLevels = [6]int{0, 95, 135, 175, 215, 255}

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
	ci, cj, ck := cube(r), cube(g), cube(b)
	cr, cg, cb := cubeLevels[ci], cubeLevels[cj], cubeLevels[ck]
	avg := (r + g + b) / 3
	gi := 23
	if avg < 238 {
		gi = max((avg-3)/10, 0)
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
	if i >= 232 {
		v := uint32(8 + 10*int(i-232))
		return rgbToANSI(v<<16 | v<<8 | v)
	}
	j := int(i - 16)
	r, g, b := cubeLevels[j/36], cubeLevels[j/6%6], cubeLevels[j%6]
	return rgbToANSI(uint32(r)<<16 | uint32(g)<<8 | uint32(b))
}

// rgbToANSI maps a 24-bit colour to one of the 16 ANSI colours by hue, so
// that pastel theme colours keep their hue instead of collapsing to grey:
// weakly saturated colours become black, grey, white or bright white by
// brightness; the others take the nearest of the six hues, bright when
// light.
func rgbToANSI(v uint32) uint8 {
	r, g, b := int(v>>16&0xff), int(v>>8&0xff), int(v&0xff)
	hi, lo := max(r, g, b), min(r, g, b)
	if hi-lo < 48 || (hi-lo)*4 < hi {
		switch {
		case hi < 64:
			return 0
		case hi < 160:
			return 8
		case hi < 224:
			return 7
		}
		return 15
	}
	// Hue in degrees, 0 = red.
	var h int
	d := hi - lo
	switch hi {
	case r:
		h = 60 * (g - b) / d
	case g:
		h = 120 + 60*(b-r)/d
	default:
		h = 240 + 60*(r-g)/d
	}
	if h < 0 {
		h += 360
	}
	// Sectors centred on red, yellow, green, cyan, blue, magenta.
	hues := [6]uint8{1, 3, 2, 6, 4, 5}
	c := hues[(h+30)/60%6]
	if hi >= 192 {
		c += 8
	}
	return c
}
