package tui

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Event is one input event decoded from the terminal: a Key, a Paste, a
// Focus change, a terminal reply (DeviceAttributes, ModeReport,
// KeyboardFlags, ColorReport, CursorPosition), an Unknown sequence, or one
// of the Terminal's own events (Resize, Resume).
type Event interface{ isEvent() }

// KeyCode names a key. Letters, digits, punctuation and space are KeyRune
// with the character in Key.Rune.
type KeyCode uint8

const (
	KeyRune KeyCode = iota
	KeyEnter
	KeyTab
	KeyBackspace
	KeyEsc
	KeyUp
	KeyDown
	KeyLeft
	KeyRight
	KeyHome
	KeyEnd
	KeyPageUp
	KeyPageDown
	KeyInsert
	KeyDelete
	KeyBegin // the keypad centre key
	KeyF1
	KeyF2
	KeyF3
	KeyF4
	KeyF5
	KeyF6
	KeyF7
	KeyF8
	KeyF9
	KeyF10
	KeyF11
	KeyF12
)

// keyNames are the KeyCode names; they match the key names of the
// extension protocol's panel_key frame where the two overlap.
var keyNames = [...]string{
	KeyRune: "rune", KeyEnter: "enter", KeyTab: "tab", KeyBackspace: "backspace",
	KeyEsc: "esc", KeyUp: "up", KeyDown: "down", KeyLeft: "left", KeyRight: "right",
	KeyHome: "home", KeyEnd: "end", KeyPageUp: "pageup", KeyPageDown: "pagedown",
	KeyInsert: "insert", KeyDelete: "delete", KeyBegin: "begin",
	KeyF1: "f1", KeyF2: "f2", KeyF3: "f3", KeyF4: "f4", KeyF5: "f5", KeyF6: "f6",
	KeyF7: "f7", KeyF8: "f8", KeyF9: "f9", KeyF10: "f10", KeyF11: "f11", KeyF12: "f12",
}

// String returns the key's name: "up", "enter", "pageup", "f5"; KeyRune
// is "rune".
func (c KeyCode) String() string {
	if int(c) < len(keyNames) {
		return keyNames[c]
	}
	return "key(" + strconv.Itoa(int(c)) + ")"
}

// Mod is a set of modifier keys.
type Mod uint8

const (
	ModShift Mod = 1 << iota
	ModAlt
	ModCtrl
	ModSuper
	ModHyper
	ModMeta
)

// KeyAction says whether a key was pressed, repeated or released. Only
// the kitty keyboard protocol reports repeats and releases, and only when
// asked to.
type KeyAction uint8

const (
	KeyPress KeyAction = iota
	KeyRepeat
	KeyRelease
)

// Key is a key press. Control keys typed the legacy way (Ctrl+A is byte
// 0x01) arrive as KeyRune with the lower-case letter and ModCtrl, so that
// legacy, kitty and modifyOtherKeys encodings of the same key are equal.
type Key struct {
	Code   KeyCode
	Rune   rune // the character, for KeyRune
	Mod    Mod
	Action KeyAction
}

// String returns the key in the form "ctrl+a", "alt+enter", "shift+tab",
// "ctrl+space", "f5" or, for an unmodified character, the character
// itself.
func (k Key) String() string {
	var b strings.Builder
	for _, m := range [...]struct {
		m    Mod
		name string
	}{{ModCtrl, "ctrl+"}, {ModAlt, "alt+"}, {ModShift, "shift+"}, {ModSuper, "super+"}, {ModHyper, "hyper+"}, {ModMeta, "meta+"}} {
		if k.Mod&m.m != 0 {
			b.WriteString(m.name)
		}
	}
	switch {
	case k.Code != KeyRune:
		b.WriteString(k.Code.String())
	case k.Rune == ' ':
		b.WriteString("space")
	default:
		b.WriteRune(k.Rune)
	}
	switch k.Action {
	case KeyRepeat:
		b.WriteString(" (repeat)")
	case KeyRelease:
		b.WriteString(" (release)")
	}
	return b.String()
}

// Is reports whether k is the key named by s in the String form, ignoring
// the action: k.Is("ctrl+c").
func (k Key) Is(s string) bool {
	k.Action = KeyPress
	return k.String() == s
}

