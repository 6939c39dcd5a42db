package mcp

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"github.com/zut-go/zut/proto/regular"
	"io"
	"math/big"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// The token endpoint: client authentication (RFC 6749 section 2.3, RFC
// 7523 section 2.2), and the grants without a browser: client
// credentials (SEP-1046) and Enterprise-Managed Authorization (SEP-990:
// RFC 8693 token exchange at the identity provider, then the RFC 7523
// JWT bearer grant at the server's authorization server).

// authMethod chooses how client a authenticates at the token endpoint:
// the configured method, else the one its registration gave, else the
// best one the authorization server supports for what zut holds.
func (z *authorizer) authMethod(a *storedAuth, asm *serverMetadata) string {
	if z.preset != nil && z.preset.TokenEndpointAuthMethod != "" {
		return z.preset.TokenEndpointAuthMethod
	}
	if a.AuthMethod != "" {
		return a.AuthMethod
	}
	supported := asm.TokenEndpointAuthMethodsSupported
	if len(supported) == 0 {
		supported = []string{"client_secret_basic"} // RFC 8414's default
	}
	switch {
	case z.preset != nil && (z.preset.PrivateKey != "" || z.preset.PrivateKeyFile != ""):
		return "private_key_jwt"
	case a.ClientSecret == "":
		return "none"
	case contains(supported, "client_secret_basic"):
		return "client_secret_basic"
	case contains(supported, "client_secret_post"):
		return "client_secret_post"
	}
	return "client_secret_basic"
}

