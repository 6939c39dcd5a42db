package authcmd

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zut-go/zut/provider"
	"github.com/zut-go/zut/provider/providertest"
)

// screen is a Stdout that tests can wait on.
type screen struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	more chan struct{}
}

func newScreen() *screen { return &screen{more: make(chan struct{}, 1)} }

func (s *screen) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.buf.Write(p)
	select {
	case s.more <- struct{}{}:
	default:
	}
	return len(p), nil
}

func (s *screen) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

// wait returns the first match of re in the output, waiting for it (60 s
// at most).
func (s *screen) wait(t *testing.T, re *regexp.Regexp) []string {
	t.Helper()
	guard := time.After(60 * time.Second)
	for {
		if m := re.FindStringSubmatch(s.String()); m != nil {
			return m
		}
		select {
		case <-s.more:
		case <-guard:
			t.Fatalf("no %s in the output:\n%s", re, s.String())
		}
	}
}

var linkRE = regexp.MustCompile(`(?m)^  (http\S+)$`)

type run struct {
	out, errs *screen
	stdin     *io.PipeWriter
	done      chan error
	opened    chan string
}

func start(t *testing.T, home string, env map[string]string, args ...string) *run {
	t.Helper()
	pr, pw := io.Pipe()
	r := &run{out: newScreen(), errs: newScreen(), stdin: pw, done: make(chan error, 1), opened: make(chan string, 1)}
	e := &Env{Stdin: pr, Stdout: r.out, Stderr: r.errs, Home: home, Getenv: func(k string) string { return env[k] },
		OpenBrowser: func(link string) bool { r.opened <- link; return false }}
	go func() { r.done <- Run(context.Background(), e, args) }()
	t.Cleanup(func() { pw.Close() })
	return r
}

func (r *run) result(t *testing.T) error {
	t.Helper()
	select {
	case err := <-r.done:
		return err
	case <-time.After(60 * time.Second):
		t.Fatalf("zut auth did not finish:\n%s", r.out)
		return nil
	}
}

func readAuth(t *testing.T, home string) map[string]map[string]any {
	t.Helper()
	data, err := os.ReadFile(provider.AuthPath(home))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(provider.AuthPath(home)); fi.Mode().Perm() != 0o600 {
		t.Errorf("auth.json mode %v, want 0600", fi.Mode())
	}
	return m
}

func anthropicEnv(o *providertest.OAuthServer) map[string]string {
	return map[string]string{
		"ZUT_ANTHROPIC_OAUTH_AUTHORIZE_URL": o.URL + "/authorize",
		"ZUT_ANTHROPIC_OAUTH_TOKEN_URL":     o.URL + "/token",
		"ZUT_ANTHROPIC_OAUTH_REDIRECT_URI":  o.URL + "/code",
	}
}

