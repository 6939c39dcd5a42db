package interactive

import (
	"os"
	"strings"
	"testing"

	"github.com/zut-go/zut/provider"
	"github.com/zut-go/zut/provider/providertest"
)

// TestUILogin: /login anthropic asks for the key without showing it,
// saves it in auth.json (0600), and the next request carries it.
func TestUILogin(t *testing.T) {
	h := startUI(t, uiOptions{width: 80, height: 24, vars: map[string]string{"ANTHROPIC_API_KEY": ""},
		replies: []providertest.Reply{{Text: "with a key"}}})
	h.idle()
	h.enter("/login anthropic")
	h.waitText("API key for anthropic")
	h.typeText("sk-ant-typed-secret")
	h.flushInput()
	h.sync()
	if s := h.screen(false); strings.Contains(s, "typed-secret") || !strings.Contains(s, "•••••") {
		t.Fatalf("the key shows on the screen, or no mask does:\n%s", s)
	}
	h.send("\r")
	h.waitText("saved the anthropic key in")
	h.idle()
	fi, err := os.Stat(provider.AuthPath(h.zut))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("auth.json: %v, mode %v; want a 0600 file", err, fi.Mode())
	}
	keys, _ := provider.SavedKeys(h.zut)
	if keys["anthropic"] != "sk-ant-typed-secret" {
		t.Errorf("auth.json holds %q, want the typed key", keys["anthropic"])
	}
	h.enter("hello")
	h.waitText("with a key")
	reqs := h.srv.Requests()
	if len(reqs) != 1 || !reqs[0].HasKey {
		t.Errorf("the request after /login carries no key")
	}
	if strings.Contains(h.screen(true), "sk-ant-typed-secret") {
		t.Errorf("the key shows in the transcript")
	}
}