// postToken posts form to a token endpoint with a's client
// authentication and returns the answer's body (HTTP 200 only).
func (z *authorizer) postToken(ctx context.Context, endpoint string, form url.Values, a *storedAuth) ([]byte, error) {
	hdr := http.Header{}
	method := a.AuthMethod
	if method == "" && a.ClientSecret != "" { // stored before zut kept the method
		method = "client_secret_basic"
	}
	switch method {
	case "client_secret_basic":
		// RFC 6749 section 2.3.1: both parts form-encoded first.
		r := &http.Request{Header: hdr}
		r.SetBasicAuth(url.QueryEscape(a.ClientID), url.QueryEscape(a.ClientSecret))
	case "client_secret_post":
		form.Set("client_id", a.ClientID)
		form.Set("client_secret", a.ClientSecret)
	case "private_key_jwt":
		assertion, err := z.clientAssertion(a)
		if err != nil {
			return nil, err
		}
		form.Set("client_id", a.ClientID)
		form.Set("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer")
		form.Set("client_assertion", assertion)
	default: // "none": a public client names itself
		if a.ClientID != "" {
			form.Set("client_id", a.ClientID)
		}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, err
	}
	for k, v := range hdr {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	resp, err := z.ext.Do(req)
	if err != nil {
		return nil, fmt.Errorf("token request to %s: %v", endpoint, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("token request to %s: HTTP %d %s", endpoint, resp.StatusCode, oauthErrorText(data))
	}
	return data, nil
}

// clientCredentials gets a token for the client itself (no user).
func (z *authorizer) clientCredentials(ctx context.Context, a *storedAuth, asm *serverMetadata, resource string) error {
	if z.preset == nil || z.preset.ClientID == "" {
		return errors.New(`the client_credentials grant needs "client_id" and "client_secret" or "private_key" in the server's "oauth"`)
	}
	if asm.TokenEndpoint == "" {
		return fmt.Errorf("the authorization server %s names no token_endpoint", asm.Issuer)
	}
	a.ClientID, a.ClientSecret = z.preset.ClientID, z.preset.ClientSecret
	a.AuthMethod = z.authMethod(a, asm)
	form := url.Values{"grant_type": {"client_credentials"}, "resource": {resource}}
	if a.Scope != "" {
		form.Set("scope", a.Scope)
	}
	return z.exchange(ctx, a, form)
}

// Token types and grants of SEP-990.
const (
	grantTokenExchange = "urn:ietf:params:oauth:grant-type:token-exchange"
	grantJWTBearer     = "urn:ietf:params:oauth:grant-type:jwt-bearer"
	tokenTypeIDToken   = "urn:ietf:params:oauth:token-type:id_token"
	tokenTypeIDJAG     = "urn:ietf:params:oauth:token-type:id-jag"
)

// crossApp exchanges the user's ID token at the identity provider for an
// identity assertion grant for the server's authorization server (RFC
// 8693), then presents it there as a JWT bearer grant (RFC 7523).
func (z *authorizer) crossApp(ctx context.Context, a *storedAuth, asm *serverMetadata, resource string) error {
	idp := (*IDPConfig)(nil)
	if z.preset != nil {
		idp = z.preset.IDP
	}
	if idp == nil || idp.TokenEndpoint == "" || idp.IDToken == "" {
		return errors.New(`the cross_app grant needs "idp": {"token_endpoint", "client_id", "id_token"} in the server's "oauth"`)
	}
	if err := checkAuthURL(idp.TokenEndpoint); err != nil {
		return err
	}
	if asm.TokenEndpoint == "" {
		return fmt.Errorf("the authorization server %s names no token_endpoint", asm.Issuer)
	}
	form := url.Values{"grant_type": {grantTokenExchange}, "requested_token_type": {tokenTypeIDJAG},
		"audience": {asm.Issuer}, "resource": {resource},
		"subject_token": {idp.IDToken}, "subject_token_type": {tokenTypeIDToken}}
	if a.Scope != "" {
		form.Set("scope", a.Scope)
	}
	idpClient := &storedAuth{ClientID: idp.ClientID, ClientSecret: idp.ClientSecret}
	idpClient.AuthMethod = "none"
	if idp.ClientSecret != "" {
		idpClient.AuthMethod = "client_secret_basic"
	}
	data, err := z.postToken(ctx, idp.TokenEndpoint, form, idpClient)
	if err != nil {
		return fmt.Errorf("exchange the ID token at the identity provider: %w", err)
	}
	var x struct {
		AccessToken     string `json:"access_token"`
		IssuedTokenType string `json:"issued_token_type"`
	}
	if err := json.Unmarshal(data, &x); err != nil || x.AccessToken == "" {
		return fmt.Errorf("exchange the ID token at %s: the answer has no access_token", idp.TokenEndpoint)
	}
	if x.IssuedTokenType != "" && x.IssuedTokenType != tokenTypeIDJAG {
		return fmt.Errorf("exchange the ID token at %s: it issued a %q, not an identity assertion grant", idp.TokenEndpoint, x.IssuedTokenType)
	}
	z.log.printf("oauth: the identity provider issued an identity assertion grant")
	a.ClientID, a.ClientSecret = z.preset.ClientID, z.preset.ClientSecret
	a.AuthMethod = z.authMethod(a, asm)
	grant := url.Values{"grant_type": {grantJWTBearer}, "assertion": {x.AccessToken}}
	if a.Scope != "" {
		grant.Set("scope", a.Scope)
	}
	return z.exchange(ctx, a, grant)
}

// clientAssertion signs the JWT of private_key_jwt: issued by the client
// about itself, for the authorization server (its issuer), valid for five
// minutes.
func (z *authorizer) clientAssertion(a *storedAuth) (string, error) {
	pemText := z.preset.PrivateKey
	if pemText == "" && z.preset.PrivateKeyFile != "" {
		b, err := regular.Read(z.preset.PrivateKeyFile, 1<<20)
		if err != nil {
			return "", fmt.Errorf("read the private key: %w", err)
		}
		pemText = string(b)
	}
	key, err := parsePrivateKey(pemText)
	if err != nil {
		return "", err
	}
	aud := a.Issuer
	if aud == "" {
		aud = a.TokenEndpoint
	}
	now := time.Now()
	claims := map[string]any{"iss": a.ClientID, "sub": a.ClientID, "aud": aud,
		"iat": now.Unix(), "exp": now.Add(5 * time.Minute).Unix(), "jti": randomString(16)}
	return signJWT(key, z.preset.SigningAlgorithm, claims)
}

// parsePrivateKey reads a PEM private key: PKCS #8, SEC 1 (EC) or PKCS #1
// (RSA).
func parsePrivateKey(text string) (crypto.Signer, error) {
	block, _ := pem.Decode([]byte(text))
	if block == nil {
		return nil, errors.New(`the private key is not PEM; give the "-----BEGIN PRIVATE KEY-----" text`)
	}
	if k, err := x509.ParsePKCS8PrivateKey(block.Bytes); err == nil {
		if s, ok := k.(crypto.Signer); ok {
			return s, nil
		}
		return nil, fmt.Errorf("the private key is a %T, which zut cannot sign with", k)
	}
	if k, err := x509.ParseECPrivateKey(block.Bytes); err == nil {
		return k, nil
	}
	if k, err := x509.ParsePKCS1PrivateKey(block.Bytes); err == nil {
		return k, nil
	}
	return nil, errors.New("the private key is neither PKCS #8, SEC 1 nor PKCS #1")
}

// signJWT signs claims with key as a compact JWS; alg is ES256 (the
// default), ES384 or RS256, and must match the key.
func signJWT(key crypto.Signer, alg string, claims map[string]any) (string, error) {
	if alg == "" {
		alg = "ES256"
		if _, ok := key.(*rsa.PrivateKey); ok {
			alg = "RS256"
		}
	}
	header, _ := json.Marshal(map[string]string{"alg": alg, "typ": "JWT"})
	payload, err := json.Marshal(claims)
	if err != nil {
		return "", err
	}
	input := base64.RawURLEncoding.EncodeToString(header) + "." + base64.RawURLEncoding.EncodeToString(payload)
	var sig []byte
	switch k := key.(type) {
	case *ecdsa.PrivateKey:
		var digest []byte
		size := 32
		switch alg {
		case "ES256":
			d := sha256.Sum256([]byte(input))
			digest = d[:]
		case "ES384":
			d := sha512.Sum384([]byte(input))
			digest, size = d[:], 48
		default:
			return "", fmt.Errorf("signing algorithm %q does not fit an EC key; use ES256 or ES384", alg)
		}
		r, s, err := ecdsa.Sign(rand.Reader, k, digest)
		if err != nil {
			return "", err
		}
		sig = append(fixed(r, size), fixed(s, size)...) // RFC 7518 section 3.4
	case *rsa.PrivateKey:
		if alg != "RS256" {
			return "", fmt.Errorf("signing algorithm %q does not fit an RSA key; use RS256", alg)
		}
		d := sha256.Sum256([]byte(input))
		sig, err = rsa.SignPKCS1v15(rand.Reader, k, crypto.SHA256, d[:])
		if err != nil {
			return "", err
		}
	default:
		return "", fmt.Errorf("zut cannot sign with a %T key; use an EC or RSA key", key)
	}
	return input + "." + base64.RawURLEncoding.EncodeToString(sig), nil
}

// fixed is n as a big-endian number of exactly size bytes.
func fixed(n *big.Int, size int) []byte {
	b := make([]byte, size)
	return n.FillBytes(b)
}
