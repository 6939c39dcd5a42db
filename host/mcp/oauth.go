package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// AuthPrompt shows the user the URL to open to authorize zut for a
// server. It is called on the goroutine running the authorization, which
// waits for the browser to come back to zut's loopback listener.
type AuthPrompt func(server, authURL string)

// authorizer runs OAuth for one remote server, as the MCP authorization
// specification asks: protected resource metadata (RFC 9728), then
// authorization server metadata (RFC 8414 or OpenID Connect discovery),
// then a client (pre-registered, or dynamic registration per RFC 7591),
// then the authorization code flow with PKCE S256 and the resource
// parameter (RFC 8707) through a loopback redirect, then refresh.
type authorizer struct {
	server    string
	serverURL *url.URL
	preset    *OAuthConfig
	path      string // the token store, "" for memory only
	prompt    AuthPrompt
	open      func(ctx context.Context, url string) // the browser, or nil
	log       *logFile
	client    *http.Client // to the MCP server's origin (set by httpBase)
	ext       *http.Client // to authorization servers: no redirects
	timeout   time.Duration

	mu     sync.Mutex // serialises flows and guards a
	a      *storedAuth
	loaded bool
}

func newAuthorizer(cfg ServerConfig, home string, prompt AuthPrompt, open func(context.Context, string), log *logFile) *authorizer {
	u, _ := parseURL(cfg.URL)
	return &authorizer{server: cfg.Name, serverURL: u, preset: cfg.OAuth, path: AuthFile(home, cfg.Name, cfg.URL),
		prompt: prompt, open: open, log: log, timeout: 10 * time.Minute,
		ext: &http.Client{Timeout: 30 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		}}}
}

// token returns the access token to send, refreshing it when it expired;
// "" when there is none (the server's 401 then starts a flow).
func (z *authorizer) token(ctx context.Context) (string, error) {
	z.mu.Lock()
	defer z.mu.Unlock()
	z.load()
	if z.a == nil || z.a.AccessToken == "" {
		return "", nil
	}
	if !z.a.Expiry.IsZero() && time.Now().After(z.a.Expiry.Add(-30*time.Second)) {
		if err := z.refresh(ctx); err != nil {
			z.log.printf("oauth: refresh failed: %v", err)
			return "", nil
		}
	}
	return z.a.AccessToken, nil
}

func (z *authorizer) load() {
	if z.loaded {
		return
	}
	z.loaded = true
	a, err := loadAuth(z.path)
	if err != nil {
		z.log.printf("oauth: %v", err)
		return
	}
	if a != nil && a.Resource == z.serverURL.String() {
		z.a = a
	}
}

func (z *authorizer) save() {
	if err := saveAuth(z.path, z.a); err != nil {
		z.log.printf("oauth: %v", err)
	}
}

// authorize answers a 401 (or a 403 insufficient_scope): refresh when a
// rejected token can be refreshed and the scope is enough, else run the
// whole flow.
func (z *authorizer) authorize(ctx context.Context, ch challenge, status int) error {
	z.mu.Lock()
	defer z.mu.Unlock()
	z.load()
	if status == http.StatusUnauthorized && z.a != nil && z.a.RefreshToken != "" && z.a.AccessToken != "" {
		if err := z.refresh(ctx); err == nil {
			return nil
		}
	}
	if err := z.flow(ctx, ch); err != nil {
		return fmt.Errorf("authorize zut for mcp server %q: %w", z.server, err)
	}
	return nil
}

// resourceMetadata is RFC 9728's document (the members zut uses).
type resourceMetadata struct {
	Resource             string   `json:"resource"`
	AuthorizationServers []string `json:"authorization_servers"`
	ScopesSupported      []string `json:"scopes_supported"`
}