// TestLoginSubscription: zut auth login anthropic --subscription prints
// the link (and offers it to a browser), the user authorizes at the fake
// authorization server, whose page shows code#state; pasted, it is
// traded (the fake checks the PKCE verifier against the challenge, the
// state and the redirect URI) and saved in auth.json in pi's shape.
func TestLoginSubscription(t *testing.T) {
	o := providertest.NewOAuthServer(28800)
	defer o.Close()
	o.SetAccount("me@example.com", "")
	home := t.TempDir()
	r := start(t, home, anthropicEnv(o), "login", "anthropic", "--subscription")
	link := r.out.wait(t, linkRE)[1]
	if got := <-r.opened; got != link {
		t.Errorf("the browser was offered %q, the screen shows %q", got, link)
	}
	r.out.wait(t, regexp.MustCompile(`no browser could be opened`))
	resp, err := http.Get(link) // the user's browser: authorize, land on the code page
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	pasted, ok := strings.CutPrefix(strings.TrimSpace(string(page)), "Paste this into zut: ")
	if !ok || !strings.Contains(pasted, "#") {
		t.Fatalf("the code page says %q (failures %v)", page, o.Failures())
	}
	io.WriteString(r.stdin, pasted+"\n")
	if err := r.result(t); err != nil {
		t.Fatalf("login: %v (failures %v)", err, o.Failures())
	}
	if !strings.Contains(r.out.String(), "signed in to Claude Pro/Max as me@example.com; the sign-in is saved in "+provider.AuthPath(home)+" (mode 0600)") {
		t.Errorf("output:\n%s", r.out)
	}
	if n, _ := o.Counts(); n != 1 {
		t.Errorf("codes traded = %d, want 1", n)
	}
	e := readAuth(t, home)["anthropic"]
	if e["type"] != "oauth" || !strings.HasPrefix(e["access"].(string), "access-") || !strings.HasPrefix(e["refresh"].(string), "refresh-") {
		t.Errorf("auth.json anthropic = %v, want the tokens in pi's shape", e)
	}
	if exp := int64(e["expires"].(float64)); time.UnixMilli(exp).Before(time.Now().Add(7 * time.Hour)) {
		t.Errorf("expires = %d, want about 8 hours ahead in ms", exp)
	}

	// status shows the kind, the account and the expiry.
	out := newScreen()
	if err := Run(context.Background(), &Env{Stdout: out, Home: home, Getenv: func(string) string { return "" }}, []string{"status"}); err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^anthropic +subscription +\S+ +auth.json +me@example.com, expires 20\d\d-`).MatchString(out.String()) {
		t.Errorf("status:\n%s", out)
	}
	if !regexp.MustCompile(`(?m)^openai-codex +- +- +not signed in \(zut auth login openai-codex\)$`).MatchString(out.String()) {
		t.Errorf("status does not say how to sign in to ChatGPT:\n%s", out)
	}

	// logout removes it, and says it could not revoke it.
	out = newScreen()
	if err := Run(context.Background(), &Env{Stdout: out, Home: home, Getenv: func(string) string { return "" }}, []string{"logout", "anthropic"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "removed the Claude Pro/Max sign-in") || !strings.Contains(out.String(), "offers no revocation endpoint zut knows") {
		t.Errorf("logout:\n%s", out)
	}
	if _, ok := readAuth(t, home)["anthropic"]; ok {
		t.Error("the sign-in is still in auth.json")
	}
}

// TestLoginSubscriptionMistakes: a code from another sign-in (its state
// differs), and an empty paste, are refused with what to do.
func TestLoginSubscriptionMistakes(t *testing.T) {
	cases := []struct{ name, paste, want string }{
		{"other state", "code-1#not-this-sign-in", "the code belongs to another sign-in"},
		{"nothing", "", "no code given"},
		{"no state", "code-1", "the code came without its state"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := providertest.NewOAuthServer(3600)
			defer o.Close()
			r := start(t, t.TempDir(), anthropicEnv(o), "login", "anthropic", "--subscription")
			r.out.wait(t, linkRE)
			io.WriteString(r.stdin, tc.paste+"\n")
			if err := r.result(t); err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "zut auth login anthropic --subscription") {
				t.Errorf("error = %v, want %q and the command to retry", err, tc.want)
			}
		})
	}
}

// TestLoginChatGPT: zut auth login openai-codex listens on 127.0.0.1,
// prints the link; the browser (an HTTP client here) authorizes at the
// fake server and is redirected to the local callback, which first
// ignores a forged answer; the code is traded and the sign-in saved with
// the ChatGPT account id of the id_token. logout revokes it at the
// configured endpoint.
func TestLoginChatGPT(t *testing.T) {
	o := providertest.NewOAuthServer(3600)
	defer o.Close()
	o.SetAccount("chat@example.com", "acct-42")
	home := t.TempDir()
	env := map[string]string{
		"ZUT_OPENAI_OAUTH_AUTHORIZE_URL": o.URL + "/authorize",
		"ZUT_OPENAI_OAUTH_TOKEN_URL":     o.URL + "/token",
		"ZUT_OPENAI_OAUTH_CALLBACK":      "127.0.0.1:0",
		"ZUT_OPENAI_OAUTH_REVOKE_URL":    o.URL + "/revoke",
	}
	r := start(t, home, env, "login", "openai-codex")
	link := r.out.wait(t, linkRE)[1]
	r.out.wait(t, regexp.MustCompile(`Waiting for the browser`))
	redirect := regexp.MustCompile(`redirect_uri=([^&]+)`).FindStringSubmatch(link)
	if redirect == nil {
		t.Fatalf("no redirect_uri in %s", link)
	}
	cb := strings.ReplaceAll(strings.ReplaceAll(redirect[1], "%3A", ":"), "%2F", "/")
	if !regexp.MustCompile(`^http://localhost:\d+/auth/callback$`).MatchString(cb) {
		t.Fatalf("redirect_uri = %s, want the local callback", cb)
	}
	forged, err := http.Get(cb + "?code=evil&state=forged")
	if err != nil {
		t.Fatal(err)
	}
	forged.Body.Close()
	if forged.StatusCode != http.StatusBadRequest {
		t.Errorf("a forged callback got %d, want 400", forged.StatusCode)
	}
	resp, err := http.Get(link) // authorize, then follow the redirect to zut's callback
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(page), "Signed in") {
		t.Errorf("the callback page says %q (failures %v)", page, o.Failures())
	}
	if err := r.result(t); err != nil {
		t.Fatalf("login: %v (failures %v)", err, o.Failures())
	}
	if !strings.Contains(r.out.String(), "signed in to ChatGPT as chat@example.com") {
		t.Errorf("output:\n%s", r.out)
	}
	e := readAuth(t, home)["openai-codex"]
	if e["type"] != "oauth" || e["accountId"] != "acct-42" || e["account"] != "chat@example.com" {
		t.Errorf("auth.json openai-codex = %v, want the sign-in with its account", e)
	}
	refresh := e["refresh"].(string)

	out := newScreen()
	if err := Run(context.Background(), &Env{Stdout: out, Home: home, Getenv: func(k string) string { return env[k] }}, []string{"logout", "chatgpt"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "revoked the ChatGPT sign-in at "+o.URL+"/revoke") {
		t.Errorf("logout:\n%s", out)
	}
	if got := o.Revoked(); len(got) != 1 || got[0] != refresh {
		t.Errorf("revoked %v, want [%s]", got, refresh)
	}
}

