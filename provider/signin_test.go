package provider_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/zut-go/zut/provider"
	"github.com/zut-go/zut/provider/providertest"
)

// TestMain lets the test binary play a second zut: with
// ZUT_TEST_SIGNIN_HOME set it takes a token from that home's sign-in
// and prints it (TestSignInTwoProcesses).
func TestMain(m *testing.M) {
	if home := os.Getenv("ZUT_TEST_SIGNIN_HOME"); home != "" {
		os.Exit(signInHelper(home))
	}
	os.Exit(m.Run())
}

func signInHelper(home string) int {
	o, _ := provider.LookupOAuth("anthropic", os.Getenv)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s := provider.NewSignIn(home, o)
	fmt.Println("started")
	b, err := s.Bearer(ctx)
	if err != nil {
		fmt.Println("error:", err)
		return 1
	}
	fmt.Println("token:", b.Token)
	return 0
}

// writeSignIn saves a sign-in as pi writes it: access, refresh and expires
// in milliseconds.
func writeSignIn(t *testing.T, home, name, access, refresh string, expires time.Time, extra map[string]any) {
	t.Helper()
	e := map[string]any{"type": "oauth", "access": access, "refresh": refresh, "expires": expires.UnixMilli()}
	for k, v := range extra {
		e[k] = v
	}
	data, _ := json.Marshal(map[string]any{name: e})
	if err := os.MkdirAll(home, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(provider.AuthPath(home), data, 0o600); err != nil {
		t.Fatal(err)
	}
}

func readEntry(t *testing.T, home, name string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(provider.AuthPath(home))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("auth.json: %v\n%s", err, data)
	}
	return m[name]
}

// signedAPI is a model API that takes only the live tokens of o.
func signedAPI(o *providertest.OAuthServer) *providertest.Server {
	return providertest.NewServerFunc(func(r providertest.Recorded) providertest.Reply {
		if !o.Valid(r.Bearer) {
			return providertest.Reply{Status: 401, ErrorType: "authentication_error", ErrorMessage: "invalid bearer token"}
		}
		return providertest.Reply{Text: "hello, subscriber"}
	})
}

func streamText(t *testing.T, c provider.Client) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	st, err := c.Stream(ctx, &provider.Request{System: "You are zut.", Messages: []provider.Message{{Role: provider.RoleUser, Content: []provider.Block{{Type: provider.BlockText, Text: "hi"}}}}})
	if err != nil {
		return "", err
	}
	defer st.Close()
	for st.Next() {
	}
	m := st.Message()
	var text strings.Builder
	for _, b := range m.Content {
		text.WriteString(b.Text)
	}
	return text.String(), st.Err()
}

func resolveSigned(t *testing.T, home, name, base string, env map[string]string) *provider.Resolved {
	t.Helper()
	r, err := provider.Resolve(context.Background(), provider.Options{
		Provider: name, BaseURL: base, Home: home,
		Getenv: func(k string) string { return env[k] },
	})
	if err != nil {
		t.Fatalf("Resolve: %v", err)
	}
	return r
}

