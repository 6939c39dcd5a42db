package providertest

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
)

// OAuthServer is a fake authorization and token server for the
// subscription sign-ins, over loopback. GET /authorize checks the PKCE
// parameters, issues a code and redirects to the redirect URI with it;
// GET /code shows "code#state" as Claude's page does; POST /token trades a
// code (checking code_challenge = base64url(sha256(code_verifier)), the
// state and the redirect URI) or a refresh token for new tokens; POST
// /revoke records a revocation. Tokens are "access-N" and "refresh-N".
//
// It is safe for concurrent use. Close stops it.
type OAuthServer struct {
	URL string

	srv  *httptest.Server
	stop chan struct{} // closed by Close: hung handlers return
	mu   sync.Mutex
	// set before use
	expiresIn     int64
	idToken       string
	email         string
	beforeRefresh func()
	mode          string // "", "hang", "garbage", "huge"

	codes     map[string]grant // code → the authorization it answers
	refreshes map[string]bool  // refresh token → still valid
	access    map[string]bool  // access token → valid
	n         int
	exchanges int
	refreshed int
	revoked   []string
	failures  []string
}

type grant struct {
	challenge, state, redirect, clientID string
}

// NewOAuthServer starts a fake token server whose access tokens live
// expiresIn seconds.
func NewOAuthServer(expiresIn int64) *OAuthServer {
	o := &OAuthServer{expiresIn: expiresIn, codes: map[string]grant{}, refreshes: map[string]bool{}, access: map[string]bool{}, stop: make(chan struct{})}
	o.srv = httptest.NewServer(http.HandlerFunc(o.serve))
	o.URL = o.srv.URL
	return o
}

// Close stops the server, ending hung requests.
func (o *OAuthServer) Close() {
	close(o.stop)
	o.srv.CloseClientConnections()
	o.srv.Close()
}

// SetAccount makes token answers name the account: email in Claude's
// account object, and an id_token (a JWT, unsigned) with the email and
// the ChatGPT account id.
func (o *OAuthServer) SetAccount(email, accountID string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.email = email
	claims, _ := json.Marshal(map[string]any{"email": email, "https://api.openai.com/auth": map[string]string{"chatgpt_account_id": accountID}})
	seg := func(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }
	o.idToken = seg([]byte(`{"alg":"none"}`)) + "." + seg(claims) + ".sig"
}

// Mode makes /token misbehave: "hang" never answers, "garbage" answers
// 200 with HTML, "huge" answers 200 with a megabyte; "" is normal.
func (o *OAuthServer) Mode(m string) {
	o.mu.Lock()
	o.mode = m
	o.mu.Unlock()
}

// BeforeRefresh runs f (on the handler's goroutine) before a refresh is
// answered.
func (o *OAuthServer) BeforeRefresh(f func()) {
	o.mu.Lock()
	o.beforeRefresh = f
	o.mu.Unlock()
}

// Issue makes a valid access and refresh token pair without a sign-in,
// as one saved earlier.
func (o *OAuthServer) Issue() (access, refresh string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.issue()
}

func (o *OAuthServer) issue() (string, string) {
	o.n++
	a, r := fmt.Sprintf("access-%d", o.n), fmt.Sprintf("refresh-%d", o.n)
	o.access[a], o.refreshes[r] = true, true
	return a, r
}

// Expire makes an access token invalid (the API answers 401 to it).
func (o *OAuthServer) Expire(access string) {
	o.mu.Lock()
	delete(o.access, access)
	o.mu.Unlock()
}

// Revoke makes a refresh token invalid (invalid_grant).
func (o *OAuthServer) Revoke(refresh string) {
	o.mu.Lock()
	o.refreshes[refresh] = false
	o.mu.Unlock()
}

// Valid reports whether access is a live access token.
func (o *OAuthServer) Valid(access string) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.access[access]
}

// Counts returns how many codes were traded and refreshes answered.
func (o *OAuthServer) Counts() (exchanges, refreshes int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.exchanges, o.refreshed
}

// Revoked returns the tokens POST /revoke received.
func (o *OAuthServer) Revoked() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]string(nil), o.revoked...)
}

// Failures returns what the server refused, for test messages.
func (o *OAuthServer) Failures() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]string(nil), o.failures...)
}

func (o *OAuthServer) fail(w http.ResponseWriter, status int, code, why string) {
	o.failures = append(o.failures, code+": "+why)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]string{"error": code, "error_description": why})
}

