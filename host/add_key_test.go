package host

import (
	"strings"
	"testing"
)

// TestKeyNames: shortcuts and editor keys are kept in canonical form, so
// that any accepted spelling of a key claims it and fires, and a name no
// key has is refused with a warning in the log and in the chat.
func TestKeyNames(t *testing.T) {
	checkNoLeaks(t)
	h, f := addedFixture(t, nil, nil, []string{"a", "-caps", allCaps, "-added", "-commands", "raw"})
	for _, line := range []string{
		`{"type":"register_shortcut","key":"ctrl + alt + q","description":"spaces"}`,
		`{"type":"register_shortcut","key":"Alt+Control+P","description":"order, case, alias"}`,
		`{"type":"register_shortcut","key":"ctrl+alt+p","description":"the same key again"}`,
		`{"type":"register_shortcut","key":"shift+a","description":"the capital"}`,
		`{"type":"register_shortcut","key":"ctrl+foo","description":"no such key"}`,
		`{"type":"register_shortcut","key":"shift+1","description":"never reported"}`,
		`{"type":"set_editor","keys":["Ctrl+S","ctrl+ctrl+x","escape","C-p"]}`,
	} {
		display(t, h, "raw", line)
	}
	var got []string
	for _, s := range h.Shortcuts() {
		got = append(got, s.Key+"="+s.Description)
	}
	if want := "ctrl+alt+q=spaces,ctrl+alt+p=order, case, alias,A=the capital"; strings.Join(got, ",") != want {
		t.Errorf("Shortcuts() = %q, want %q", got, want)
	}
	if got, want := strings.Join(h.EditorKeys(), ","), "ctrl+s,esc"; got != want {
		t.Errorf("EditorKeys() = %q, want %q", got, want)
	}
	for _, tc := range []struct {
		pressed, sent string
	}{
		{"ctrl+alt+q", "ctrl+alt+q"},
		{"alt+ctrl+p", "ctrl+alt+p"},
		{"A", "A"},
	} {
		if !h.PressShortcut(tc.pressed) {
			t.Errorf("PressShortcut(%q) = false, want the key of extension a", tc.pressed)
		}
		f.rec.wait(t, "notify a info shortcut "+tc.sent)
	}
	for _, k := range []string{"a", "ctrl+foo", "shift+1"} {
		if h.PressShortcut(k) {
			t.Errorf("PressShortcut(%q) = true, want no owner", k)
		}
	}
	refused := []string{
		`register_shortcut key "ctrl+foo": unknown key name "foo"`,
		`register_shortcut key "shift+1": Shift with "1" is never reported`,
		`set_editor key "ctrl+ctrl+x": modifier "ctrl" given twice`,
		`set_editor key "C-p": unknown key name "C-p"`,
	}
	w := strings.Join(report(t, h.Diagnostics(), "a").Warnings, "\n")
	for _, want := range refused {
		f.rec.wait(t, "log a ignored "+want)
		if !strings.Contains(w, "ignored "+want) {
			t.Errorf("warnings of a = %q, want %q", w, want)
		}
	}
	if !strings.Contains(w, `ignored a second register_shortcut of "ctrl+alt+p"`) {
		t.Errorf("warnings of a = %q, want the second claim of ctrl+alt+p", w)
	}
}