// TestSignInRequests: a Claude Pro/Max sign-in sends its token as a
// bearer with anthropic-beta oauth-2025-04-20 and the system prompt that
// the subscription requires first; an expired token is refreshed before
// the request, and the refreshed one is saved atomically in auth.json
// (0600), in pi's shape.
func TestSignInRequests(t *testing.T) {
	o := providertest.NewOAuthServer(3600)
	defer o.Close()
	api := signedAPI(o)
	defer api.Close()
	home := t.TempDir()
	access, refresh := o.Issue()
	o.Expire(access)
	writeSignIn(t, home, "anthropic", access, refresh, time.Now().Add(-time.Minute), map[string]any{"account": "me@example.com"})
	env := map[string]string{"ZUT_ANTHROPIC_OAUTH_TOKEN_URL": o.URL + "/token"}
	r := resolveSigned(t, home, "anthropic", api.URL, env)
	if r.KeySource != provider.SubscriptionSource || r.SignIn != "Claude Pro/Max" {
		t.Errorf("KeySource, SignIn = %q, %q; want the subscription", r.KeySource, r.SignIn)
	}
	text, err := streamText(t, r.Client)
	if err != nil || text != "hello, subscriber" {
		t.Fatalf("stream = %q, %v; failures %v", text, err, o.Failures())
	}
	if _, n := o.Counts(); n != 1 {
		t.Errorf("refreshes = %d, want 1", n)
	}
	reqs := api.Requests()
	if len(reqs) != 1 {
		t.Fatalf("requests = %d, want 1 (the expired token was refreshed before sending)", len(reqs))
	}
	rec := reqs[0]
	if rec.Bearer != "access-2" || !o.Valid(rec.Bearer) {
		t.Errorf("bearer = %q, want the refreshed access-2", rec.Bearer)
	}
	if got := rec.Header.Get("Anthropic-Beta"); !strings.Contains(got, "oauth-2025-04-20") {
		t.Errorf("anthropic-beta = %q, want oauth-2025-04-20", got)
	}
	sys, _ := rec.Body["system"].([]any)
	if len(sys) != 2 || sys[0].(map[string]any)["text"] != provider.SubscriptionSystemPrefix || sys[1].(map[string]any)["text"] != "You are zut." {
		t.Errorf("system = %v, want the subscription prefix, then zut's prompt", sys)
	}
	e := readEntry(t, home, "anthropic")
	if e["type"] != "oauth" || e["access"] != "access-2" || e["refresh"] != "refresh-2" || e["account"] != "me@example.com" {
		t.Errorf("auth.json entry = %v, want the refreshed tokens in pi's shape, the account kept", e)
	}
	if exp, _ := e["expires"].(float64); time.UnixMilli(int64(exp)).Before(time.Now().Add(50 * time.Minute)) {
		t.Errorf("expires = %v ms, want about an hour ahead", e["expires"])
	}
	if fi, err := os.Stat(provider.AuthPath(home)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("auth.json mode = %v, %v; want 0600", fi.Mode(), err)
	}
	if left, _ := filepath.Glob(filepath.Join(home, "*.tmp*")); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// TestSignInRenewOn401: a token the API refuses before its expiry is
// renewed once and the request sent again.
func TestSignInRenewOn401(t *testing.T) {
	o := providertest.NewOAuthServer(3600)
	defer o.Close()
	api := signedAPI(o)
	defer api.Close()
	home := t.TempDir()
	access, refresh := o.Issue()
	writeSignIn(t, home, "anthropic", access, refresh, time.Now().Add(time.Hour), nil)
	o.Expire(access) // revoked early: the API answers 401 once
	r := resolveSigned(t, home, "anthropic", api.URL, map[string]string{"ZUT_ANTHROPIC_OAUTH_TOKEN_URL": o.URL + "/token"})
	text, err := streamText(t, r.Client)
	if err != nil || text != "hello, subscriber" {
		t.Fatalf("stream = %q, %v", text, err)
	}
	reqs := api.Requests()
	if len(reqs) != 2 || reqs[0].Bearer != access || reqs[1].Bearer != "access-2" {
		var got []string
		for _, q := range reqs {
			got = append(got, q.Bearer)
		}
		t.Errorf("bearers sent = %v, want [%s access-2]", got, access)
	}
	if _, n := o.Counts(); n != 1 {
		t.Errorf("refreshes = %d, want 1", n)
	}
}

// TestSignInRevoked: a refresh token the server refuses ends the request
// with a message that names the command that signs in again; a 401 that
// persists after a renewal is not retried forever.
func TestSignInRevoked(t *testing.T) {
	o := providertest.NewOAuthServer(3600)
	defer o.Close()
	api := signedAPI(o)
	defer api.Close()
	home := t.TempDir()
	access, refresh := o.Issue()
	o.Expire(access)
	o.Revoke(refresh)
	writeSignIn(t, home, "anthropic", access, refresh, time.Now().Add(-time.Hour), nil)
	r := resolveSigned(t, home, "anthropic", api.URL, map[string]string{"ZUT_ANTHROPIC_OAUTH_TOKEN_URL": o.URL + "/token"})
	_, err := streamText(t, r.Client)
	want := "the saved sign-in was revoked or has expired (invalid_grant: refresh token revoked) — sign in again with zut auth login anthropic --subscription"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("error = %v, want %q", err, want)
	}
	if n := len(api.Requests()); n != 0 {
		t.Errorf("%d requests reached the API with a dead token, want 0", n)
	}

	// An API that refuses every token: one renewal, then the 401 with
	// the hint to sign in again.
	deny := providertest.NewServerFunc(func(providertest.Recorded) providertest.Reply {
		return providertest.Reply{Status: 401, ErrorType: "authentication_error", ErrorMessage: "no"}
	})
	defer deny.Close()
	access, refresh = o.Issue()
	writeSignIn(t, home, "anthropic", access, refresh, time.Now().Add(time.Hour), nil)
	r = resolveSigned(t, home, "anthropic", deny.URL, map[string]string{"ZUT_ANTHROPIC_OAUTH_TOKEN_URL": o.URL + "/token"})
	_, err = streamText(t, r.Client)
	if err == nil || !strings.Contains(err.Error(), "sign in again with zut auth login anthropic --subscription") {
		t.Errorf("error = %v, want the hint to sign in again", err)
	}
	if n := len(deny.Requests()); n != 2 {
		t.Errorf("requests = %d, want 2 (one renewal)", n)
	}
}