func (o *OAuthServer) serve(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/authorize":
		o.authorize(w, r)
	case "/code":
		fmt.Fprintf(w, "Paste this into zut: %s#%s\n", r.URL.Query().Get("code"), r.URL.Query().Get("state"))
	case "/token":
		o.token(w, r)
	case "/revoke":
		r.ParseForm()
		o.mu.Lock()
		o.revoked = append(o.revoked, r.PostForm.Get("token"))
		o.refreshes[r.PostForm.Get("token")] = false
		o.mu.Unlock()
	default:
		http.NotFound(w, r)
	}
}

func (o *OAuthServer) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	o.mu.Lock()
	defer o.mu.Unlock()
	switch {
	case q.Get("response_type") != "code":
		o.fail(w, 400, "unsupported_response_type", "response_type="+q.Get("response_type"))
		return
	case q.Get("code_challenge_method") != "S256":
		o.fail(w, 400, "invalid_request", "code_challenge_method must be S256")
		return
	case len(q.Get("code_challenge")) != 43:
		o.fail(w, 400, "invalid_request", "code_challenge is not a base64url SHA-256")
		return
	case len(q.Get("state")) < 32:
		o.fail(w, 400, "invalid_request", "state is too short")
		return
	case q.Get("client_id") == "" || q.Get("redirect_uri") == "":
		o.fail(w, 400, "invalid_request", "client_id and redirect_uri are required")
		return
	}
	o.n++
	code := fmt.Sprintf("code-%d", o.n)
	o.codes[code] = grant{challenge: q.Get("code_challenge"), state: q.Get("state"), redirect: q.Get("redirect_uri"), clientID: q.Get("client_id")}
	back, _ := url.Parse(q.Get("redirect_uri"))
	bq := back.Query()
	bq.Set("code", code)
	bq.Set("state", q.Get("state"))
	back.RawQuery = bq.Encode()
	http.Redirect(w, r, back.String(), http.StatusFound)
}

func (o *OAuthServer) token(w http.ResponseWriter, r *http.Request) {
	o.mu.Lock()
	mode := o.mode
	o.mu.Unlock()
	switch mode {
	case "hang":
		// Read the body so that the server notices the client leaving.
		io.Copy(io.Discard, io.LimitReader(r.Body, 1<<20))
		select {
		case <-r.Context().Done():
		case <-o.stop:
		}
		return
	case "garbage":
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, "<html><body>Service Unavailable</body></html>")
		return
	case "huge":
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"access_token":"`+strings.Repeat("x", 1<<20)+`"}`)
		return
	}
	params := map[string]string{}
	if strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err := json.Unmarshal(body, &params); err != nil {
			o.mu.Lock()
			o.fail(w, 400, "invalid_request", "body is not JSON: "+err.Error())
			o.mu.Unlock()
			return
		}
	} else {
		r.ParseForm()
		for k := range r.PostForm {
			params[k] = r.PostForm.Get(k)
		}
	}
	if params["grant_type"] == "refresh_token" {
		o.mu.Lock()
		before := o.beforeRefresh
		o.mu.Unlock()
		if before != nil {
			before()
		}
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	switch params["grant_type"] {
	case "authorization_code":
		g, ok := o.codes[params["code"]]
		if !ok {
			o.fail(w, 400, "invalid_grant", "unknown or used code")
			return
		}
		delete(o.codes, params["code"])
		sum := sha256.Sum256([]byte(params["code_verifier"]))
		switch {
		case base64.RawURLEncoding.EncodeToString(sum[:]) != g.challenge:
			o.fail(w, 400, "invalid_grant", "code_verifier does not match code_challenge")
			return
		case params["redirect_uri"] != g.redirect:
			o.fail(w, 400, "invalid_grant", "redirect_uri differs from the authorization's")
			return
		case params["client_id"] != g.clientID:
			o.fail(w, 400, "invalid_client", "client_id differs from the authorization's")
			return
		case params["state"] != "" && params["state"] != g.state:
			o.fail(w, 400, "invalid_grant", "state differs from the authorization's")
			return
		}
		o.exchanges++
	case "refresh_token":
		if !o.refreshes[params["refresh_token"]] {
			o.fail(w, 400, "invalid_grant", "refresh token revoked")
			return
		}
		o.refreshes[params["refresh_token"]] = false
		o.refreshed++
	default:
		o.fail(w, 400, "unsupported_grant_type", params["grant_type"])
		return
	}
	a, rt := o.issue()
	reply := map[string]any{"access_token": a, "refresh_token": rt, "expires_in": o.expiresIn, "token_type": "Bearer"}
	if o.email != "" {
		reply["account"] = map[string]string{"email_address": o.email}
	}
	if o.idToken != "" {
		reply["id_token"] = o.idToken
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(reply)
}