// serverMetadata is RFC 8414's document (the members zut uses).
type serverMetadata struct {
	Issuer                            string   `json:"issuer"`
	AuthorizationEndpoint             string   `json:"authorization_endpoint"`
	TokenEndpoint                     string   `json:"token_endpoint"`
	RegistrationEndpoint              string   `json:"registration_endpoint"`
	CodeChallengeMethodsSupported     []string `json:"code_challenge_methods_supported"`
	TokenEndpointAuthMethodsSupported []string `json:"token_endpoint_auth_methods_supported"`
	ClientIDMetadataDocumentSupported bool     `json:"client_id_metadata_document_supported"`
}

func (z *authorizer) grant() string {
	if z.preset != nil && z.preset.Grant != "" {
		return z.preset.Grant
	}
	return GrantAuthorizationCode
}

func (z *authorizer) flow(ctx context.Context, ch challenge) (err error) {
	resource := canonicalResource(z.serverURL)
	var asm *serverMetadata
	var legacy error // why the 2025-03-26 discovery is used
	prm, err := z.discoverResource(ctx, ch)
	switch {
	case err != nil && ch.resourceMetadata == "":
		// A server of revision 2025-03-26 publishes no protected resource
		// metadata: its own origin is the authorization server, with the
		// metadata at the root or, without it, the default endpoints.
		z.log.printf("oauth: %v; trying the 2025-03-26 discovery at the server's origin", err)
		legacy = err
		asm = z.discoverLegacy(ctx)
		prm = &resourceMetadata{}
	case err != nil:
		return err
	default:
		if prm.Resource != "" {
			resource = prm.Resource
		}
		if len(prm.AuthorizationServers) == 0 {
			return errors.New("the protected resource metadata names no authorization server")
		}
		if asm, err = z.discoverServer(ctx, prm.AuthorizationServers[0]); err != nil {
			return err
		}
	}
	for _, e := range []string{asm.AuthorizationEndpoint, asm.TokenEndpoint} {
		if e == "" && z.grant() != GrantAuthorizationCode {
			continue
		}
		if err := checkAuthURL(e); err != nil {
			return err
		}
	}
	scope := ch.scope
	if scope == "" {
		scope = strings.Join(prm.ScopesSupported, " ")
	}
	if z.preset != nil && z.preset.Scope != "" {
		scope = z.preset.Scope
	}
	a := &storedAuth{Resource: z.serverURL.String(), Issuer: asm.Issuer, AuthorizationEndpoint: asm.AuthorizationEndpoint,
		TokenEndpoint: asm.TokenEndpoint, Scope: scope, Grant: z.grant()}
	defer func() {
		if err != nil && legacy != nil {
			err = fmt.Errorf("%v, and the 2025-03-26 fallback at the server's origin failed: %w", legacy, err)
		}
	}()
	switch z.grant() {
	case GrantClientCredentials:
		err = z.clientCredentials(ctx, a, asm, resource)
	case GrantCrossApp:
		err = z.crossApp(ctx, a, asm, resource)
	case GrantAuthorizationCode:
		err = z.authorizationCode(ctx, a, asm, resource)
	default:
		err = fmt.Errorf("unknown grant %q in the server's \"oauth\"; use %q, %q or %q", z.grant(), GrantAuthorizationCode, GrantClientCredentials, GrantCrossApp)
	}
	if err != nil {
		return err
	}
	z.a = a
	z.save()
	z.log.printf("oauth: authorized by %s (%s)", asm.Issuer, a.Grant)
	return nil
}

