package mcp

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// fakeAuth is an OAuth authorization server (RFC 8414 metadata, RFC 7591
// registration, authorization code with PKCE, refresh) for tests.
type fakeAuth struct {
	t        *testing.T
	srv      *httptest.Server
	mu       sync.Mutex
	clients  map[string]string // client_id -> redirect_uri
	codes    map[string]string // code -> code_challenge
	resource string            // the resource every request must name
	issued   []string          // access tokens
	refresh  int
	sawToken bool // a bearer token reached the authorization server
	expires  int
}

func newFakeAuth(t *testing.T) *fakeAuth {
	a := &fakeAuth{t: t, clients: map[string]string{}, codes: map[string]string{}, expires: 3600}
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]any{"issuer": a.srv.URL, "authorization_endpoint": a.srv.URL + "/authorize",
			"token_endpoint": a.srv.URL + "/token", "registration_endpoint": a.srv.URL + "/register",
			"code_challenge_methods_supported": []string{"S256"}})
	})
	mux.HandleFunc("/register", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			RedirectURIs []string `json:"redirect_uris"`
			AuthMethod   string   `json:"token_endpoint_auth_method"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		a.mu.Lock()
		id := fmt.Sprintf("client-%d", len(a.clients)+1)
		a.clients[id] = req.RedirectURIs[0]
		a.mu.Unlock()
		w.WriteHeader(http.StatusCreated)
		json.NewEncoder(w).Encode(map[string]any{"client_id": id})
	})
	mux.HandleFunc("/authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		a.mu.Lock()
		redirect := a.clients[q.Get("client_id")]
		a.mu.Unlock()
		switch {
		case redirect == "" || redirect != q.Get("redirect_uri"):
			http.Error(w, "unknown client or redirect", 400)
			return
		case q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "":
			http.Error(w, "PKCE S256 required", 400)
			return
		case q.Get("resource") != a.resource:
			http.Error(w, "wrong resource "+q.Get("resource"), 400)
			return
		case q.Get("scope") != "mcp:tools":
			http.Error(w, "wrong scope "+q.Get("scope"), 400)
			return
		}
		code := fmt.Sprintf("code-%d", len(a.codes)+1)
		a.mu.Lock()
		a.codes[code] = q.Get("code_challenge")
		a.mu.Unlock()
		http.Redirect(w, r, redirect+"?code="+code+"&state="+url.QueryEscape(q.Get("state")), http.StatusFound)
	})
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "" {
			a.mu.Lock()
			a.sawToken = true
			a.mu.Unlock()
		}
		r.ParseForm()
		if r.Form.Get("resource") != a.resource {
			w.WriteHeader(400)
			json.NewEncoder(w).Encode(map[string]any{"error": "invalid_target"})
			return
		}
		a.mu.Lock()
		defer a.mu.Unlock()
		switch r.Form.Get("grant_type") {
		case "authorization_code":
			challenge := a.codes[r.Form.Get("code")]
			sum := sha256.Sum256([]byte(r.Form.Get("code_verifier")))
			if challenge == "" || base64.RawURLEncoding.EncodeToString(sum[:]) != challenge {
				w.WriteHeader(400)
				json.NewEncoder(w).Encode(map[string]any{"error": "invalid_grant", "error_description": "PKCE mismatch"})
				return
			}
			delete(a.codes, r.Form.Get("code"))
		case "refresh_token":
			if r.Form.Get("refresh_token") != fmt.Sprintf("refresh-%d", len(a.issued)) {
				w.WriteHeader(400)
				json.NewEncoder(w).Encode(map[string]any{"error": "invalid_grant"})
				return
			}
			a.refresh++
		default:
			w.WriteHeader(400)
			return
		}
		tok := fmt.Sprintf("token-%d", len(a.issued)+1)
		a.issued = append(a.issued, tok)
		json.NewEncoder(w).Encode(map[string]any{"access_token": tok, "token_type": "Bearer", "expires_in": a.expires,
			"refresh_token": fmt.Sprintf("refresh-%d", len(a.issued))})
	})
	a.srv = httptest.NewServer(mux)
	t.Cleanup(a.srv.Close)
	return a
}

func (a *fakeAuth) valid(tok string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.issued) > 0 && tok == a.issued[len(a.issued)-1]
}

// protected wraps the fake MCP server: a bearer token from fakeAuth is
// required, and the protected resource metadata names fakeAuth.
func protected(a *fakeAuth, next http.Handler) (*httptest.Server, *[]string) {
	var mu sync.Mutex
	var seen []string
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/.well-known/oauth-protected-resource/mcp" {
			json.NewEncoder(w).Encode(map[string]any{"resource": srv.URL + "/mcp", "authorization_servers": []string{a.srv.URL},
				"scopes_supported": []string{"mcp:tools"}})
			return
		}
		tok := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		mu.Lock()
		seen = append(seen, tok)
		mu.Unlock()
		if !a.valid(tok) {
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+srv.URL+`/.well-known/oauth-protected-resource/mcp", scope="mcp:tools"`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	}))
	return srv, &seen
}

// browser plays the user: it opens the authorization URL and follows the
// redirect back to zut's loopback listener.
func browser(t *testing.T, prompts *[]string) AuthPrompt {
	return func(server, authURL string) {
		*prompts = append(*prompts, server)
		resp, err := http.Get(authURL)
		if err != nil {
			t.Errorf("browser: %v", err)
			return
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Errorf("browser: HTTP %d at the end of the redirects", resp.StatusCode)
		}
	}
}

