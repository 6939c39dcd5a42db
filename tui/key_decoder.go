package tui

import (
	"bytes"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Decoder turns the bytes a terminal sends into Events. It understands
// UTF-8 text split anywhere, C0 controls, Alt as an ESC prefix, CSI and
// SS3 keys with xterm modifiers, the kitty keyboard protocol (CSI u),
// xterm modifyOtherKeys (CSI 27;mod;code ~), bracketed paste, focus
// reports and the replies to the queries Terminal.Probe sends.
//
// A lone ESC is ambiguous until more bytes arrive: Feed keeps it pending,
// and the caller calls Flush once no byte has arrived for a short while
// (Pending says whether that is needed). The Decoder itself never looks at
// a clock. It is not safe for concurrent use.
type Decoder struct {
	buf     []byte
	inPaste bool
	paste   []byte
}

// maxSequence bounds an unterminated escape sequence; longer ones are
// reported as Unknown.
const maxSequence = 4096

var (
	pasteStart = []byte("\x1b[200~")
	pasteEnd   = []byte("\x1b[201~")
)

// Feed decodes p, together with any bytes left over from earlier calls,
// and returns the events completed so far.
func (d *Decoder) Feed(p []byte) []Event {
	d.buf = append(d.buf, p...)
	return d.decode(nil, false)
}

// Pending reports whether bytes are held back waiting for more input that
// may never come (a lone ESC or an unfinished sequence). The caller then
// calls Flush after a timeout. The inside of a bracketed paste is never
// pending: a paste ends only with its end marker.
func (d *Decoder) Pending() bool { return !d.inPaste && len(d.buf) > 0 }

// Flush decodes the held-back bytes as if nothing followed them: a lone
// ESC becomes the Esc key and an unfinished sequence ESC x... becomes
// Alt+x followed by the rest as typed keys.
func (d *Decoder) Flush() []Event {
	if d.inPaste {
		return nil
	}
	return d.decode(nil, true)
}

func (d *Decoder) decode(out []Event, final bool) []Event {
	i := 0
	for i < len(d.buf) {
		if d.inPaste {
			end := bytes.Index(d.buf[i:], pasteEnd)
			if end < 0 {
				// Keep what could be the start of the end marker.
				keep := max(len(d.buf)-i-(len(pasteEnd)-1), 0)
				d.paste = append(d.paste, d.buf[i:i+keep]...)
				i += keep
				break
			}
			d.paste = append(d.paste, d.buf[i:i+end]...)
			i += end + len(pasteEnd)
			out = append(out, Paste{Text: normalizeNewlines(d.paste)})
			d.inPaste, d.paste = false, nil
			continue
		}
		ev, n := parseEvent(d.buf[i:], final)
		if n == 0 && final {
			// Every parser resolves its input when final; this keeps a
			// missed case from holding bytes forever.
			ev, n = Unknown{Seq: string(d.buf[i : i+1])}, 1
		}
		if n == 0 {
			break
		}
		i += n
		if ev == nil {
			continue
		}
		if _, ok := ev.(pasteBegin); ok {
			d.inPaste = true
			continue
		}
		out = append(out, ev)
	}
	d.buf = append(d.buf[:0], d.buf[i:]...)
	return out
}

// pasteBegin is the internal event for CSI 200 ~.
type pasteBegin struct{}

func (pasteBegin) isEvent() {}

func normalizeNewlines(b []byte) string {
	s := string(b)
	if strings.IndexByte(s, '\r') < 0 {
		return s
	}
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.ReplaceAll(s, "\r", "\n")
}

// parseEvent decodes the event at the start of b and returns it with the
// number of bytes it used. It returns n == 0 when b holds only the start
// of an event and final is false. A nil event with n > 0 means bytes were
// consumed without an event.
func parseEvent(b []byte, final bool) (Event, int) {
	c := b[0]
	switch {
	case c == 0x1b:
		return parseEscape(b, final)
	case c < 0x20 || c == 0x7f:
		return controlKey(c), 1
	case c < 0x80:
		return Key{Code: KeyRune, Rune: rune(c)}, 1
	}
	if !utf8.FullRune(b) && !final {
		return nil, 0
	}
	r, n := utf8.DecodeRune(b)
	return Key{Code: KeyRune, Rune: r}, n
}

// controlKey maps a C0 control byte or DEL to its key.
func controlKey(c byte) Key {
	switch c {
	case '\r':
		return Key{Code: KeyEnter}
	case '\t':
		return Key{Code: KeyTab}
	case 0x1b:
		return Key{Code: KeyEsc}
	case 0x7f:
		return Key{Code: KeyBackspace}
	case 0:
		return Key{Code: KeyRune, Rune: ' ', Mod: ModCtrl}
	}
	if c >= 1 && c <= 26 {
		return Key{Code: KeyRune, Rune: rune('a' + c - 1), Mod: ModCtrl}
	}
	// 0x1c-0x1f: Ctrl+\ ] ^ _
	return Key{Code: KeyRune, Rune: rune(c + 0x40), Mod: ModCtrl}
}

func parseEscape(b []byte, final bool) (Event, int) {
	if len(b) == 1 {
		if !final {
			return nil, 0
		}
		return Key{Code: KeyEsc}, 1
	}
	switch b[1] {
	case '[':
		ev, n := parseCSI(b, final)
		if n == 0 && final {
			return Key{Code: KeyRune, Rune: '[', Mod: ModAlt}, 2
		}
		return ev, n
	case 'O':
		if len(b) < 3 {
			if !final {
				return nil, 0
			}
			return Key{Code: KeyRune, Rune: 'O', Mod: ModAlt}, 2
		}
		ev, n := parseSS3(b)
		if n == 0 && final {
			return Key{Code: KeyRune, Rune: 'O', Mod: ModAlt}, 2
		}
		return ev, n
	case ']', 'P', '_', '^', 'X':
		ev, n := parseString(b)
		if n == 0 && final {
			return Key{Code: KeyRune, Rune: rune(b[1]), Mod: ModAlt}, 2
		}
		return ev, n
	}
	// Alt+key: ESC followed by a key.
	ev, n := parseEvent(b[1:], final)
	if n == 0 {
		return nil, 0
	}
	if k, ok := ev.(Key); ok {
		k.Mod |= ModAlt
		return k, n + 1
	}
	// ESC before something that is not a key: the ESC alone.
	return Key{Code: KeyEsc}, 1
}

// parseString reads an OSC, DCS, APC, PM or SOS string up to ST or BEL.
func parseString(b []byte) (Event, int) {
	for i := 2; i < len(b); i++ {
		end := 0
		switch {
		case b[i] == 0x07:
			end = i + 1
		case b[i] == 0x1b && i+1 < len(b) && b[i+1] == '\\':
			end = i + 2
		case b[i] == 0x1b && i+1 == len(b):
			return nil, 0
		case b[i] == 0x1b:
			// ESC not followed by '\' aborts the string.
			return Unknown{Seq: string(b[:i])}, i
		case i >= maxSequence:
			return Unknown{Seq: string(b[:i])}, i
		}
		if end == 0 {
			continue
		}
		body := string(b[2:i])
		if b[1] == ']' {
			if ev, ok := parseOSC(body); ok {
				return ev, end
			}
		}
		return Unknown{Seq: string(b[:end])}, end
	}
	return nil, 0
}

// parseOSC understands colour query replies: "11;rgb:RRRR/GGGG/BBBB".
func parseOSC(body string) (Event, bool) {
	code, spec, ok := strings.Cut(body, ";")
	if !ok || (code != "10" && code != "11") {
		return nil, false
	}
	rgb, ok := strings.CutPrefix(spec, "rgb:")
	if !ok {
		if rgba, ok2 := strings.CutPrefix(spec, "rgba:"); ok2 {
			rgb, ok = rgba, true
		}
	}
	if !ok {
		return nil, false
	}
	parts := strings.Split(rgb, "/")
	if len(parts) < 3 {
		return nil, false
	}
	var ch [3]uint8
	for i := range 3 {
		p := parts[i]
		if len(p) == 0 || len(p) > 4 {
			return nil, false
		}
		v, err := strconv.ParseUint(p, 16, 16)
		if err != nil {
			return nil, false
		}
		maxV := uint64(1)<<(4*len(p)) - 1
		ch[i] = uint8((v*255 + maxV/2) / maxV)
	}
	n, _ := strconv.Atoi(code)
	return ColorReport{Code: n, R: ch[0], G: ch[1], B: ch[2]}, true
}

// parseSS3 decodes ESC O [modifier digits] final.
func parseSS3(b []byte) (Event, int) {
	i := 2
	mod := 0
	for i < len(b) && b[i] >= '0' && b[i] <= '9' && i < 6 {
		mod = mod*10 + int(b[i]-'0')
		i++
	}
	if i == len(b) {
		return nil, 0
	}
	k, ok := finalKey(b[i])
	if !ok {
		return Unknown{Seq: string(b[:i+1])}, i + 1
	}
	if mod > 1 {
		k.Mod = modFromParam(mod)
	}
	return k, i + 1
}

// finalKey maps the final byte of a CSI or SS3 key sequence to its key.
func finalKey(c byte) (Key, bool) {
	switch c {
	case 'A':
		return Key{Code: KeyUp}, true
	case 'B':
		return Key{Code: KeyDown}, true
	case 'C':
		return Key{Code: KeyRight}, true
	case 'D':
		return Key{Code: KeyLeft}, true
	case 'E':
		return Key{Code: KeyBegin}, true
	case 'H':
		return Key{Code: KeyHome}, true
	case 'F':
		return Key{Code: KeyEnd}, true
	case 'P':
		return Key{Code: KeyF1}, true
	case 'Q':
		return Key{Code: KeyF2}, true
	case 'R':
		return Key{Code: KeyF3}, true
	case 'S':
		return Key{Code: KeyF4}, true
	case 'M':
		return Key{Code: KeyEnter}, true // keypad Enter in application mode
	}
	return Key{}, false
}

// modFromParam converts an xterm/kitty modifier parameter (1 + bits) to Mod.
func modFromParam(p int) Mod {
	if p < 1 {
		return 0
	}
	return Mod((p - 1) & 0x3f)
}

// tildeKeys maps the number of a CSI number ~ sequence to its key.
func tildeKeys() map[int]KeyCode {
	return tildeKeysLazy.get(func() map[int]KeyCode {
		return map[int]KeyCode{
			1: KeyHome, 2: KeyInsert, 3: KeyDelete, 4: KeyEnd, 5: KeyPageUp, 6: KeyPageDown,
			7: KeyHome, 8: KeyEnd, 11: KeyF1, 12: KeyF2, 13: KeyF3, 14: KeyF4, 15: KeyF5,
			17: KeyF6, 18: KeyF7, 19: KeyF8, 20: KeyF9, 21: KeyF10, 23: KeyF11, 24: KeyF12,
		}
	})
}

var tildeKeysLazy lazy[map[int]KeyCode]

// csi is a parsed control sequence: ESC [ prefix params intermediates final.
type csi struct {
	prefix byte    // one of < = > ? or 0
	params [][]int // each parameter with its ':' sub-parameters; -1 for empty
	inter  string  // intermediate bytes
	final  byte    // final byte
	raw    string  // the whole sequence
}

// param returns sub-parameter j of parameter i, or def when absent.
func (c *csi) param(i, j, def int) int {
	if i >= len(c.params) || j >= len(c.params[i]) || c.params[i][j] < 0 {
		return def
	}
	return c.params[i][j]
}

func parseCSI(b []byte, final bool) (Event, int) {
	i := 2
	for ; i < len(b); i++ {
		c := b[i]
		if c >= 0x40 && c <= 0x7e {
			break
		}
		if c < 0x20 || c > 0x3f || i >= maxSequence {
			// Broken sequence: report it up to the bad byte.
			return Unknown{Seq: string(b[:i])}, i
		}
	}
	if i == len(b) {
		return nil, 0
	}
	n := i + 1
	seq := csi{final: b[i], raw: string(b[:n])}
	body := b[2:i]
	if len(body) > 0 && body[0] >= '<' && body[0] <= '?' {
		seq.prefix = body[0]
		body = body[1:]
	}
	j := 0
	for j < len(body) && body[j] >= 0x30 && body[j] <= 0x3f {
		j++
	}
	seq.inter = string(body[j:])
	if strings.IndexFunc(seq.inter, func(r rune) bool { return r >= 0x30 }) >= 0 {
		return Unknown{Seq: seq.raw}, n
	}
	if j > 0 {
		for _, p := range strings.Split(string(body[:j]), ";") {
			var sub []int
			for _, s := range strings.Split(p, ":") {
				v := -1
				if s != "" {
					x, err := strconv.Atoi(s)
					if err != nil || x > 1<<21 {
						return Unknown{Seq: seq.raw}, n
					}
					v = x
				}
				sub = append(sub, v)
			}
			seq.params = append(seq.params, sub)
		}
	}
	if ev := seq.event(); ev != nil {
		return ev, n
	}
	return Unknown{Seq: seq.raw}, n
}

// event interprets a parsed CSI sequence, or returns nil.
func (c *csi) event() Event {
	switch {
	case c.prefix == '?' && c.final == 'c' && c.inter == "":
		var ps []int
		for i := range c.params {
			ps = append(ps, c.param(i, 0, 0))
		}
		return DeviceAttributes{Params: ps}
	case c.prefix == '?' && c.final == 'y' && c.inter == "$":
		return ModeReport{Mode: c.param(0, 0, 0), Setting: c.param(1, 0, 0)}
	case c.prefix == '?' && c.final == 'u' && c.inter == "":
		return KeyboardFlags{Flags: c.param(0, 0, 0)}
	case c.prefix != 0 || c.inter != "":
		return nil
	}
	switch c.final {
	case 'I':
		if len(c.params) == 0 {
			return Focus{In: true}
		}
	case 'O':
		if len(c.params) == 0 {
			return Focus{In: false}
		}
	case 'Z':
		return Key{Code: KeyTab, Mod: ModShift | modFromParam(c.param(1, 0, 1))}
	case '~':
		return c.tildeEvent()
	case 'u':
		return c.kittyKey()
	case 'R':
		row, col := c.param(0, 0, 1), c.param(1, 0, 1)
		if len(c.params) == 2 && (row != 1 || col > 16) {
			return CursorPosition{Row: row, Col: col}
		}
	}
	k, ok := finalKey(c.final)
	if !ok || c.final == 'M' {
		return nil
	}
	k.Mod = modFromParam(c.param(1, 0, 1))
	k.Action = kittyAction(c.param(1, 1, 1))
	return k
}

func (c *csi) tildeEvent() Event {
	num := c.param(0, 0, 0)
	switch num {
	case 200:
		return pasteBegin{}
	case 201:
		return nil // a stray paste end; reported as Unknown
	case 27:
		// modifyOtherKeys: CSI 27 ; mod ; code ~
		if len(c.params) < 3 {
			return nil
		}
		return codepointKey(c.param(2, 0, 0), 0, modFromParam(c.param(1, 0, 1)), KeyPress)
	}
	code, ok := tildeKeys()[num]
	if !ok {
		return nil
	}
	return Key{Code: code, Mod: modFromParam(c.param(1, 0, 1)), Action: kittyAction(c.param(1, 1, 1))}
}

// kittyKey decodes CSI code[:shifted[:base]] ; mods[:event] ; text u.
func (c *csi) kittyKey() Event {
	code := c.param(0, 0, -1)
	if code < 0 {
		return nil
	}
	return codepointKey(code, c.param(0, 1, 0), modFromParam(c.param(1, 0, 1)), kittyAction(c.param(1, 1, 1)))
}

func kittyAction(p int) KeyAction {
	switch p {
	case 2:
		return KeyRepeat
	case 3:
		return KeyRelease
	}
	return KeyPress
}

// kittyFunctional maps the kitty protocol's private-use key codes that
// matter here (keypad keys) to keys.
func kittyFunctional() map[int]Key {
	return kittyFunctionalLazy.get(func() map[int]Key {
		return map[int]Key{
			57414: {Code: KeyEnter}, 57417: {Code: KeyLeft}, 57418: {Code: KeyRight},
			57419: {Code: KeyUp}, 57420: {Code: KeyDown}, 57421: {Code: KeyPageUp},
			57422: {Code: KeyPageDown}, 57423: {Code: KeyHome}, 57424: {Code: KeyEnd},
			57425: {Code: KeyInsert}, 57426: {Code: KeyDelete}, 57427: {Code: KeyBegin},
		}
	})
}

var kittyFunctionalLazy lazy[map[int]Key]

// codepointKey builds the key for a Unicode code point reported by the
// kitty protocol or modifyOtherKeys, with the shifted code point when the
// terminal sent one.
func codepointKey(code, shifted int, mod Mod, action KeyAction) Event {
	var k Key
	switch {
	case code == 13:
		k = Key{Code: KeyEnter}
	case code == 9:
		k = Key{Code: KeyTab}
	case code == 27:
		k = Key{Code: KeyEsc}
	case code == 127 || code == 8:
		k = Key{Code: KeyBackspace}
	case code >= 57344 && code <= 63743:
		fk, ok := kittyFunctional()[code]
		if !ok {
			return nil
		}
		k = fk
	case code >= 0x20 && code <= unicode.MaxRune && utf8.ValidRune(rune(code)):
		k = Key{Code: KeyRune, Rune: rune(code)}
		if mod&ModShift != 0 && mod&^ModShift == 0 {
			switch {
			case shifted > 0 && utf8.ValidRune(rune(shifted)):
				k.Rune = rune(shifted)
				mod &^= ModShift
			case unicode.IsLetter(k.Rune) && unicode.IsLower(k.Rune):
				k.Rune = unicode.ToUpper(k.Rune)
				mod &^= ModShift
			}
		}
	case code >= 0 && code < 0x20:
		k = controlKey(byte(code))
	default:
		return nil
	}
	k.Mod |= mod
	k.Action = action
	return k
}