// TestTokenServerFaults: a token server that hangs, answers garbage, or
// answers too much gives a bounded error that says what happened to
// which endpoint.
func TestTokenServerFaults(t *testing.T) {
	cases := []struct {
		mode string
		want string
	}{
		{"hang", "did not answer within 300ms"},
		{"garbage", `answered 200 with something that is not a token (text/html "<html><body>Service Unavailable</body></html>")`},
		{"huge", "answered with more than 64 KiB, which is no token response"},
	}
	for _, tc := range cases {
		t.Run(tc.mode, func(t *testing.T) {
			o := providertest.NewOAuthServer(3600)
			defer o.Close()
			o.Mode(tc.mode)
			oa, _ := provider.LookupOAuth("anthropic", envMap{"ZUT_ANTHROPIC_OAUTH_TOKEN_URL": o.URL + "/token"}.get)
			oa.Timeout = 300 * time.Millisecond
			_, err := oa.Refresh(context.Background(), "refresh-x")
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), o.URL+"/token") {
				t.Fatalf("Refresh() error = %v, want %q naming the endpoint", err, tc.want)
			}
			if strings.Contains(err.Error(), "refresh-x") {
				t.Errorf("the refresh token shows in the error: %v", err)
			}
		})
	}
}

// codexInstructionsSeen is the start of the instructions zut sends the
// Codex backend when there is no system prompt.
const codexInstructionsSeen = `"instructions":"You are a helpful coding assistant."`

type envMap map[string]string

func (m envMap) get(k string) string { return m[k] }

// lockWaiters counts the processes /proc/locks shows waiting for a flock
// on the file with inode ino; -1 when /proc/locks cannot be read.
func lockWaiters(ino uint64) int {
	data, err := os.ReadFile("/proc/locks")
	if err != nil {
		return -1
	}
	n := 0
	for _, l := range strings.Split(string(data), "\n") {
		f := strings.Fields(l)
		if len(f) >= 7 && f[1] == "->" && strings.HasSuffix(f[6], fmt.Sprintf(":%d", ino)) {
			n++
		}
	}
	return n
}

// TestSignInTwoProcesses: two zut processes find the same expired token;
// the token server holds the first refresh until the second process
// waits on the lock (the kernel's /proc/locks shows it), and counts
// exactly one refresh: the second re-reads auth.json under the lock and
// uses the token the first saved.
func TestSignInTwoProcesses(t *testing.T) {
	o := providertest.NewOAuthServer(3600)
	defer o.Close()
	home := t.TempDir()
	access, refresh := o.Issue()
	writeSignIn(t, home, "anthropic", access, refresh, time.Now().Add(-time.Minute), nil)
	lock := provider.AuthLockPath(home)
	if err := os.WriteFile(lock, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(lock)
	ino := fi.Sys().(*syscall.Stat_t).Ino
	var waited atomic.Int32
	o.BeforeRefresh(func() {
		if lockWaiters(ino) < 0 {
			return // no /proc/locks: the count below still holds
		}
		deadline := time.Now().Add(60 * time.Second)
		for lockWaiters(ino) == 0 && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		if lockWaiters(ino) > 0 {
			waited.Add(1)
		}
	})
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	outs := make([]*strings.Builder, 2)
	cmds := make([]*exec.Cmd, 2)
	for i := range cmds {
		cmd := exec.Command(exe, "-test.run=^$")
		cmd.Env = append(os.Environ(), "ZUT_TEST_SIGNIN_HOME="+home, "ZUT_ANTHROPIC_OAUTH_TOKEN_URL="+o.URL+"/token")
		outs[i] = &strings.Builder{}
		cmd.Stdout = outs[i]
		cmd.Stderr = outs[i]
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds[i] = cmd
	}
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Errorf("process %d: %v\n%s", i, err, outs[i])
		}
	}
	if _, n := o.Counts(); n != 1 {
		t.Errorf("refreshes = %d, want exactly 1; failures %v", n, o.Failures())
	}
	for i, out := range outs {
		if !strings.Contains(out.String(), "token: access-2\n") {
			t.Errorf("process %d printed %q, want the one refreshed token access-2", i, out)
		}
	}
	if _, err := os.ReadFile("/proc/locks"); err == nil && waited.Load() != 1 {
		t.Errorf("the refresh was answered without a second process waiting on %s", lock)
	}
	if e := readEntry(t, home, "anthropic"); e["access"] != "access-2" {
		t.Errorf("auth.json access = %v, want access-2", e["access"])
	}
}