// TestLoginUsage: flags and names zut auth login refuses.
func TestLoginUsage(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"login", "openrouter", "--subscription"}, "openrouter has no subscription sign-in"},
		{[]string{"login", "--subscriptoin"}, "unknown flag --subscriptoin"},
		{[]string{"login"}, "needs one provider name"},
	}
	for _, tc := range cases {
		err := Run(context.Background(), &Env{Stdout: io.Discard, Home: t.TempDir(), Getenv: func(string) string { return "" }}, tc.args)
		var ue *UsageError
		if err == nil || !strings.Contains(err.Error(), tc.want) || !errorsAs(err, &ue) {
			t.Errorf("Run(%q) = %v, want a usage error with %q", tc.args, err, tc.want)
		}
	}
}

func errorsAs(err error, ue **UsageError) bool {
	u, ok := err.(*UsageError)
	*ue = u
	return ok
}

// TestCallbackLoopbackOnly: the ChatGPT callback listens on a loopback
// address only.
func TestCallbackLoopbackOnly(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", "192.0.2.1:1455", "1455"} {
		_, err := Begin(t.TempDir(), "openai-codex", func(k string) string {
			if k == "ZUT_OPENAI_OAUTH_CALLBACK" {
				return addr
			}
			return ""
		})
		if err == nil || !strings.Contains(err.Error(), "ZUT_OPENAI_OAUTH_CALLBACK="+addr) {
			t.Errorf("Begin with the callback on %s: %v, want it refused", addr, err)
		}
	}
}
