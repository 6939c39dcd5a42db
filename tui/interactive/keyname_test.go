package interactive

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zut-go/zut/proto"
	"github.com/zut-go/zut/tui"
)

// decodedKeys returns every distinct key press the terminal decoder
// produces from the encodings terminals use: legacy bytes and ESC
// prefixes, CSI and SS3 keys with every xterm modifier, the kitty
// keyboard protocol and xterm's modifyOtherKeys, for ASCII and a sample
// of other characters.
func decodedKeys(t *testing.T) []tui.Key {
	t.Helper()
	var inputs []string
	for b := 0; b < 0x80; b++ {
		inputs = append(inputs, string(rune(b)), "\x1b"+string(rune(b)))
	}
	others := []rune{'é', 'É', 'ß', 'ж', 'Ж', 'ω', 'Ω', 'İ', 'ı', 'ᾀ', 'ᾈ', '\u212a', 'ﬁ', '中', '😀', '\u00a0'}
	for _, r := range others {
		inputs = append(inputs, string(r), "\x1b"+string(r))
	}
	codes := []int{8, 9, 13, 27, 127}
	for c := 0x20; c < 0x7f; c++ {
		codes = append(codes, c)
	}
	for _, r := range others {
		codes = append(codes, int(r))
	}
	for c := 57414; c <= 57427; c++ {
		codes = append(codes, c) // kitty's keypad keys
	}
	for m := 1; m <= 64; m++ {
		for _, final := range "ABCDEFHPQRSZ" {
			inputs = append(inputs, fmt.Sprintf("\x1b[1;%d%c", m, final), fmt.Sprintf("\x1bO%d%c", m, final))
		}
		for _, n := range []int{1, 2, 3, 4, 5, 6, 7, 8, 11, 12, 13, 14, 15, 17, 18, 19, 20, 21, 23, 24} {
			inputs = append(inputs, fmt.Sprintf("\x1b[%d;%d~", n, m))
		}
		for _, c := range codes {
			inputs = append(inputs, fmt.Sprintf("\x1b[%d;%du", c, m), fmt.Sprintf("\x1b[27;%d;%d~", m, c))
		}
	}
	inputs = append(inputs, "\x1bOA", "\x1bOP", "\x1b[Z", "\x1b[97:65;2u", "\x1b[49:33;2u", "\x1b[1:33;6u")
	seen := map[tui.Key]bool{}
	var keys []tui.Key
	for _, in := range inputs {
		var d tui.Decoder
		evs := append(d.Feed([]byte(in)), d.Flush()...)
		for _, ev := range evs {
			k, ok := ev.(tui.Key)
			if !ok || k.Action != tui.KeyPress || seen[k] {
				continue
			}
			seen[k] = true
			keys = append(keys, k)
		}
	}
	if len(keys) < 5000 {
		t.Fatalf("the decoder produced %d distinct keys, want the whole range", len(keys))
	}
	return keys
}

// TestKeyNameIsCanonical: the name the UI gives every key the decoder
// produces is a canonical key name (proto.CanonicalKey leaves it as it
// is), so an extension that claims a key in any accepted spelling gets
// it; and the name parses back to a key of the same name, so a remap to
// it works.
func TestKeyNameIsCanonical(t *testing.T) {
	folded := 0
	for _, k := range decodedKeys(t) {
		name := keyName(k)
		if got, err := proto.CanonicalKey(name); err != nil || got != name {
			t.Errorf("CanonicalKey(keyName(%#v)) = CanonicalKey(%q) = %q, %v, want it unchanged", k, name, got, err)
			continue
		}
		if p, err := tui.ParseKey(name); err != nil || keyName(p) != name {
			t.Errorf("tui.ParseKey(%q) = %v, %v, want a key named %q", name, p, err, name)
		}
		if name != k.String() {
			folded++
		}
	}
	if folded == 0 {
		t.Errorf("keyName folded no key; want alt+A and the like folded")
	}
}

