package provider

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"
)

// This file is the client side of the subscription sign-ins: the OAuth
// authorization code flow with PKCE (S256) of Claude Pro/Max and of
// ChatGPT (for the Codex models), the token and refresh requests, and
// their errors. The endpoints and client ids below are the ones the
// providers' own command-line tools use, as published in public reports;
// none of them is documented as an API, so each can be replaced through
// an environment variable (OAuthVars).

// OAuth is the sign-in of one provider. LookupOAuth fills it from the
// defaults and the environment; tests point it at fake servers.
type OAuth struct {
	// Provider is the provider the credentials are saved for.
	Provider string
	// Title names the sign-in for people ("Claude Pro/Max").
	Title        string
	AuthorizeURL string
	TokenURL     string
	// RedirectURI is where the authorization server sends the browser:
	// for Anthropic a page that shows the code to copy, for OpenAI the
	// local callback of zut auth login.
	RedirectURI string
	ClientID    string
	Scopes      string
	// RevokeURL takes an RFC 7009 revocation request; "" when the
	// provider offers none zut knows of.
	RevokeURL string
	// Extra are more query parameters of the authorization URL.
	Extra url.Values
	// Form sends token requests form-encoded (OpenAI) instead of as JSON
	// (Anthropic).
	Form bool
	// Login is the command that signs in again, for messages.
	Login string
	// Env names the variables of the endpoints, for messages.
	TokenEnv string
	// Timeout bounds each token request; 0 is 30 s.
	Timeout time.Duration
	// HTTPClient sends the token requests; nil uses a default client.
	// Redirects are never followed: the request holds a credential.
	HTTPClient *http.Client
}

// OAuthVar is an environment variable of the sign-ins, for zut help env.
type OAuthVar struct{ Name, What string }

// OAuthVars are the variables that point the sign-ins elsewhere (a test
// server, a gateway, an endpoint that moved).
var OAuthVars = []OAuthVar{
	{"ZUT_ANTHROPIC_OAUTH_AUTHORIZE_URL", "the Claude Pro/Max authorization page (default https://claude.ai/oauth/authorize)"},
	{"ZUT_ANTHROPIC_OAUTH_TOKEN_URL", "the Claude token endpoint (default https://platform.claude.com/v1/oauth/token)"},
	{"ZUT_ANTHROPIC_OAUTH_REDIRECT_URI", "the page that shows the code to paste (default https://platform.claude.com/oauth/code/callback)"},
	{"ZUT_ANTHROPIC_OAUTH_CLIENT_ID", "the OAuth client id of the Claude sign-in"},
	{"ZUT_ANTHROPIC_OAUTH_REVOKE_URL", "an RFC 7009 revocation endpoint for zut auth logout anthropic (none by default)"},
	{"ZUT_OPENAI_OAUTH_AUTHORIZE_URL", "the ChatGPT authorization page (default https://auth.openai.com/oauth/authorize)"},
	{"ZUT_OPENAI_OAUTH_TOKEN_URL", "the ChatGPT token endpoint (default https://auth.openai.com/oauth/token)"},
	{"ZUT_OPENAI_OAUTH_CLIENT_ID", "the OAuth client id of the ChatGPT sign-in"},
	{"ZUT_OPENAI_OAUTH_CALLBACK", "host:port of the local callback of the ChatGPT sign-in (default 127.0.0.1:1455)"},
	{"ZUT_OPENAI_OAUTH_REVOKE_URL", "an RFC 7009 revocation endpoint for zut auth logout openai-codex (none by default)"},
	{"ZUT_OPENAI_CODEX_ORIGINATOR", "the originator header of ChatGPT Codex requests (default zut)"},
}

// CodexCallback is the default address of the ChatGPT sign-in's local
// callback; the redirect URI registered for the client names port 1455.
const CodexCallback = "127.0.0.1:1455"

// CodexCallbackPath is the path of the local callback.
const CodexCallbackPath = "/auth/callback"

// SignIns are the providers that take a subscription sign-in, in the
// order /login offers them.
var SignIns = []string{"anthropic", "openai-codex"}

