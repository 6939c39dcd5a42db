package provider

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// resolvedStreamErr sends one request through r's client and returns its error.
func resolvedStreamErr(t *testing.T, r *Resolved) error {
	t.Helper()
	s, err := r.Client.Stream(context.Background(), &Request{Messages: []Message{{Role: RoleUser, Content: []Block{TextBlock("hi")}}}})
	if err != nil {
		return err
	}
	defer s.Close()
	for s.Next() {
	}
	return s.Err()
}

// TestRejectedKeySays: a 401 says the key was rejected and where it came
// from: the flag, the variable, or auth.json.
func TestRejectedKeySays(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
		w.Write([]byte(`{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`))
	}))
	defer srv.Close()
	home := filepath.Join(t.TempDir(), "zut")
	if err := SaveAPIKey(home, "anthropic", "sk-ant-saved-key"); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		o    Options
		want string
	}{
		{"flag", Options{APIKey: "sk-ant-flag-key", Provider: "anthropic"}, "the key given with --api-key was rejected"},
		{"variable", Options{Getenv: envMap("ANTHROPIC_API_KEY", "sk-ant-env-key")}, "the key in $ANTHROPIC_API_KEY was rejected"},
		{"auth.json", Options{Home: home}, "the key saved in " + AuthPath(home) + " was rejected; replace it with zut auth login anthropic"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.o.BaseURL = srv.URL
			tc.o.Probe = fakeProbe(nil)
			if tc.o.Provider == "" {
				tc.o.Provider = "anthropic"
			}
			r, err := Resolve(context.Background(), tc.o)
			if err != nil {
				t.Fatal(err)
			}
			err = resolvedStreamErr(t, r)
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "set ANTHROPIC_API_KEY or run") {
				t.Errorf("401 error = %v, want it to say %q", err, tc.want)
			}
		})
	}
}

// TestConnErrorNamesURLSource: a refused connection names where the URL
// came from.
func TestConnErrorNamesURLSource(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + l.Addr().String()
	l.Close()
	r, err := Resolve(context.Background(), Options{Getenv: envMap("ANTHROPIC_API_KEY", "k-123456789", "ANTHROPIC_BASE_URL", dead), Probe: fakeProbe(nil)})
	if err != nil {
		t.Fatal(err)
	}
	if r.BaseURLSource != "$ANTHROPIC_BASE_URL" {
		t.Errorf("BaseURLSource = %q, want $ANTHROPIC_BASE_URL", r.BaseURLSource)
	}
	r.Client.(*Anthropic).Config.Retry = RetryPolicy{MaxAttempts: 1}
	if err := resolvedStreamErr(t, r); err == nil || !strings.Contains(err.Error(), "which comes from $ANTHROPIC_BASE_URL") {
		t.Errorf("connection error = %v, want it to name $ANTHROPIC_BASE_URL", err)
	}
}

// TestUnknownProviderPrefix: -m foo/bar with no provider foo is an error
// that lists the providers, unless a base URL or --provider says where
// such ids live.
func TestUnknownProviderPrefix(t *testing.T) {
	env := envMap("ANTHROPIC_API_KEY", "k-123456789")
	_, err := Resolve(context.Background(), Options{Model: "foo/bar", Getenv: env, Probe: fakeProbe(nil)})
	if err == nil || !strings.Contains(err.Error(), `unknown provider "foo" in --model foo/bar — use one of anthropic, openai`) {
		t.Errorf("Resolve(-m foo/bar) = %v, want an error listing the providers", err)
	}
	if _, err := Resolve(context.Background(), Options{Model: "foo/bar", BaseURL: "http://127.0.0.1:1/v1", Getenv: env, Probe: fakeProbe(nil)}); err != nil {
		t.Errorf("Resolve(-m foo/bar --base-url) = %v, want the id sent as given", err)
	}
}

// TestAuthUnknownField: a typo in auth.json is reported, as in
// models.json, naming the provider and the field.
func TestAuthUnknownField(t *testing.T) {
	home := t.TempDir()
	if err := os.WriteFile(AuthPath(home), []byte(`{"anthropic": {"apikey": "sk-ant-x"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Resolve(context.Background(), Options{Home: home, Provider: "anthropic", Probe: fakeProbe(nil)})
	if err == nil || !strings.Contains(err.Error(), `auth.json: anthropic: json: unknown field "apikey"`) {
		t.Errorf("Resolve with a typo in auth.json = %v, want the unknown field named", err)
	}
}