// authorizationCode runs the authorization code flow with PKCE through
// the browser and a loopback redirect, registering a client first when
// none is configured.
func (z *authorizer) authorizationCode(ctx context.Context, a *storedAuth, asm *serverMetadata, resource string) error {
	if !contains(asm.CodeChallengeMethodsSupported, "S256") {
		return fmt.Errorf("the authorization server %s does not say it supports PKCE with S256 (code_challenge_methods_supported), so zut will not use it", asm.Issuer)
	}
	// Listen first: the redirect URI is part of the registration.
	port := 0
	prev := z.a
	if prev != nil && prev.Registered && prev.Issuer == asm.Issuer {
		if u, err := url.Parse(prev.RedirectURI); err == nil {
			fmt.Sscan(u.Port(), &port)
		}
	}
	ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil && port != 0 {
		ln, err = net.Listen("tcp", "127.0.0.1:0")
	}
	if err != nil {
		return fmt.Errorf("listen on 127.0.0.1 for the redirect: %w", err)
	}
	defer ln.Close()
	redirect := fmt.Sprintf("http://127.0.0.1:%d/callback", ln.Addr().(*net.TCPAddr).Port)
	a.RedirectURI = redirect

	switch {
	case z.preset != nil && z.preset.ClientID != "":
		a.ClientID, a.ClientSecret = z.preset.ClientID, z.preset.ClientSecret
	case prev != nil && prev.Registered && prev.Issuer == asm.Issuer && prev.RedirectURI == redirect && prev.ClientID != "":
		a.ClientID, a.ClientSecret, a.Registered, a.AuthMethod = prev.ClientID, prev.ClientSecret, true, prev.AuthMethod
	case asm.ClientIDMetadataDocumentSupported && z.preset != nil && z.preset.ClientMetadataURL != "":
		// Client ID Metadata Documents: the document's URL is the id.
		a.ClientID, a.AuthMethod = z.preset.ClientMetadataURL, "none"
	case asm.RegistrationEndpoint != "":
		if err := checkAuthURL(asm.RegistrationEndpoint); err != nil {
			return err
		}
		reg, err := z.register(ctx, asm, redirect)
		if err != nil {
			return err
		}
		a.ClientID, a.ClientSecret, a.AuthMethod, a.Registered = reg.ClientID, reg.ClientSecret, reg.AuthMethod, true
	default:
		return fmt.Errorf("the authorization server %s offers no dynamic client registration; register a client there with redirect URI http://127.0.0.1/callback and put its id in the server's configuration as \"oauth\": {\"client_id\": ...}", asm.Issuer)
	}
	a.AuthMethod = z.authMethod(a, asm)

	code, verifier, err := z.authorizeInBrowser(ctx, ln, a, resource)
	if err != nil {
		return err
	}
	form := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {redirect},
		"code_verifier": {verifier}, "resource": {resource}}
	return z.exchange(ctx, a, form)
}

// discoverLegacy finds the endpoints of a 2025-03-26 server: the metadata
// at its origin's well-known URI, else the default paths /authorize,
// /token and /register there (2025-03-26 authorization: fallbacks).
func (z *authorizer) discoverLegacy(ctx context.Context) *serverMetadata {
	root := z.serverURL.Scheme + "://" + z.serverURL.Host
	var m serverMetadata
	if err := z.getJSON(ctx, root+"/.well-known/oauth-authorization-server", &m); err == nil && m.AuthorizationEndpoint != "" && m.TokenEndpoint != "" {
		if m.Issuer == "" {
			m.Issuer = root
		}
		if len(m.CodeChallengeMethodsSupported) == 0 {
			m.CodeChallengeMethodsSupported = []string{"S256"} // OAuth 2.1 makes it mandatory
		}
		return &m
	} else if err != nil {
		z.log.printf("oauth: %v; using the default endpoints", err)
	}
	return &serverMetadata{Issuer: root, AuthorizationEndpoint: root + "/authorize", TokenEndpoint: root + "/token",
		RegistrationEndpoint: root + "/register", CodeChallengeMethodsSupported: []string{"S256"}}
}

