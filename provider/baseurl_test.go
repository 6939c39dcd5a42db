package provider

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestCheckBaseURL(t *testing.T) {
	tests := []struct {
		in      string
		wantErr string // substring; "" for a good URL
	}{
		{in: "https://api.example.com/v1"},
		{in: "http://127.0.0.1:8000/v1"},
		{in: "HTTP://localhost:8000"},
		{in: "localhost:8000", wantErr: `base URL "localhost:8000" (from --base-url): no scheme — write http://localhost:8000`},
		{in: "127.0.0.1:8000/v1", wantErr: "no scheme — write http://127.0.0.1:8000/v1"},
		{in: "htp://x", wantErr: `unknown scheme "htp" (zut speaks http and https) — write http://x`},
		{in: "htps://x/v1", wantErr: "write https://x/v1"},
		{in: "ftp://x", wantErr: `unknown scheme "ftp"`},
		{in: "https:///v1", wantErr: "no host"},
		{in: "me:hunter22@localhost:8000", wantErr: "write http://***@localhost:8000"},
		{in: "htp://me:hunter22@x", wantErr: `"htp://***@x"`},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			err := CheckBaseURL(tc.in, "--base-url")
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("CheckBaseURL(%q) = %v, want nil", tc.in, err)
				}
				return
			}
			var be *BaseURLError
			if !errors.As(err, &be) || !be.Usage() || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("CheckBaseURL(%q) = %v, want a usage error containing %q", tc.in, err, tc.wantErr)
			}
			if strings.Contains(err.Error(), "hunter22") {
				t.Errorf("CheckBaseURL(%q) = %v: prints the password", tc.in, err)
			}
		})
	}
}

func TestRedactURL(t *testing.T) {
	tests := []struct{ in, want string }{
		{"https://user:pw@host/v1", "https://***@host/v1"},
		{"https://token@host", "https://***@host"},
		{"https://host/v1?x=a@b", "https://host/v1?x=a@b"},
		{"http://host:80/a@b", "http://host:80/a@b"},
		{"no url here", "no url here"},
	}
	for _, tc := range tests {
		if got := RedactURL(tc.in); got != tc.want {
			t.Errorf("RedactURL(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestResolveBaseURLUsage: a bad base URL fails before anything is probed.
func TestResolveBaseURLUsage(t *testing.T) {
	probed := false
	o := Options{BaseURL: "localhost:8000", Probe: func(context.Context, ProviderInfo, string) ([]string, error) {
		probed = true
		return nil, errors.New("no")
	}}
	_, err := Resolve(context.Background(), o)
	var be *BaseURLError
	if !errors.As(err, &be) || probed {
		t.Fatalf("Resolve(--base-url localhost:8000) = %v (probed %v), want a BaseURLError before any probe", err, probed)
	}
	_, err = Resolve(context.Background(), Options{Provider: "openai", Getenv: envMap("OPENAI_API_KEY", "k", "OPENAI_BASE_URL", "htp://proxy")})
	if !errors.As(err, &be) || be.Source != "$OPENAI_BASE_URL" {
		t.Fatalf("Resolve(OPENAI_BASE_URL=htp://proxy) = %v, want a BaseURLError from OPENAI_BASE_URL", err)
	}
}

// TestAuthRefusalReported: an auth.json others may read is reported even
// when --base-url makes a key unnecessary, and the keyless request says
// why it has no key.
func TestAuthRefusalReported(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Unix permissions")
	}
	home := t.TempDir()
	path := filepath.Join(home, "auth.json")
	os.WriteFile(path, []byte(`{"openai":{"api_key":"sk-secret"}}`), 0o644)
	os.Chmod(path, 0o644)
	r, err := Resolve(context.Background(), Options{Home: home, BaseURL: "http://127.0.0.1:1/v1", Model: "m"})
	if err != nil {
		t.Fatalf("Resolve = %v", err)
	}
	var ae *AuthError
	if !errors.As(r.AuthErr, &ae) || !strings.Contains(r.AuthErr.Error(), "chmod 600") {
		t.Errorf("Resolved.AuthErr = %v, want the *AuthError saying chmod 600", r.AuthErr)
	}
	if !strings.Contains(r.Keyless, "without an API key (auth.json was refused") {
		t.Errorf("Resolved.Keyless = %q, want it to say the request goes out keyless because auth.json was refused", r.Keyless)
	}
}

// TestErrorsHideUserInfo: the user:password of a base URL appears in no
// error of a request.
func TestErrorsHideUserInfo(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"error":{"message":"nope"}}`, http.StatusNotFound)
	}))
	defer srv.Close()
	base := strings.Replace(srv.URL, "http://", "http://me:hunter22@", 1) + "/v1"
	c := &Chat{Config: Config{Provider: "lab", BaseURL: base, Retry: RetryPolicy{MaxAttempts: 1}}}
	s, err := c.Stream(context.Background(), &Request{Model: "m", Messages: []Message{{Role: RoleUser, Content: []Block{TextBlock("hi")}}}})
	if err == nil {
		for s.Next() {
		}
		err = s.Err()
		s.Close()
	}
	if err == nil || strings.Contains(err.Error(), "hunter22") || strings.Contains(err.Error(), "me:") {
		t.Fatalf("error = %v, want one that hides me:hunter22", err)
	}
	ids, err := ServerModels(context.Background(), nil, ProviderInfo{Name: "lab"}, strings.Replace(base, srv.URL[7:], "127.0.0.1:1", 1))
	if err == nil || strings.Contains(err.Error(), "hunter22") {
		t.Fatalf("ServerModels = %v, %v, want an error that hides the password", ids, err)
	}
}