// TestCodexRequests: a ChatGPT sign-in reaches the Codex backend's
// Responses endpoint with the bearer, the account id of the sign-in, and
// the body that backend takes (instructions, no max_output_tokens).
func TestCodexRequests(t *testing.T) {
	o := providertest.NewOAuthServer(3600)
	defer o.Close()
	api := signedAPI(o)
	defer api.Close()
	home := t.TempDir()
	access, refresh := o.Issue()
	writeSignIn(t, home, "openai-codex", access, refresh, time.Now().Add(time.Hour), map[string]any{"accountId": "acct-123"})
	r := resolveSigned(t, home, "openai-codex", api.URL+"/backend-api/codex", map[string]string{"ZUT_OPENAI_OAUTH_TOKEN_URL": o.URL + "/token"})
	if r.Model.ID != "gpt-5.3-codex" {
		t.Errorf("model = %s, want the default gpt-5.3-codex", r.Model.ID)
	}
	text, err := streamText(t, r.Client)
	if err != nil || text != "hello, subscriber" {
		t.Fatalf("stream = %q, %v", text, err)
	}
	rec := api.Requests()[0]
	if rec.Path != "/backend-api/codex/responses" || rec.Bearer != access {
		t.Errorf("path, bearer = %s, %s; want /backend-api/codex/responses with %s", rec.Path, rec.Bearer, access)
	}
	for h, want := range map[string]string{"Chatgpt-Account-Id": "acct-123", "Openai-Beta": "responses=experimental", "Originator": "zut"} {
		if got := rec.Header.Get(h); got != want {
			t.Errorf("%s = %q, want %q", h, got, want)
		}
	}
	if _, ok := rec.Body["max_output_tokens"]; ok || rec.Body["instructions"] != "You are zut." || rec.Body["store"] != false {
		t.Errorf("body = %v, want instructions, store false and no max_output_tokens", rec.Body)
	}

	// A second turn after reasoning: the reasoning item is not sent back.
	ctx := context.Background()
	st, err := r.Client.Stream(ctx, &provider.Request{Messages: []provider.Message{
		{Role: provider.RoleUser, Content: []provider.Block{{Type: provider.BlockText, Text: "hi"}}},
		{Role: provider.RoleAssistant, Content: []provider.Block{{Type: provider.BlockThinking, Text: "hm", Signature: "enc", ID: "rs_1", Origin: "openai-codex"}, {Type: provider.BlockText, Text: "hello"}}},
		{Role: provider.RoleUser, Content: []provider.Block{{Type: provider.BlockText, Text: "again"}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	for st.Next() {
	}
	st.Close()
	if raw := string(api.Requests()[1].Raw); strings.Contains(raw, `"reasoning"`) && strings.Contains(raw, "rs_1") || !strings.Contains(raw, codexInstructionsSeen) {
		t.Errorf("second request = %s, want no reasoning item and the default instructions", raw)
	}
}

// TestSignInTokenStaysHome: the bearer token of a sign-in goes only to
// the configured API: a redirect to another host drops it, and the token
// endpoint's redirects are not followed at all.
func TestSignInTokenStaysHome(t *testing.T) {
	o := providertest.NewOAuthServer(3600)
	defer o.Close()
	var leaked atomic.Value
	leaked.Store("")
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		leaked.Store(r.Header.Get("Authorization"))
		http.Error(w, "gone", http.StatusNotFound)
	}))
	defer other.Close()
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	defer api.Close()
	home := t.TempDir()
	access, refresh := o.Issue()
	writeSignIn(t, home, "anthropic", access, refresh, time.Now().Add(time.Hour), nil)
	r := resolveSigned(t, home, "anthropic", api.URL, map[string]string{"ZUT_ANTHROPIC_OAUTH_TOKEN_URL": o.URL + "/token"})
	streamText(t, r.Client)
	if v := leaked.Load().(string); v != "" {
		t.Errorf("the other host received Authorization %q", v)
	}

	redirecting := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/token", http.StatusTemporaryRedirect)
	}))
	defer redirecting.Close()
	oa, _ := provider.LookupOAuth("anthropic", envMap{"ZUT_ANTHROPIC_OAUTH_TOKEN_URL": redirecting.URL + "/token"}.get)
	_, err := oa.Refresh(context.Background(), refresh)
	if err == nil || !strings.Contains(err.Error(), "zut does not follow a redirect with a credential in it") {
		t.Errorf("Refresh through a redirect: %v, want it refused", err)
	}
	if v := leaked.Load().(string); v != "" {
		t.Errorf("the other host received %q", v)
	}
}