func TestOAuthFlow(t *testing.T) {
	checkNoLeaks(t)
	a := newFakeAuth(t)
	rs, seen := protected(a, newFakeHTTP(t))
	defer rs.Close()
	a.resource = rs.URL + "/mcp"
	home := t.TempDir()
	var prompts []string
	opts := ConnectOptions{Home: home, AuthPrompt: browser(t, &prompts)}
	c, err := Connect(context.Background(), httpConfig("secure", rs.URL+"/mcp"), opts)
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.CallTool(context.Background(), "echo", json.RawMessage(`{"message":"authorized"}`), nil)
	if err != nil || res.Text() != "authorized" {
		t.Fatalf("CallTool = %v, %v", res, err)
	}
	c.Close()
	if len(prompts) != 1 || prompts[0] != "secure" {
		t.Errorf("prompts = %v, want one for secure", prompts)
	}
	// The tokens are stored 0600 under mcp-auth/, and nowhere else.
	path := AuthFile(home, "secure", rs.URL+"/mcp")
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token store %s: %v %v", path, fi, err)
	}
	filepath.Walk(home, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() && p != path {
			if b, _ := os.ReadFile(p); strings.Contains(string(b), "token-1") || strings.Contains(string(b), "refresh-1") {
				t.Errorf("a token leaked into %s", p)
			}
		}
		return nil
	})
	if a.sawToken {
		t.Errorf("a bearer token was sent to the authorization server")
	}

	// A second run uses the stored token: no prompt.
	c, err = Connect(context.Background(), httpConfig("secure", rs.URL+"/mcp"), opts)
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	if len(prompts) != 1 {
		t.Errorf("the stored token was not reused: %d prompts", len(prompts))
	}

	// An expired token is refreshed without a prompt.
	stored, _ := loadAuth(path)
	stored.Expiry = stored.Expiry.AddDate(0, 0, -1)
	saveAuth(path, stored)
	c, err = Connect(context.Background(), httpConfig("secure", rs.URL+"/mcp"), opts)
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	if a.refresh != 1 || len(prompts) != 1 {
		t.Errorf("refreshes = %d, prompts = %d; want 1 and 1", a.refresh, len(prompts))
	}
	for _, tok := range *seen {
		if tok != "" && !strings.HasPrefix(tok, "token-") {
			t.Errorf("the server saw an unexpected credential %q", tok)
		}
	}
}

func TestOAuthTokenStaysWithItsOrigin(t *testing.T) {
	a := newFakeAuth(t)
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "" {
			t.Errorf("the token reached another origin")
		}
	}))
	defer other.Close()
	// The protected server redirects the MCP endpoint to another origin.
	rs, _ := protected(a, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/mcp", http.StatusTemporaryRedirect)
	}))
	defer rs.Close()
	a.resource = rs.URL + "/mcp"
	var prompts []string
	_, err := Connect(context.Background(), httpConfig("secure", rs.URL+"/mcp"), ConnectOptions{Home: t.TempDir(), AuthPrompt: browser(t, &prompts)})
	if err == nil || !strings.Contains(err.Error(), "redirect to another origin") {
		t.Errorf("Connect = %v, want the cross-origin redirect refused", err)
	}
}

func TestOAuthRefusals(t *testing.T) {
	tests := []struct {
		name string
		meta map[string]any
		want string
	}{
		{"no PKCE", map[string]any{"code_challenge_methods_supported": []string{"plain"}}, "PKCE with S256"},
		{"no registration", map[string]any{"registration_endpoint": ""}, "offers no dynamic client registration"},
		{"plain http endpoint", map[string]any{"token_endpoint": "http://auth.example.com/token"}, "must use https"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var as *httptest.Server
			as = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				m := map[string]any{"issuer": as.URL, "authorization_endpoint": as.URL + "/authorize", "token_endpoint": as.URL + "/token",
					"registration_endpoint": as.URL + "/register", "code_challenge_methods_supported": []string{"S256"}}
				for k, v := range tc.meta {
					m[k] = v
				}
				json.NewEncoder(w).Encode(m)
			}))
			defer as.Close()
			var rs *httptest.Server
			rs = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if strings.HasPrefix(r.URL.Path, "/.well-known/oauth-protected-resource") {
					json.NewEncoder(w).Encode(map[string]any{"authorization_servers": []string{as.URL}})
					return
				}
				w.WriteHeader(401) // no resource_metadata: the well-known URIs are tried
			}))
			defer rs.Close()
			_, err := Connect(context.Background(), httpConfig("secure", rs.URL+"/mcp"), ConnectOptions{Home: t.TempDir(),
				AuthPrompt: func(string, string) { t.Error("the user must not be asked") }})
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), `mcp server "secure"`) {
				t.Errorf("Connect = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestParseChallenge(t *testing.T) {
	tests := []struct {
		in   []string
		want challenge
	}{
		{[]string{`Bearer resource_metadata="https://x/.well-known/oauth-protected-resource", scope="files:read"`},
			challenge{resourceMetadata: "https://x/.well-known/oauth-protected-resource", scope: "files:read"}},
		{[]string{`Basic realm="a", Bearer error="insufficient_scope", scope="a b"`}, challenge{err: "insufficient_scope", scope: "a b"}},
		{[]string{`Basic realm="x"`, `Bearer scope=one`}, challenge{scope: "one"}},
		{[]string{`Bearer realm="a\"b", scope="s"`}, challenge{scope: "s"}},
		{[]string{`,,=garbage "`}, challenge{}},
	}
	for _, tc := range tests {
		if got := parseChallenge(tc.in); got != tc.want {
			t.Errorf("parseChallenge(%q) = %+v, want %+v", tc.in, got, tc.want)
		}
	}
}