// PanelKey maps k to the key names of the extension protocol's panel_key
// frame: "up", "down", "left", "right", "enter", "esc", "tab", "pageup",
// "pagedown", "home", "end", "backspace", "delete", or "rune" with the
// typed text. Keys outside that list, and keys with Ctrl or Alt, report
// ok false.
func (k Key) PanelKey() (name, text string, ok bool) {
	if k.Action == KeyRelease || k.Mod&^ModShift != 0 {
		return "", "", false
	}
	switch k.Code {
	case KeyRune:
		return "rune", string(k.Rune), true
	case KeyEnter, KeyEsc, KeyTab, KeyUp, KeyDown, KeyLeft, KeyRight, KeyPageUp,
		KeyPageDown, KeyHome, KeyEnd, KeyBackspace, KeyDelete:
		if k.Mod != 0 {
			return "", "", false
		}
		return k.Code.String(), "", true
	}
	return "", "", false
}

// ParseKey parses the String form of a key: "ctrl+a", "alt+enter",
// "shift+tab", "ctrl+space", "f5", "x".
func ParseKey(s string) (Key, error) {
	var k Key
	rest := s
	for {
		name, after, ok := strings.Cut(rest, "+")
		if !ok || after == "" {
			break
		}
		m, known := modNames()[name]
		if !known {
			break
		}
		k.Mod |= m
		rest = after
	}
	switch {
	case rest == "space":
		k.Code, k.Rune = KeyRune, ' '
		return k, nil
	case utf8.RuneCountInString(rest) == 1:
		k.Code, k.Rune = KeyRune, []rune(rest)[0]
		return k, nil
	}
	for c, name := range keyNames {
		if name == rest && KeyCode(c) != KeyRune {
			k.Code = KeyCode(c)
			return k, nil
		}
	}
	return Key{}, fmt.Errorf("parse key %q: unknown key name %q", s, rest)
}

func modNames() map[string]Mod {
	return modNamesLazy.get(func() map[string]Mod {
		return map[string]Mod{
			"ctrl": ModCtrl, "alt": ModAlt, "shift": ModShift, "super": ModSuper, "hyper": ModHyper, "meta": ModMeta,
		}
	})
}

var modNamesLazy lazy[map[string]Mod]

// Text returns the text the key types: the character of an unmodified or
// shift-only KeyRune, and "" for everything else.
func (k Key) Text() string {
	if k.Code != KeyRune || k.Mod&^ModShift != 0 || k.Action == KeyRelease {
		return ""
	}
	return string(k.Rune)
}

// Paste is the text of a bracketed paste, with line ends normalised to
// "\n". It may contain anything else, escape sequences included; sanitise
// before display.
type Paste struct{ Text string }

// Focus reports the terminal window gaining (In) or losing focus.
type Focus struct{ In bool }

// DeviceAttributes is the terminal's reply to a primary device attributes
// query (DA1, CSI c).
type DeviceAttributes struct{ Params []int }

// ModeReport is the reply to a DECRQM query (CSI ? mode $ p): Setting is
// 0 for an unknown mode, 1 set, 2 reset, 3 permanently set, 4 permanently
// reset.
type ModeReport struct {
	Mode, Setting int
}

// Supported reports whether the terminal knows the mode.
func (m ModeReport) Supported() bool { return m.Setting != 0 && m.Setting != 4 }

// KeyboardFlags is the reply to the kitty keyboard protocol query
// (CSI ? u): the flags currently in effect.
type KeyboardFlags struct{ Flags int }

// ColorReport is the reply to an OSC 10 (foreground, Code 10) or OSC 11
// (background, Code 11) colour query, scaled to 8 bits per channel.
type ColorReport struct {
	Code    int
	R, G, B uint8
}

// CursorPosition is the reply to a cursor position query (CSI 6 n), 1-based.
type CursorPosition struct{ Row, Col int }

// Unknown is an escape sequence the decoder does not understand; it is
// reported so that callers can log it, and is otherwise safe to ignore.
type Unknown struct{ Seq string }

func (Key) isEvent()              {}
func (Paste) isEvent()            {}
func (Focus) isEvent()            {}
func (DeviceAttributes) isEvent() {}
func (ModeReport) isEvent()       {}
func (KeyboardFlags) isEvent()    {}
func (ColorReport) isEvent()      {}
func (CursorPosition) isEvent()   {}
func (Unknown) isEvent()          {}