// LookupOAuth returns the sign-in of provider ("anthropic", or
// "openai-codex" and its aliases "chatgpt" and "codex"), with the
// endpoints the environment names. ok is false for a provider without one.
func LookupOAuth(provider string, getenv func(string) string) (o *OAuth, ok bool) {
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	or := func(v, def string) string {
		if v = strings.TrimSpace(v); v != "" {
			return v
		}
		return def
	}
	switch provider {
	case "anthropic", "claude":
		return &OAuth{
			Provider:     "anthropic",
			Title:        "Claude Pro/Max",
			AuthorizeURL: or(getenv("ZUT_ANTHROPIC_OAUTH_AUTHORIZE_URL"), "https://claude.ai/oauth/authorize"),
			TokenURL:     or(getenv("ZUT_ANTHROPIC_OAUTH_TOKEN_URL"), "https://platform.claude.com/v1/oauth/token"),
			RedirectURI:  or(getenv("ZUT_ANTHROPIC_OAUTH_REDIRECT_URI"), "https://platform.claude.com/oauth/code/callback"),
			ClientID:     or(getenv("ZUT_ANTHROPIC_OAUTH_CLIENT_ID"), "9d1c250a-e61b-44d9-88ed-5944d1962f5e"),
			Scopes:       "org:create_api_key user:profile user:inference",
			RevokeURL:    or(getenv("ZUT_ANTHROPIC_OAUTH_REVOKE_URL"), ""),
			// code=true asks for the page that shows the code to copy.
			Extra:    url.Values{"code": {"true"}},
			Login:    "zut auth login anthropic --subscription",
			TokenEnv: "ZUT_ANTHROPIC_OAUTH_TOKEN_URL",
		}, true
	case "openai-codex", "chatgpt", "codex":
		addr := or(getenv("ZUT_OPENAI_OAUTH_CALLBACK"), CodexCallback)
		return &OAuth{
			Provider:     "openai-codex",
			Title:        "ChatGPT",
			AuthorizeURL: or(getenv("ZUT_OPENAI_OAUTH_AUTHORIZE_URL"), "https://auth.openai.com/oauth/authorize"),
			TokenURL:     or(getenv("ZUT_OPENAI_OAUTH_TOKEN_URL"), "https://auth.openai.com/oauth/token"),
			RedirectURI:  CodexRedirectURI(addr),
			ClientID:     or(getenv("ZUT_OPENAI_OAUTH_CLIENT_ID"), "app_EMoamEEZ73f0CkXaXp7hrann"),
			Scopes:       "openid profile email offline_access",
			RevokeURL:    or(getenv("ZUT_OPENAI_OAUTH_REVOKE_URL"), ""),
			Extra: url.Values{
				"id_token_add_organizations": {"true"},
				"codex_cli_simplified_flow":  {"true"},
				"originator":                 {or(getenv("ZUT_OPENAI_CODEX_ORIGINATOR"), "zut")},
			},
			Form:     true,
			Login:    "zut auth login openai-codex",
			TokenEnv: "ZUT_OPENAI_OAUTH_TOKEN_URL",
		}, true
	}
	return nil, false
}

// CodexRedirectURI is the redirect URI of a local callback listening on
// addr (host:port): http://localhost:PORT/auth/callback.
func CodexRedirectURI(addr string) string {
	port := addr
	if i := strings.LastIndex(addr, ":"); i >= 0 {
		port = addr[i+1:]
	}
	return "http://localhost:" + port + CodexCallbackPath
}

// Check refuses endpoints that would carry a credential in the clear:
// each URL must be https, or http to a loopback address.
func (o *OAuth) Check() error {
	for _, u := range []struct{ name, url string }{{"authorization URL", o.AuthorizeURL}, {"token URL", o.TokenURL}, {"revocation URL", o.RevokeURL}} {
		if u.url == "" && u.name == "revocation URL" {
			continue
		}
		p, err := url.Parse(u.url)
		if err != nil || p.Host == "" {
			return fmt.Errorf("%s sign-in: the %s %q is not a URL — fix the ZUT_..._OAUTH_ variable that sets it (zut help env)", o.Title, u.name, u.url)
		}
		if p.Scheme == "https" || (p.Scheme == "http" && loopbackHost(p.Hostname())) {
			continue
		}
		return fmt.Errorf("%s sign-in: the %s %s is neither https nor http to this machine, and tokens must not travel in the clear — fix the ZUT_..._OAUTH_ variable that sets it", o.Title, u.name, RedactURL(u.url))
	}
	return nil
}

