package proto

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Key names (register_shortcut, set_editor, shortcut, editor_key, remap):
// the one form both sides compare, described in docs/protocol.md, "Key
// names". The Python and Node SDKs carry the same rules; the table in
// testdata/keys.txt holds all three to them.

// KeyError says why a key name names no key anyone can press.
type KeyError struct {
	Key    string // the name as given
	Reason string // what is wrong and what to write instead
}

func (e *KeyError) Error() string { return fmt.Sprintf("key %q: %s", e.Key, e.Reason) }

// The modifiers in the order a key name lists them, which is the order
// the interactive UI names a pressed key in.
var keyModifiers = [...]string{"ctrl", "alt", "shift", "super", "hyper", "meta"}

// modifierAliases are the other spellings of modifiers that CanonicalKey
// accepts.
func modifierAliases() map[string]string {
	return modifierAliasesLazy.get(func() map[string]string {
		return map[string]string{
			"control": "ctrl", "option": "alt", "opt": "alt", "cmd": "super", "command": "super",
		}
	})
}

var modifierAliasesLazy lazy[map[string]string]

// keyNames are the named keys, each with the other spellings CanonicalKey
// accepts for it; "space" and characters are handled apart.
func keyNames() map[string]string {
	return keyNamesLazy.get(func() map[string]string {
		return map[string]string{
			"enter": "enter", "return": "enter", "tab": "tab", "backspace": "backspace",
			"esc": "esc", "escape": "esc", "up": "up", "down": "down", "left": "left", "right": "right",
			"home": "home", "end": "end", "pageup": "pageup", "pgup": "pageup",
			"pagedown": "pagedown", "pgdn": "pagedown", "insert": "insert", "ins": "insert",
			"delete": "delete", "del": "delete", "begin": "begin",
			"f1": "f1", "f2": "f2", "f3": "f3", "f4": "f4", "f5": "f5", "f6": "f6",
			"f7": "f7", "f8": "f8", "f9": "f9", "f10": "f10", "f11": "f11", "f12": "f12",
		}
	})
}

var keyNamesLazy lazy[map[string]string]

// CanonicalKey returns the canonical form of the key name s, the form in
// which zut names a pressed key: "ctrl+alt+p", "shift+tab", "A", "f5".
// It drops ASCII white space, reads modifier and key names without regard
// to case (and accepts the aliases control, option, opt, cmd, command,
// return, escape, del, ins, pgup, pgdn), lists the modifiers in the order
// ctrl, alt, shift, super, hyper, meta, and spells Shift with a letter
// and nothing else as the capital letter. With Ctrl, Alt, Super, Hyper or
// Meta a letter is lower case (write shift for Shift). A lone character
// keeps its case: "A" is Shift+A.
//
// For a name no key can have (an unknown key name or modifier, a modifier
// twice, Shift with a character that is not a letter, ...) it returns a
// *KeyError saying what is wrong.
func CanonicalKey(s string) (string, error) {
	name, reason := canonicalKey(s)
	if reason != "" {
		return "", &KeyError{Key: s, Reason: reason}
	}
	return name, nil
}

