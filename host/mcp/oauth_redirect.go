package mcp

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os/exec"
	"runtime"
	"sync"
	"time"

	"github.com/zut-go/zut/host/procgroup"
	"github.com/zut-go/zut/proto/loopback"
)

// authorizeInBrowser sends the user to the authorization endpoint and
// waits for the redirect to the loopback listener ln. It returns the
// authorization code and the PKCE verifier it was issued for.
func (z *authorizer) authorizeInBrowser(ctx context.Context, ln net.Listener, a *storedAuth, resource string) (code, verifier string, err error) {
	verifier = randomString(32)
	sum := sha256.Sum256([]byte(verifier))
	challenge := base64.RawURLEncoding.EncodeToString(sum[:])
	state := randomString(16)

	q := url.Values{"response_type": {"code"}, "client_id": {a.ClientID}, "redirect_uri": {a.RedirectURI},
		"code_challenge": {challenge}, "code_challenge_method": {"S256"}, "state": {state}, "resource": {resource}}
	if a.Scope != "" {
		q.Set("scope", a.Scope)
	}
	authURL, err := url.Parse(a.AuthorizationEndpoint)
	if err != nil {
		return "", "", err
	}
	for k, v := range authURL.Query() { // keep the endpoint's own query
		if q.Get(k) == "" {
			q[k] = v
		}
	}
	authURL.RawQuery = q.Encode()

	type answer struct {
		code string
		err  error
	}
	got := make(chan answer, 1)
	var once sync.Once
	srv := loopback.Serve(ln, "/callback", func(p url.Values) loopback.Page {
		if subtle.ConstantTimeCompare([]byte(p.Get("state")), []byte(state)) != 1 {
			return loopback.Page{Status: 400, ContentType: "text/plain; charset=utf-8",
				Body: "zut: this authorization answer does not belong to the request zut made; ignored.\n"}
		}
		var ans answer
		switch {
		case p.Get("error") != "":
			ans.err = fmt.Errorf("the authorization server refused: %s %s", p.Get("error"), p.Get("error_description"))
		case p.Get("code") == "":
			ans.err = errors.New("the redirect carried no authorization code")
		default:
			ans.code = p.Get("code")
		}
		once.Do(func() { got <- ans })
		if ans.err != nil {
			return loopback.Page{Status: 400, Body: "<!doctype html><title>zut</title><p>Authorization failed. Return to zut for details.</p>"}
		}
		return loopback.Page{Body: "<!doctype html><title>zut</title><p>zut is authorized. You can close this window.</p>"}
	})
	defer srv.Close()

	z.log.printf("oauth: waiting for the user to authorize at %s", a.AuthorizationEndpoint)
	if z.prompt != nil {
		z.prompt(z.server, authURL.String())
	}
	opened := make(chan struct{})
	if z.open != nil {
		go func() {
			defer close(opened)
			z.open(ctx, authURL.String())
		}()
	} else {
		close(opened)
	}
	defer func() { <-opened }()
	if z.prompt == nil && z.open == nil {
		return "", "", errors.New("it needs authorization in a browser, and nobody can be asked here; run `zut mcp doctor` in a terminal to authorize it")
	}

	timer := time.NewTimer(z.timeout)
	defer timer.Stop()
	select {
	case ans := <-got:
		return ans.code, verifier, ans.err
	case <-ctx.Done():
		return "", "", fmt.Errorf("waiting for the browser: %w", ctx.Err())
	case <-timer.C:
		return "", "", fmt.Errorf("nobody authorized zut in the browser within %v", z.timeout)
	}
}

func randomString(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// OpenBrowser returns a function that opens a URL in the user's browser
// with xdg-open (or open on macOS), or nil when no display is present, so
// that only the printed URL remains. getenv reads DISPLAY and
// WAYLAND_DISPLAY.
func OpenBrowser(getenv func(string) string) func(ctx context.Context, url string) {
	var name string
	switch runtime.GOOS {
	case "darwin":
		name = "open"
	case "linux", "freebsd", "openbsd", "netbsd":
		if getenv("DISPLAY") == "" && getenv("WAYLAND_DISPLAY") == "" {
			return nil
		}
		name = "xdg-open"
	default:
		return nil
	}
	path, err := exec.LookPath(name)
	if err != nil {
		return nil
	}
	return func(ctx context.Context, u string) {
		ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		cmd := procgroup.Command(ctx, path, u)
		_ = cmd.Run()
	}
}