func loopbackHost(h string) bool {
	return h == "localhost" || h == "::1" || strings.HasPrefix(h, "127.")
}

// PKCE is the secret of one authorization: the code verifier, its S256
// challenge, and the state the answer must carry back.
type PKCE struct {
	Verifier, Challenge, State string
}

// NewPKCE draws a verifier (64 random bytes) and a state (32 random
// bytes), both base64url without padding.
func NewPKCE() (PKCE, error) {
	v, err := randomText(64)
	if err != nil {
		return PKCE{}, err
	}
	st, err := randomText(32)
	if err != nil {
		return PKCE{}, err
	}
	return PKCE{Verifier: v, Challenge: Challenge(v), State: st}, nil
}

// Challenge is the S256 code challenge of verifier:
// base64url(sha256(verifier)) without padding.
func Challenge(verifier string) string {
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

func randomText(n int) (string, error) {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("draw a random secret: %v", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// AuthorizeLink is the URL the user opens to sign in.
func (o *OAuth) AuthorizeLink(p PKCE) string {
	q := url.Values{}
	for k, v := range o.Extra {
		q[k] = v
	}
	q.Set("response_type", "code")
	q.Set("client_id", o.ClientID)
	q.Set("redirect_uri", o.RedirectURI)
	q.Set("scope", o.Scopes)
	q.Set("code_challenge", p.Challenge)
	q.Set("code_challenge_method", "S256")
	q.Set("state", p.State)
	sep := "?"
	if strings.Contains(o.AuthorizeURL, "?") {
		sep = "&"
	}
	return o.AuthorizeURL + sep + q.Encode()
}

// OAuthCredential is a signed-in provider's tokens.
type OAuthCredential struct {
	Access, Refresh string
	Expires         time.Time
	// AccountID is the ChatGPT account (sent as chatgpt-account-id).
	AccountID string
	// Account is what the provider said about the account: an email.
	Account string
}

// Exchange trades the code of an authorization for tokens. state is what
// came back with the code; it must be p.State.
func (o *OAuth) Exchange(ctx context.Context, code, state string, p PKCE) (*OAuthCredential, error) {
	code = strings.TrimSpace(code)
	if code == "" {
		return nil, fmt.Errorf("%s sign-in: no code given — copy the code the page shows after you authorize, then run %s again", o.Title, o.Login)
	}
	if state == "" {
		return nil, fmt.Errorf("%s sign-in: the code came without its state — paste the whole code the page shows, code#state, or run %s again", o.Title, o.Login)
	}
	if state != p.State {
		return nil, fmt.Errorf("%s sign-in: the code belongs to another sign-in (its state does not match this one's) — run %s again and use the code of the page it opens", o.Title, o.Login)
	}
	params := map[string]string{
		"grant_type":    "authorization_code",
		"client_id":     o.ClientID,
		"code":          code,
		"redirect_uri":  o.RedirectURI,
		"code_verifier": p.Verifier,
	}
	if !o.Form {
		params["state"] = state
	}
	return o.token(ctx, params, "")
}

// Refresh trades a refresh token for a new access token. A refresh token
// the server refused (revoked, expired) is an *OAuthError whose message
// names the command that signs in again.
func (o *OAuth) Refresh(ctx context.Context, refresh string) (*OAuthCredential, error) {
	params := map[string]string{
		"grant_type":    "refresh_token",
		"client_id":     o.ClientID,
		"refresh_token": refresh,
	}
	if o.Form {
		params["scope"] = "openid profile email"
	}
	return o.token(ctx, params, refresh)
}

// ErrNoRevoke is returned by Revoke when the provider offers no
// revocation endpoint zut knows of.
var ErrNoRevoke = errors.New("no revocation endpoint")

// Revoke asks the provider to revoke the refresh token (RFC 7009).
func (o *OAuth) Revoke(ctx context.Context, c *OAuthCredential) error {
	if o.RevokeURL == "" {
		return ErrNoRevoke
	}
	tok, hint := c.Refresh, "refresh_token"
	if tok == "" {
		tok, hint = c.Access, "access_token"
	}
	form := url.Values{"token": {tok}, "token_type_hint": {hint}, "client_id": {o.ClientID}}
	status, _, body, err := o.post(ctx, o.RevokeURL, "application/x-www-form-urlencoded", []byte(form.Encode()), tok)
	if err != nil {
		return err
	}
	if status/100 != 2 {
		return fmt.Errorf("%s sign-in: revoke at %s: the server answered %d %s", o.Title, RedactURL(o.RevokeURL), status, snippet(body))
	}
	return nil
}

// maxTokenBody bounds a token endpoint's answer.
const maxTokenBody = 64 << 10

func (o *OAuth) timeout() time.Duration {
	if o.Timeout > 0 {
		return o.Timeout
	}
	return 30 * time.Second
}

// post sends one request to an endpoint of the sign-in, bounded in time
// and size, without following redirects. secret is redacted from errors.
func (o *OAuth) post(ctx context.Context, endpoint, ctype string, body []byte, secret string) (status int, header http.Header, data []byte, err error) {
	ctx, cancel := context.WithTimeout(ctx, o.timeout())
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(body))
	if err != nil {
		return 0, nil, nil, fmt.Errorf("%s sign-in: %s: %v — fix %s", o.Title, RedactURL(endpoint), err, o.TokenEnv)
	}
	req.Header.Set("Content-Type", ctype)
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "zut")
	base := o.HTTPClient
	if base == nil {
		base = defaultHTTPClient
	}
	cl := *base
	cl.CheckRedirect = func(r *http.Request, via []*http.Request) error {
		return fmt.Errorf("the endpoint redirected to %s, and zut does not follow a redirect with a credential in it", RedactURL(r.URL.String()))
	}
	resp, err := cl.Do(req)
	if err != nil {
		if ctx.Err() == context.DeadlineExceeded {
			return 0, nil, nil, fmt.Errorf("%s sign-in: %s did not answer within %s — check the connection (or %s), then retry", o.Title, RedactURL(endpoint), o.timeout(), o.TokenEnv)
		}
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return 0, nil, nil, fmt.Errorf("%s sign-in: %s: %s — check the connection (or %s), then retry", o.Title, RedactURL(endpoint), redact(err.Error(), secret), o.TokenEnv)
	}
	defer resp.Body.Close()
	data, err = io.ReadAll(io.LimitReader(resp.Body, maxTokenBody+1))
	if err != nil {
		if ctx.Err() == context.DeadlineExceeded {
			return 0, nil, nil, fmt.Errorf("%s sign-in: %s did not finish its answer within %s — check the connection (or %s), then retry", o.Title, RedactURL(endpoint), o.timeout(), o.TokenEnv)
		}
		return 0, nil, nil, fmt.Errorf("%s sign-in: read the answer of %s: %v — retry", o.Title, RedactURL(endpoint), err)
	}
	if len(data) > maxTokenBody {
		return 0, nil, nil, fmt.Errorf("%s sign-in: %s answered with more than %s, which is no token response — check %s", o.Title, RedactURL(endpoint), sizeText(maxTokenBody), o.TokenEnv)
	}
	return resp.StatusCode, resp.Header, data, nil
}

// tokenReply is a token endpoint's answer.
type tokenReply struct {
	AccessToken  string `json:"access_token"`
	RefreshToken string `json:"refresh_token"`
	ExpiresIn    int64  `json:"expires_in"`
	IDToken      string `json:"id_token"`
	Account      struct {
		Email string `json:"email_address"`
	} `json:"account"`
	Error       string `json:"error"`
	Description string `json:"error_description"`
}

// OAuthError is a token endpoint's refusal.
type OAuthError struct {
	Title  string // "Claude Pro/Max"
	Status int
	// Code is the OAuth error code ("invalid_grant").
	Code, Description string
	// Refresh reports whether a refresh token was refused: the sign-in is
	// over and must be done again.
	Refresh bool
	Login   string
}

func (e *OAuthError) Error() string {
	what := e.Code
	if e.Description != "" {
		what += ": " + e.Description
	}
	if what == "" {
		what = fmt.Sprintf("status %d", e.Status)
	}
	if e.Refresh && (e.Code == "invalid_grant" || e.Status == http.StatusUnauthorized || e.Status == http.StatusBadRequest) {
		return fmt.Sprintf("%s sign-in: the saved sign-in was revoked or has expired (%s) — sign in again with %s", e.Title, what, e.Login)
	}
	return fmt.Sprintf("%s sign-in: the token endpoint refused (%d %s) — run %s again", e.Title, e.Status, what, e.Login)
}

// token posts params to the token endpoint and reads the credential.
// refresh is the refresh token sent ("" for a code exchange).
func (o *OAuth) token(ctx context.Context, params map[string]string, refresh string) (*OAuthCredential, error) {
	var body []byte
	ctype := "application/json"
	if o.Form {
		f := url.Values{}
		for k, v := range params {
			f.Set(k, v)
		}
		body, ctype = []byte(f.Encode()), "application/x-www-form-urlencoded"
	} else {
		body, _ = json.Marshal(params)
	}
	secret := params["refresh_token"] + params["code"]
	status, header, data, err := o.post(ctx, o.TokenURL, ctype, body, secret)
	if err != nil {
		return nil, err
	}
	var r tokenReply
	jsonErr := json.Unmarshal(data, &r)
	if status/100 != 2 {
		e := &OAuthError{Title: o.Title, Status: status, Refresh: refresh != "", Login: o.Login}
		if jsonErr == nil {
			e.Code, e.Description = r.Error, redact(r.Description, secret)
		} else {
			e.Description = snippet(data)
		}
		return nil, e
	}
	if jsonErr != nil || r.AccessToken == "" {
		ct, _, _ := mime.ParseMediaType(header.Get("Content-Type"))
		return nil, fmt.Errorf("%s sign-in: %s answered %d with something that is not a token (%s %s) — check %s, then run %s again", o.Title, RedactURL(o.TokenURL), status, firstNonEmpty(ct, "no content type"), snippet(data), o.TokenEnv, o.Login)
	}
	c := &OAuthCredential{Access: r.AccessToken, Refresh: firstNonEmpty(r.RefreshToken, refresh), Account: r.Account.Email}
	claims := jwtClaims(r.IDToken)
	access := jwtClaims(r.AccessToken)
	switch {
	case r.ExpiresIn > 0:
		c.Expires = time.Now().Add(time.Duration(r.ExpiresIn) * time.Second)
	case access.Exp > 0:
		c.Expires = time.Unix(access.Exp, 0)
	default:
		c.Expires = time.Now().Add(time.Hour)
	}
	c.AccountID = firstNonEmpty(claims.Auth.AccountID, access.Auth.AccountID)
	if c.Account == "" {
		c.Account = firstNonEmpty(claims.Email, access.Profile.Email)
	}
	return c, nil
}

// jwtPayload is what zut reads of an OpenAI token's claims. The token is
// not verified: zut only names the account it was issued for.
type jwtPayload struct {
	Exp   int64  `json:"exp"`
	Email string `json:"email"`
	Auth  struct {
		AccountID string `json:"chatgpt_account_id"`
	} `json:"https://api.openai.com/auth"`
	Profile struct {
		Email string `json:"email"`
	} `json:"https://api.openai.com/profile"`
}

// jwtClaims decodes the payload of a JWT; anything else gives zero claims.
func jwtClaims(tok string) jwtPayload {
	var p jwtPayload
	parts := strings.Split(tok, ".")
	if len(parts) != 3 || len(parts[1]) > maxTokenBody {
		return p
	}
	data, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(parts[1], "="))
	if err != nil {
		return p
	}
	_ = json.Unmarshal(data, &p)
	return p
}

// snippet shows the start of a body in a message: at most 120 bytes,
// quoted.
func snippet(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 120 {
		s = s[:120]
		for !utf8.ValidString(s) {
			s = s[:len(s)-1]
		}
		s += "…"
	}
	if s == "" {
		return "(an empty body)"
	}
	return fmt.Sprintf("%q", s)
}
