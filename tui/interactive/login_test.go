package interactive

import (
	"io"
	"net"
	"net/http"
	"os"
	"regexp"
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

// TestUILoginSubscription: /login anthropic --subscription shows the
// link; authorized at the fake authorization server, whose page shows
// code#state, the pasted code is traded (the fake checks PKCE and the
// state), the sign-in saved, and the next request carries its token as a
// bearer with the subscription's system prompt first.
func TestUILoginSubscription(t *testing.T) {
	o := providertest.NewOAuthServer(3600)
	defer o.Close()
	o.SetAccount("me@example.com", "")
	h := startUI(t, uiOptions{width: 600, height: 30, replies: []providertest.Reply{{Text: "with a subscription"}},
		vars: map[string]string{
			"ANTHROPIC_API_KEY":                 "",
			"ZUT_ANTHROPIC_OAUTH_AUTHORIZE_URL": o.URL + "/authorize",
			"ZUT_ANTHROPIC_OAUTH_TOKEN_URL":     o.URL + "/token",
			"ZUT_ANTHROPIC_OAUTH_REDIRECT_URI":  o.URL + "/code",
		}})
	h.idle()
	h.enter("/login anthropic --subscription")
	h.waitText("Sign in with Claude Pro/Max: open this link")
	h.waitText("Paste the code the page shows")
	link := regexp.MustCompile(`http://127\.0\.0\.1:\d+/authorize\?\S+`).FindString(h.screen(true))
	if link == "" {
		t.Fatalf("no link on the screen:\n%s", h.screen(true))
	}
	resp, err := http.Get(link)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	code, ok := strings.CutPrefix(strings.TrimSpace(string(page)), "Paste this into zut: ")
	if !ok {
		t.Fatalf("the code page says %q; failures %v", page, o.Failures())
	}
	h.typeText(code)
	h.send("\r")
	h.waitText("signed in to Claude Pro/Max as me@example.com")
	h.idle()
	h.enter("hello")
	h.waitText("with a subscription")
	reqs := h.srv.Requests()
	if len(reqs) != 1 || !o.Valid(reqs[0].Bearer) || !strings.Contains(reqs[0].Header.Get("Anthropic-Beta"), "oauth-2025-04-20") {
		t.Fatalf("the request after the sign-in: %d requests, bearer %q", len(reqs), reqs[0].Bearer)
	}
	if sys, _ := reqs[0].Body["system"].([]any); len(sys) == 0 || sys[0].(map[string]any)["text"] != provider.SubscriptionSystemPrefix {
		t.Errorf("system = %v, want the subscription's prefix first", reqs[0].Body["system"])
	}
	if strings.Contains(h.screen(true), reqs[0].Bearer) {
		t.Errorf("the token shows on the screen")
	}
}

// TestUILoginChatGPT: /login openai-codex waits for the browser on a job;
// the browser (an HTTP client) authorizes at the fake server and is sent
// to zut's local callback, and the sign-in is saved. A second sign-in
// stopped with esc closes its callback server: the port is free again.
func TestUILoginChatGPT(t *testing.T) {
	o := providertest.NewOAuthServer(3600)
	defer o.Close()
	o.SetAccount("chat@example.com", "acct-7")
	h := startUI(t, uiOptions{width: 600, height: 30, vars: map[string]string{
		"ZUT_OPENAI_OAUTH_AUTHORIZE_URL": o.URL + "/authorize",
		"ZUT_OPENAI_OAUTH_TOKEN_URL":     o.URL + "/token",
		"ZUT_OPENAI_OAUTH_CALLBACK":      "127.0.0.1:0",
	}})
	h.idle()
	h.enter("/login openai-codex")
	h.waitText("Sign in with ChatGPT: open this link")
	h.waitText("Waiting for the browser")
	link := regexp.MustCompile(`http://127\.0\.0\.1:\d+/authorize\?\S+`).FindString(h.screen(true))
	if link == "" {
		t.Fatalf("no link on the screen:\n%s", h.screen(true))
	}
	resp, err := http.Get(link)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(page), "Signed in") {
		t.Fatalf("the callback page says %q; failures %v", page, o.Failures())
	}
	h.waitText("signed in to ChatGPT as chat@example.com")
	h.idle()
	cs, _ := provider.SavedCredentials(h.zut)
	if c := cs["openai-codex"]; c.Kind != "subscription" || c.Account != "chat@example.com" {
		t.Errorf("auth.json openai-codex = %+v, want the sign-in", c)
	}

	h.enter("/login chatgpt")
	h.waitText("Waiting for the browser")
	cb := regexp.MustCompile(`redirect_uri=http%3A%2F%2Flocalhost%3A(\d+)`).FindAllStringSubmatch(h.screen(true), -1)
	if len(cb) != 2 {
		t.Fatalf("want two links on the screen, found %d", len(cb))
	}
	port := cb[1][1]
	h.send("\x1b")
	h.waitText("ChatGPT sign-in stopped")
	h.idle()
	ln, err := net.Listen("tcp", "127.0.0.1:"+port)
	if err != nil {
		t.Fatalf("the stopped sign-in's callback still holds port %s: %v", port, err)
	}
	ln.Close()
}