// discoverResource finds the protected resource metadata: from the
// challenge's resource_metadata, else at the well-known URIs (with the
// endpoint's path, then at the root).
func (z *authorizer) discoverResource(ctx context.Context, ch challenge) (*resourceMetadata, error) {
	var candidates []string
	if ch.resourceMetadata != "" {
		candidates = append(candidates, ch.resourceMetadata)
	} else {
		root := z.serverURL.Scheme + "://" + z.serverURL.Host
		if p := strings.TrimSuffix(z.serverURL.EscapedPath(), "/"); p != "" {
			candidates = append(candidates, root+"/.well-known/oauth-protected-resource"+p)
		}
		candidates = append(candidates, root+"/.well-known/oauth-protected-resource")
	}
	var errs []string
	for _, c := range candidates {
		u, err := url.Parse(c)
		if err != nil || !sameOrigin(u, z.serverURL) && checkAuthURL(c) != nil {
			errs = append(errs, fmt.Sprintf("%s: not a usable URL", c))
			continue
		}
		var prm resourceMetadata
		if err := z.getJSON(ctx, c, &prm); err != nil {
			errs = append(errs, err.Error())
			continue
		}
		if prm.Resource != "" {
			ru, err := url.Parse(prm.Resource)
			if err != nil || !sameOrigin(ru, z.serverURL) || !strings.HasPrefix(z.serverURL.Path, strings.TrimSuffix(ru.Path, "/")) {
				return nil, fmt.Errorf("the protected resource metadata is for %q, not for %s; zut will not send it a token", prm.Resource, z.serverURL)
			}
		}
		return &prm, nil
	}
	return nil, fmt.Errorf("no protected resource metadata (%s)", strings.Join(errs, "; "))
}

// discoverServer fetches the authorization server's metadata from the
// well-known URIs in the order the MCP specification gives.
func (z *authorizer) discoverServer(ctx context.Context, issuer string) (*serverMetadata, error) {
	if err := checkAuthURL(issuer); err != nil {
		return nil, err
	}
	u, _ := url.Parse(issuer)
	root := u.Scheme + "://" + u.Host
	path := strings.TrimSuffix(u.EscapedPath(), "/")
	var candidates []string
	if path != "" {
		candidates = []string{root + "/.well-known/oauth-authorization-server" + path,
			root + "/.well-known/openid-configuration" + path,
			root + path + "/.well-known/openid-configuration"}
	} else {
		candidates = []string{root + "/.well-known/oauth-authorization-server", root + "/.well-known/openid-configuration"}
	}
	var errs []string
	for _, c := range candidates {
		var m serverMetadata
		if err := z.getJSON(ctx, c, &m); err != nil {
			errs = append(errs, err.Error())
			continue
		}
		if strings.TrimSuffix(m.Issuer, "/") != strings.TrimSuffix(issuer, "/") {
			return nil, fmt.Errorf("the metadata at %s names issuer %q, not %q", c, m.Issuer, issuer)
		}
		if m.AuthorizationEndpoint == "" || m.TokenEndpoint == "" {
			return nil, fmt.Errorf("the metadata at %s lacks authorization_endpoint or token_endpoint", c)
		}
		return &m, nil
	}
	return nil, fmt.Errorf("no authorization server metadata for %s (%s)", issuer, strings.Join(errs, "; "))
}

func (z *authorizer) getJSON(ctx context.Context, target string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "zut")
	resp, err := z.ext.Do(req)
	if err != nil {
		return fmt.Errorf("GET %s: %v", target, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: HTTP %d", target, resp.StatusCode)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return fmt.Errorf("GET %s: %v", target, err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("GET %s: not JSON: %v", target, err)
	}
	return nil
}

// registration is what dynamic client registration gave.
type registration struct {
	ClientID     string `json:"client_id"`
	ClientSecret string `json:"client_secret"`
	AuthMethod   string `json:"token_endpoint_auth_method"`
}

// register performs dynamic client registration (RFC 7591): as a public
// client when the authorization server accepts one, else with the
// secret method it supports.
func (z *authorizer) register(ctx context.Context, asm *serverMetadata, redirect string) (*registration, error) {
	endpoint := asm.RegistrationEndpoint
	method := "none"
	if m := asm.TokenEndpointAuthMethodsSupported; len(m) > 0 && !contains(m, "none") {
		method = m[0]
		for _, c := range []string{"client_secret_basic", "client_secret_post"} {
			if contains(m, c) {
				method = c
				break
			}
		}
	}
	body, _ := json.Marshal(map[string]any{
		"client_name":                "zut",
		"redirect_uris":              []string{redirect},
		"grant_types":                []string{"authorization_code", "refresh_token"},
		"response_types":             []string{"code"},
		"token_endpoint_auth_method": method,
	})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(string(body)))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := z.ext.Do(req)
	if err != nil {
		return nil, fmt.Errorf("register a client at %s: %v", endpoint, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode != http.StatusCreated && resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("register a client at %s: HTTP %d %s", endpoint, resp.StatusCode, oauthErrorText(data))
	}
	var r registration
	if err := json.Unmarshal(data, &r); err != nil || r.ClientID == "" {
		return nil, fmt.Errorf("register a client at %s: the answer has no client_id", endpoint)
	}
	z.log.printf("oauth: registered a client at %s", endpoint)
	return &r, nil
}

