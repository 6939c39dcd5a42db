package telegram_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zut-go/zut/agent/bot"
	"github.com/zut-go/zut/agent/bot/telegram"
)

func TestClientErrorsHideToken(t *testing.T) {
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasSuffix(r.URL.Path, "/html"):
			w.WriteHeader(502)
			w.Write([]byte("<html>bad gateway for " + r.URL.Path + "</html>"))
		case strings.HasSuffix(r.URL.Path, "/describe"):
			w.WriteHeader(400)
			w.Write([]byte(`{"ok":false,"error_code":400,"description":"Bad Request: token ` + token + ` is odd"}`))
		case strings.HasSuffix(r.URL.Path, "/slow"):
			io.ReadAll(r.Body) // then the server notices the client going away
			<-r.Context().Done()
		}
	}))
	defer func() {
		echo.CloseClientConnections()
		echo.Close()
	}()
	closed := httptest.NewServer(http.NotFoundHandler())
	closedURL := closed.URL
	closed.Close()
	tests := []struct {
		name, base, method, want string
	}{
		{"connection refused", closedURL, "getMe", "telegram getMe: "},
		{"not JSON", echo.URL, "html", "502 the answer is not Bot API JSON"},
		{"description", echo.URL, "describe", "400 Bad Request: token <token> is odd"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := telegram.NewClient(tc.base, token, nil)
			err := c.Call(context.Background(), tc.method, nil, nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), token) || strings.Contains(err.Error(), "AAtest") {
				t.Errorf("Call(%s) = %v, want %q without the token", tc.method, err, tc.want)
			}
		})
	}
	t.Run("timeout", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		err := telegram.NewClient(echo.URL, token, nil).Call(ctx, "slow", nil, nil)
		var nerr *telegram.NetworkError
		if !errors.As(err, &nerr) || !errors.Is(err, context.DeadlineExceeded) || strings.Contains(err.Error(), token) {
			t.Errorf("Call(slow) = %v, want a NetworkError for the deadline", err)
		}
	})
}

func TestRetryAfter(t *testing.T) {
	err := error(&telegram.APIError{Method: "sendMessage", Code: 429, Description: "Too Many Requests: retry after 7", Wait: 7 * time.Second})
	if d, ok := bot.RetryAfter(err); !ok || d != 7*time.Second {
		t.Errorf("RetryAfter = %v, %v; want 7s", d, ok)
	}
	if _, ok := bot.RetryAfter(errors.New("x")); ok {
		t.Error("RetryAfter of a plain error reported a wait")
	}
}

func TestStoreRefusesLooseToken(t *testing.T) {
	s := telegram.Store{Dir: t.TempDir()}
	if err := s.SaveToken(token); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Token(); err != nil || got != token {
		t.Fatalf("Token = %q, %v", got, err)
	}
	os.Chmod(filepath.Join(s.Dir, "token"), 0o644)
	if _, err := s.Token(); err == nil || !strings.Contains(err.Error(), "chmod 600") {
		t.Errorf("Token of a 0644 file = %v, want a refusal", err)
	}
	os.Remove(filepath.Join(s.Dir, "token"))
	os.Symlink("/etc/passwd", filepath.Join(s.Dir, "token"))
	if _, err := s.Token(); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("Token through a symlink = %v, want a refusal", err)
	}
	os.WriteFile(filepath.Join(s.Dir, "offset"), []byte("garbage"), 0o600)
	if _, err := s.Offset(); err == nil {
		t.Error("Offset of garbage = nil error")
	}
}

func TestPairingCode(t *testing.T) {
	code, hash := telegram.NewPairingCode()
	p := telegram.Pairing{CodeHash: hash}
	for _, typed := range []string{code, strings.ToLower(code), strings.ReplaceAll(code, "-", ""), "/start " + telegram.LinkCode(code), " " + code + " "} {
		if !p.Matches(typed) {
			t.Errorf("Matches(%q) = false for code %q", typed, code)
		}
	}
	other, _ := telegram.NewPairingCode()
	if p.Matches(other) || p.Matches("") || (telegram.Pairing{}).Matches(code) {
		t.Error("Matches accepted a wrong code")
	}
}