func canonicalKey(s string) (name, reason string) {
	s = strings.Map(func(r rune) rune {
		if r == ' ' || (r >= '\t' && r <= '\r') {
			return -1
		}
		return r
	}, s)
	if s == "" {
		return "", `no key name; name a key such as "ctrl+alt+p" (the space bar is "space")`
	}
	for _, r := range s {
		if r == utf8.RuneError {
			return "", "not a valid character"
		}
		if unicode.IsControl(r) {
			return "", `a control character is not a key; name the key instead ("enter", "tab", "ctrl+a")`
		}
	}
	var mods string
	hasMods := false
	switch {
	case s == "+":
		name = "+"
	case strings.HasSuffix(s, "++"):
		name, mods, hasMods = "+", s[:len(s)-2], true
	case strings.HasSuffix(s, "+"):
		return "", `ends with "+"; name the key after the last "+" ("ctrl++" is Ctrl with +)`
	default:
		if i := strings.LastIndexByte(s, '+'); i >= 0 {
			name, mods, hasMods = s[i+1:], s[:i], true
		} else {
			name = s
		}
	}
	var set [len(keyModifiers)]bool
	if hasMods {
		for _, m := range strings.Split(mods, "+") {
			if m == "" {
				return "", `an empty modifier: "+" joins a modifier (ctrl, alt, shift, super, hyper, meta) to what follows`
			}
			i, ok := modifierIndex(m)
			switch {
			case !ok && isKeyName(m):
				return "", quote(m) + ` is a key, not a modifier; the key comes last, as in "ctrl+` + asciiLower(m) + `"`
			case !ok:
				return "", "unknown modifier " + quote(m) + "; the modifiers are ctrl, alt, shift, super, hyper and meta"
			case set[i]:
				return "", "modifier " + quote(keyModifiers[i]) + " given twice"
			}
			set[i] = true
		}
	}
	lower := asciiLower(name)
	if _, ok := modifierIndex(name); ok {
		return "", quote(name) + ` is a modifier, not a key; add the key after it, as in "` + lower + `+tab"`
	}
	const shift = 2
	switch named, ok := keyNames()[lower]; {
	case ok:
		name = named
	case lower == "space":
		name = "space"
	case lower == "rune":
		return "", `"rune" is only a panel_key name; name the character itself`
	case utf8.RuneCountInString(name) == 1:
		r, _ := utf8.DecodeRuneInString(name)
		others := false
		for i, on := range set {
			others = others || (on && i != shift)
		}
		switch {
		case others:
			if l, ok := lowerPartner(r); ok {
				r = l
			}
		case set[shift]:
			if u, ok := upperPartner(r); ok {
				r = u
			} else if _, ok := lowerPartner(r); !ok {
				return "", "Shift with " + quote(name) + ` is never reported: the terminal sends the character Shift types, so claim that (Shift+1 is "!" on a US keyboard)`
			}
			set[shift] = false
		}
		name = string(r)
	default:
		return "", "unknown key name " + quote(name) + `; a key is one character, "space", or one of enter, tab, backspace, esc, up, down, left, right, home, end, pageup, pagedown, insert, delete, begin, f1 to f12`
	}
	var b strings.Builder
	for i, on := range set {
		if on {
			b.WriteString(keyModifiers[i])
			b.WriteByte('+')
		}
	}
	b.WriteString(name)
	return b.String(), ""
}

// modifierIndex returns the index in keyModifiers of the modifier m,
// spelled in any case or as an alias.
func modifierIndex(m string) (int, bool) {
	m = asciiLower(m)
	if a, ok := modifierAliases()[m]; ok {
		m = a
	}
	for i, name := range keyModifiers {
		if name == m {
			return i, true
		}
	}
	return 0, false
}

func isKeyName(s string) bool {
	s = asciiLower(s)
	_, ok := keyNames()[s]
	return ok || s == "space" || s == "rune"
}

// lowerPartner returns the lower-case letter of the upper-case letter r
// when the two are a pair both ways (Lu and Ll); letters with a
// title-case or several-character partner have none.
func lowerPartner(r rune) (rune, bool) {
	l := unicode.ToLower(r)
	if !unicode.IsUpper(r) || !unicode.IsLower(l) || unicode.ToUpper(l) != r {
		return 0, false
	}
	return l, true
}

// upperPartner is lowerPartner the other way.
func upperPartner(r rune) (rune, bool) {
	u := unicode.ToUpper(r)
	if !unicode.IsLower(r) || !unicode.IsUpper(u) || unicode.ToLower(u) != r {
		return 0, false
	}
	return u, true
}

// asciiLower lower-cases the ASCII letters of s only, so that a name
// compares without regard to case and no other character changes.
func asciiLower(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'A' && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}, s)
}

// quote puts s in double quotes as it is; the SDKs quote the same way, so
// that the three give the same messages.
func quote(s string) string { return `"` + s + `"` }