// exchange posts form to the token endpoint and stores the tokens in a.
func (z *authorizer) exchange(ctx context.Context, a *storedAuth, form url.Values) error {
	data, err := z.postToken(ctx, a.TokenEndpoint, form, a)
	if err != nil {
		return err
	}
	var t struct {
		AccessToken  string  `json:"access_token"`
		TokenType    string  `json:"token_type"`
		ExpiresIn    float64 `json:"expires_in"`
		RefreshToken string  `json:"refresh_token"`
		Scope        string  `json:"scope"`
	}
	if err := json.Unmarshal(data, &t); err != nil || t.AccessToken == "" {
		return fmt.Errorf("token request to %s: the answer has no access_token", a.TokenEndpoint)
	}
	if t.TokenType != "" && !strings.EqualFold(t.TokenType, "bearer") {
		return fmt.Errorf("token request to %s: token_type %q; zut sends bearer tokens only", a.TokenEndpoint, t.TokenType)
	}
	a.AccessToken = t.AccessToken
	if t.RefreshToken != "" {
		a.RefreshToken = t.RefreshToken // public clients get rotated refresh tokens
	}
	a.Expiry = time.Time{}
	if t.ExpiresIn > 0 {
		a.Expiry = time.Now().Add(time.Duration(t.ExpiresIn * float64(time.Second)))
	}
	if t.Scope != "" {
		a.Scope = t.Scope
	}
	return nil
}

// refresh uses the refresh token (z.mu held).
func (z *authorizer) refresh(ctx context.Context) error {
	if z.a == nil || z.a.RefreshToken == "" || z.a.TokenEndpoint == "" {
		return errors.New("no refresh token")
	}
	form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {z.a.RefreshToken},
		"resource": {canonicalResource(z.serverURL)}}
	a := *z.a
	if err := z.exchange(ctx, &a, form); err != nil {
		z.a.AccessToken = ""
		z.save()
		return err
	}
	z.a = &a
	z.save()
	z.log.printf("oauth: refreshed the access token")
	return nil
}

// oauthErrorText keeps only an OAuth error answer's error and
// error_description: bodies can hold secrets and are never echoed whole.
func oauthErrorText(data []byte) string {
	var e struct {
		Error       string `json:"error"`
		Description string `json:"error_description"`
	}
	if json.Unmarshal(data, &e) != nil || e.Error == "" {
		return ""
	}
	if e.Description != "" {
		return e.Error + ": " + e.Description
	}
	return e.Error
}

// canonicalResource is the server's URL without fragment, query or a
// trailing slash (authorization: canonical server URI).
func canonicalResource(u *url.URL) string {
	c := *u
	c.Fragment, c.RawFragment, c.RawQuery = "", "", ""
	c.Scheme = strings.ToLower(c.Scheme)
	c.Host = strings.ToLower(c.Host)
	s := c.String()
	return strings.TrimSuffix(s, "/")
}

// checkAuthURL accepts https URLs, and http URLs on a loopback host.
func checkAuthURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return fmt.Errorf("authorization URL %q is not an absolute URL", raw)
	}
	if u.Scheme == "https" {
		return nil
	}
	if u.Scheme == "http" && isLoopback(u.Hostname()) {
		return nil
	}
	return fmt.Errorf("authorization URL %q must use https", raw)
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// isInsufficientScope reports a 403 asking for more scope.
func isInsufficientScope(resp *http.Response) bool {
	return parseChallenge(resp.Header.Values("WWW-Authenticate")).err == "insufficient_scope"
}
