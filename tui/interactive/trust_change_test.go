package interactive

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestUITrustAskedAgainAfterChange: a trusted folder whose extension
// script is edited while zut runs is asked about again at /reload-ext,
// and "Not now" keeps the edited code off. Before, trust was decided once
// at start and the reload ran the edited script unasked.
func TestUITrustAskedAgainAfterChange(t *testing.T) {
	needPython(t, "the project extension is a Python extension")
	base := t.TempDir()
	dir := filepath.Join(base, "proj", ".zut", "extensions", "greeter")
	writeRawExt(t, dir, "greeter", "greet.py", greeter)
	h := startUI(t, uiOptions{width: 80, height: 24, extensions: true, base: base})
	h.waitText("Trust this folder?")
	h.send("\r") // Trust this folder
	h.waitText("extensions reloaded: 1 loaded")
	h.idle()
	h.enter("/greet")
	h.waitText("hello from the project")

	edited := strings.Replace(greeter, "hello from the project", "edited after trust", 1)
	if err := os.WriteFile(filepath.Join(dir, "greet.py"), []byte(edited), 0o755); err != nil {
		t.Fatal(err)
	}
	h.idle()
	h.enter("/reload-ext")
	h.waitText("changed since it was trusted")
	h.waitText("Trust this folder?")
	h.send("\x1b[B\r") // down, Not now
	h.waitText("stay off")
	h.idle()
	h.enter("/greet")
	h.waitText("unknown command /greet")
	if s := h.screen(true); strings.Contains(s, "edited after trust") {
		t.Errorf("the edited script ran without being trusted:\n%s", s)
	}
}