// TestKeyName: the spellings that differ between terminals get one name,
// and every other key keeps tui's.
func TestKeyName(t *testing.T) {
	for _, tc := range []struct {
		in   string // bytes from the terminal
		want string
	}{
		{"\x1b\x10", "ctrl+alt+p"},        // legacy Alt+Ctrl+P
		{"\x1b[112;7u", "ctrl+alt+p"},     // kitty
		{"\x1b[27;7;112~", "ctrl+alt+p"},  // modifyOtherKeys
		{"A", "A"},                        // Shift+A, legacy
		{"\x1b[97;2u", "A"},               // kitty
		{"\x1b[27;2;65~", "A"},            // modifyOtherKeys sends the capital with Shift
		{"\x1bA", "alt+shift+a"},          // legacy Alt+Shift+A
		{"\x1b[97;4u", "alt+shift+a"},     // kitty
		{"\x1b[27;6;72~", "ctrl+shift+h"}, // xterm's Ctrl+Shift+H
		{"\x1b[65;5u", "ctrl+shift+a"},    // a terminal that drops Shift for the capital
		{"\x1b[27;2;33~", "!"},            // xterm's Shift+1
		{"\x1b[32;2u", "shift+space"},     // Shift+Space stays
		{"\x1b[1;2A", "shift+up"},         // named keys keep Shift
		{"\x1b[Z", "shift+tab"},           //
		{"\x1b[8490;3u", "alt+\u212a"},    // the Kelvin sign has no small partner
		{"\x1b[1046;5u", "ctrl+shift+ж"},  // Ж with Ctrl
		{"\x1b[1;2P", "shift+f1"},         //
		{"\x1b[13;3u", "alt+enter"},       //
		{"\x00", "ctrl+space"},            //
		{"\x1c", "ctrl+\\"},               //
		{"\x1b[57414;5u", "ctrl+enter"},   // keypad Enter
		{"\x1b[3;5~", "ctrl+delete"},      //
		{"\x1b[24;2~", "shift+f12"},       //
		{"\x1b[1;9C", "super+right"},      //
		{"\x1b[120;33u", "meta+x"},        //
		{"\x1b[120;17u", "hyper+x"},       //
		{"\x1b[120;64u", "ctrl+alt+shift+super+hyper+meta+x"},
	} {
		t.Run(fmt.Sprintf("%q", tc.in), func(t *testing.T) {
			var d tui.Decoder
			evs := append(d.Feed([]byte(tc.in)), d.Flush()...)
			if len(evs) != 1 {
				t.Fatalf("decoding %q = %v, want one key", tc.in, evs)
			}
			k, ok := evs[0].(tui.Key)
			if !ok {
				t.Fatalf("decoding %q = %#v, want a key", tc.in, evs[0])
			}
			if got := keyName(k); got != tc.want {
				t.Errorf("keyName(%q as %q) = %q, want %q", tc.in, k.String(), got, tc.want)
			}
		})
	}
}

// keyClaimer is a raw Python extension that claims keys in several
// spellings and notes every key it gets.
var keyClaimer = rawPy("keys", []string{"commands", "ui2"}, `for k in ("alt+ctrl+p", "Ctrl + Alt + Q", "A", "alt+shift+a", "ctrl+bogus"):
    emit({"type": "register_shortcut", "key": k, "description": "a key"})
emit({"type": "set_editor", "keys": ["Control+S", "shift+1"]})
`, `elif m["type"] == "shortcut":
    emit({"type": "notify", "level": "info", "message": "pressed " + m["key"]})
elif m["type"] == "editor_key":
    emit({"type": "editor_key_response", "id": m["id"], "action": "consumed"})
    emit({"type": "notify", "level": "info", "message": "editor got " + m["key"]})
`)

// TestUIExtensionKeys: keys claimed in any accepted spelling fire when
// pressed, whatever encoding the terminal uses, and a claim of a key no
// key has is shown in the chat.
func TestUIExtensionKeys(t *testing.T) {
	needPython(t, "the key claimer is a Python extension")
	base := t.TempDir()
	dir := filepath.Join(base, "keys")
	writeRawExt(t, dir, "keys", "keys.py", keyClaimer)
	h := startUI(t, uiOptions{width: 160, height: 40, extensions: true, base: base, args: []string{"-e", dir}})
	h.idle()
	h.waitText(`ignored register_shortcut key "ctrl+bogus": unknown key name "bogus"`)
	h.waitText(`ignored set_editor key "shift+1": Shift with "1" is never reported`)
	for _, tc := range []struct{ in, want string }{
		{"\x1b\x10", "pressed ctrl+alt+p"},    // claimed as alt+ctrl+p
		{"\x1b[112;7u", "pressed ctrl+alt+p"}, // the same key from a kitty terminal
		{"\x1b\x11", "pressed ctrl+alt+q"},    // claimed with spaces and capitals
		{"A", "pressed A"},                    // claimed as A
		{"\x1bA", "pressed alt+shift+a"},      // Alt+Shift+A from a legacy terminal
		{"\x1b[97;4u", "pressed alt+shift+a"}, // and from a kitty terminal
		{"\x13", "editor got ctrl+s"},         // set_editor as Control+S
	} {
		before := strings.Count(h.screen(true), tc.want)
		h.send(tc.in)
		h.waitFor(tc.want, func(s string) bool { return strings.Count(s, tc.want) > before })
	}
	h.idle()
	if s := h.screen(true); strings.Contains(s, "›  A") || strings.Contains(s, "pressed ctrl+bogus") {
		t.Errorf("a claimed key reached the editor, or a refused key fired:\n%s", s)
	}
}
