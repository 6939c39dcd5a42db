package mcp

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// TestTokenEndpointAuth: each client authentication method puts the
// client's credentials where RFC 6749 and RFC 7523 say, and only there.
func TestTokenEndpointAuth(t *testing.T) {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	der, _ := x509.MarshalPKCS8PrivateKey(key)
	pemKey := string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
	type seen struct {
		basicUser, basicPass string
		form                 url.Values
	}
	var got seen
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		got = seen{form: r.PostForm}
		got.basicUser, got.basicPass, _ = r.BasicAuth()
		w.Write([]byte(`{"access_token":"t","token_type":"Bearer"}`))
	}))
	defer srv.Close()
	tests := []struct {
		method, secret string
		check          func(seen) string
	}{
		{"client_secret_basic", "s&cret", func(s seen) string {
			if s.basicUser != "id%3A1" || s.basicPass != "s%26cret" || s.form.Has("client_secret") {
				return "want the form-encoded id and secret in Basic auth only"
			}
			return ""
		}},
		{"client_secret_post", "s&cret", func(s seen) string {
			if s.basicUser != "" || s.form.Get("client_id") != "id:1" || s.form.Get("client_secret") != "s&cret" {
				return "want client_id and client_secret in the body only"
			}
			return ""
		}},
		{"none", "", func(s seen) string {
			if s.basicUser != "" || s.form.Get("client_id") != "id:1" || s.form.Has("client_secret") {
				return "want client_id alone"
			}
			return ""
		}},
		{"private_key_jwt", "", func(s seen) string {
			if s.form.Get("client_assertion_type") != "urn:ietf:params:oauth:client-assertion-type:jwt-bearer" {
				return "want the JWT bearer assertion type"
			}
			claims, err := verifyES256(s.form.Get("client_assertion"), &key.PublicKey)
			if err != nil {
				return err.Error()
			}
			if claims["iss"] != "id:1" || claims["sub"] != "id:1" || claims["aud"] != "https://as.example" || claims["jti"] == "" {
				return "claims " + strings.TrimSpace(string(mustJSON(claims)))
			}
			return ""
		}},
	}
	for _, tc := range tests {
		t.Run(tc.method, func(t *testing.T) {
			z := &authorizer{ext: srv.Client(), preset: &OAuthConfig{PrivateKey: pemKey}}
			a := &storedAuth{ClientID: "id:1", ClientSecret: tc.secret, AuthMethod: tc.method, Issuer: "https://as.example", TokenEndpoint: srv.URL}
			if _, err := z.postToken(context.Background(), srv.URL, url.Values{"grant_type": {"client_credentials"}}, a); err != nil {
				t.Fatal(err)
			}
			if msg := tc.check(got); msg != "" {
				t.Errorf("%s: %s; the server saw Basic %q:%q and the form %v", tc.method, msg, got.basicUser, got.basicPass, got.form)
			}
		})
	}
}

// TestAuthMethodChoice: the registration's method wins, else what the
// server supports for what zut holds.
func TestAuthMethodChoice(t *testing.T) {
	tests := []struct {
		registered, secret string
		supported          []string
		want               string
	}{
		{"client_secret_post", "s", []string{"client_secret_basic"}, "client_secret_post"},
		{"", "s", []string{"client_secret_post"}, "client_secret_post"},
		{"", "s", nil, "client_secret_basic"},
		{"", "", []string{"client_secret_basic"}, "none"},
	}
	for _, tc := range tests {
		z := &authorizer{}
		got := z.authMethod(&storedAuth{AuthMethod: tc.registered, ClientSecret: tc.secret}, &serverMetadata{TokenEndpointAuthMethodsSupported: tc.supported})
		if got != tc.want {
			t.Errorf("authMethod(registered %q, secret %q, supported %v) = %q, want %q", tc.registered, tc.secret, tc.supported, got, tc.want)
		}
	}
}

func TestSignJWTRSA(t *testing.T) {
	key, _ := rsa.GenerateKey(rand.Reader, 2048)
	tok, err := signJWT(key, "", map[string]any{"iss": "x"})
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(tok, ".")
	sig, _ := base64.RawURLEncoding.DecodeString(parts[2])
	sum := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if err := rsa.VerifyPKCS1v15(&key.PublicKey, crypto.SHA256, sum[:], sig); err != nil {
		t.Errorf("the RS256 signature does not verify: %v", err)
	}
	if _, err := signJWT(key, "ES256", nil); err == nil {
		t.Error("signJWT(RSA key, ES256) succeeded, want an error")
	}
}

func verifyES256(tok string, pub *ecdsa.PublicKey) (map[string]any, error) {
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		return nil, errString("not a compact JWS")
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil || len(sig) != 64 {
		return nil, errString("the signature is not 64 bytes")
	}
	sum := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	r, s := new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])
	if !ecdsa.Verify(pub, sum[:], r, s) {
		return nil, errString("the ES256 signature does not verify")
	}
	body, _ := base64.RawURLEncoding.DecodeString(parts[1])
	var claims map[string]any
	return claims, json.Unmarshal(body, &claims)
}

type errString string

func (e errString) Error() string { return string(e) }

func mustJSON(v any) []byte { b, _ := json.Marshal(v); return b }
