package interactive

import (
	"strings"
	"testing"

	"github.com/zut-go/zut/provider/providertest"
)

// TestUINarrowingKeepsPrompts: after the terminal narrows and rewraps
// its scrollback, a prompt stays one line followed by one blank line: its
// background is not padded to the old width.
func TestUINarrowingKeepsPrompts(t *testing.T) {
	h := startUI(t, uiOptions{width: 100, height: 20, reflow: true, replies: []providertest.Reply{{Text: "An answer."}}})
	h.idle()
	h.typeText("hi there")
	h.send("\r")
	h.waitText("An answer.")
	h.idle()
	h.resize(50, 20)
	h.idle()
	if s := plainRows(h.screen(true)); !strings.Contains(s, "› hi there\n\nAn answer.") {
		t.Errorf("after narrowing, the prompt is not one line and a blank one:\n%s", h.screen(true))
	}
}

// plainRows is the text of a framed screen dump, one row a line, with
// trailing blanks trimmed.
func plainRows(dump string) string {
	var out []string
	for _, l := range strings.Split(dump, "\n") {
		_, row, ok := strings.Cut(l, " |")
		if !ok {
			continue
		}
		out = append(out, strings.TrimRight(strings.TrimSuffix(row, "|"), " "))
	}
	return strings.Join(out, "\n")
}

// TestUISessionPath: /session prints the file's path on a line of its
// own, unindented and unbroken when it fits.
func TestUISessionPath(t *testing.T) {
	h := startUI(t, uiOptions{width: 200, height: 24, replies: []providertest.Reply{{Text: "ok"}}})
	h.idle()
	h.typeText("hi")
	h.send("\r")
	h.waitText("ok")
	h.idle()
	h.typeText("/session")
	h.send("\r")
	h.waitText("messages:")
	h.idle()
	var path string
	h.do(func(u *ui) { path = u.app.Session().Path() })
	rows := strings.Split(plainRows(h.screen(true)), "\n")
	found := false
	for _, r := range rows {
		if r == path {
			found = true
		}
	}
	if !found {
		t.Errorf("no row of /session is the path %s alone:\n%s", path, h.screen(true))
	}
}