// TestSignInPiShape: auth.json as pi writes it is read: the sign-in's
// kind, account and expiry show in SavedCredentials; pi's API key entry
// is a key.
func TestSignInPiShape(t *testing.T) {
	home := t.TempDir()
	data := `{"anthropic": {"type": "oauth", "access": "sk-ant-oat01-abcdefghijkl", "refresh": "sk-ant-ort01-x", "expires": 1893456000000},
 "openrouter": {"type": "api_key", "key": "sk-or-123456789012"}}`
	if err := os.WriteFile(provider.AuthPath(home), []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	cs, err := provider.SavedCredentials(home)
	if err != nil {
		t.Fatal(err)
	}
	a := cs["anthropic"]
	if a.Kind != "subscription" || !a.Renewable || !a.Expires.Equal(time.UnixMilli(1893456000000)) || strings.Contains(a.Masked, "abcdefghijkl") {
		t.Errorf("anthropic = %+v, want a renewable subscription expiring in 2030, masked", a)
	}
	if cs["openrouter"].Kind != "key" {
		t.Errorf("openrouter = %+v, want pi's key entry read as a key", cs["openrouter"])
	}
	keys, _ := provider.SavedKeys(home)
	if keys["openrouter"] != "sk-or-123456789012" || keys["anthropic"] != "" {
		t.Errorf("SavedKeys = %v, want the key and no sign-in", keys)
	}
}

// TestOAuthCheck: the endpoints of a sign-in must be https, or http to
// this machine: a token must not travel in the clear.
func TestOAuthCheck(t *testing.T) {
	cases := []struct {
		env  envMap
		want string // "" for no error
	}{
		{envMap{}, ""},
		{envMap{"ZUT_ANTHROPIC_OAUTH_TOKEN_URL": "http://127.0.0.1:9/token"}, ""},
		{envMap{"ZUT_ANTHROPIC_OAUTH_TOKEN_URL": "http://localhost:9/token"}, ""},
		{envMap{"ZUT_ANTHROPIC_OAUTH_TOKEN_URL": "http://tokens.example.com/token"}, "the token URL http://tokens.example.com/token is neither https nor http to this machine"},
		{envMap{"ZUT_ANTHROPIC_OAUTH_AUTHORIZE_URL": "claude.ai/oauth"}, `the authorization URL "claude.ai/oauth" is not a URL`},
		{envMap{"ZUT_ANTHROPIC_OAUTH_REVOKE_URL": "ftp://x/revoke"}, "the revocation URL"},
	}
	for _, tc := range cases {
		oa, _ := provider.LookupOAuth("anthropic", tc.env.get)
		err := oa.Check()
		if (err == nil) != (tc.want == "") || err != nil && !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Check(%v) = %v, want %q", tc.env, err, tc.want)
		}
	}
}
