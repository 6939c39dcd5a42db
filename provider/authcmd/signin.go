package authcmd

import (
	"context"
	"errors"
	"fmt"
	"html"
	"net"
	"net/url"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"

	"github.com/zut-go/zut/proto/loopback"
	"github.com/zut-go/zut/provider"
)

// SignIn is one subscription sign-in under way: the link to open, and for
// ChatGPT the local callback that receives the answer. Begin starts it;
// Close stops its callback server. Its methods are for one goroutine,
// except Close, which may be called from any.
type SignIn struct {
	OAuth *provider.OAuth
	// Link is the authorization URL the user opens.
	Link string

	home string
	pkce provider.PKCE
	cb   *callback
}

// maxWait bounds the wait for the browser's answer.
const maxWait = 10 * time.Minute

// Begin starts the sign-in of provider name ("anthropic",
// "openai-codex") for home's auth.json, with the endpoints getenv names.
// For ChatGPT it starts the local callback server on 127.0.0.1.
func Begin(home, name string, getenv func(string) string) (*SignIn, error) {
	o, ok := provider.LookupOAuth(name, getenv)
	if !ok {
		return nil, usagef("%s has no subscription sign-in; zut signs in to %s (zut help auth)", name, strings.Join(provider.SignIns, " and "))
	}
	if err := o.Check(); err != nil {
		return nil, err
	}
	p, err := provider.NewPKCE()
	if err != nil {
		return nil, err
	}
	s := &SignIn{OAuth: o, home: home, pkce: p}
	if o.Form { // ChatGPT: the answer comes to a local callback
		addr := provider.CodexCallback
		if getenv != nil && strings.TrimSpace(getenv("ZUT_OPENAI_OAUTH_CALLBACK")) != "" {
			addr = strings.TrimSpace(getenv("ZUT_OPENAI_OAUTH_CALLBACK"))
		}
		cb, err := listenCallback(addr, p.State)
		if err != nil {
			return nil, err
		}
		s.cb = cb
		o.RedirectURI = provider.CodexRedirectURI(cb.ln.Addr().String())
	}
	s.Link = o.AuthorizeLink(p)
	return s, nil
}

// Pasted reports whether the user pastes the code the provider's page
// shows (Claude), rather than the browser bringing it to the callback.
func (s *SignIn) Pasted() bool { return s.cb == nil }

// Wait waits for the browser to bring the answer to the local callback
// (at most 10 minutes) and returns its code and state.
func (s *SignIn) Wait(ctx context.Context) (code, state string, err error) {
	if s.cb == nil {
		return "", "", errors.New("this sign-in takes a pasted code, not a callback")
	}
	t := time.NewTimer(maxWait)
	defer t.Stop()
	select {
	case r := <-s.cb.result:
		return r.code, r.state, r.err
	case <-ctx.Done():
		return "", "", ctx.Err()
	case <-t.C:
		return "", "", fmt.Errorf("%s sign-in: no answer from the browser within %s — run %s again", s.OAuth.Title, maxWait, s.OAuth.Login)
	}
}

// Finish trades the code for tokens and saves them in auth.json.
func (s *SignIn) Finish(ctx context.Context, code, state string) (*provider.OAuthCredential, error) {
	c, err := s.OAuth.Exchange(ctx, code, state, s.pkce)
	if err != nil {
		return nil, err
	}
	if err := provider.SaveOAuth(ctx, s.home, s.OAuth.Provider, c); err != nil {
		return nil, err
	}
	return c, nil
}

// Close stops the callback server, if any, and waits for it.
func (s *SignIn) Close() {
	if s.cb != nil {
		s.cb.close()
	}
}

// ParseCode reads what the user pasted: "code#state" as Claude's page
// shows it, or the whole address the browser was sent to
// (…?code=…&state=…).
func ParseCode(text string) (code, state string) {
	text = strings.TrimSpace(text)
	if u, err := url.Parse(text); err == nil && u.Scheme != "" && u.Query().Get("code") != "" {
		return u.Query().Get("code"), u.Query().Get("state")
	}
	code, state, _ = strings.Cut(text, "#")
	return strings.TrimSpace(code), strings.TrimSpace(state)
}

// callback is the local HTTP listener that receives the browser after a
// ChatGPT sign-in. Its goroutines end when close stops it.
type callback struct {
	ln     net.Listener
	srv    *loopback.Server
	state  string
	result chan callbackResult // one answer; buffered
}

type callbackResult struct {
	code, state string
	err         error
}

func listenCallback(addr, state string) (*callback, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("ZUT_OPENAI_OAUTH_CALLBACK=%s: %v — give host:port, as 127.0.0.1:1455", addr, err)
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return nil, fmt.Errorf("ZUT_OPENAI_OAUTH_CALLBACK=%s: the callback listens on a loopback address only, as 127.0.0.1:1455", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s for the ChatGPT sign-in's callback: %v — another program (a second zut auth login, codex login) may hold the port; close it and retry", addr, err)
	}
	cb := &callback{ln: ln, state: state, result: make(chan callbackResult, 1)}
	cb.srv = loopback.Serve(ln, provider.CodexCallbackPath, cb.serve)
	return cb, nil
}

func (cb *callback) serve(q url.Values) loopback.Page {
	if q.Get("state") != cb.state {
		// Another page's answer, or a forged one: ignore it, keep waiting.
		return loopback.Page{Status: 400, Body: page("This answer belongs to another sign-in", "zut is still waiting for the sign-in it started. Use the link zut printed.")}
	}
	res := callbackResult{code: q.Get("code"), state: q.Get("state")}
	var p loopback.Page
	if e := q.Get("error"); e != "" {
		res.err = fmt.Errorf("ChatGPT sign-in: the authorization server answered %s: %s — run zut auth login openai-codex again", e, q.Get("error_description"))
		p = loopback.Page{Body: page("Sign-in refused", html.EscapeString(e+": "+q.Get("error_description"))+". Return to zut.")}
	} else if res.code == "" {
		res.err = errors.New("ChatGPT sign-in: the browser came back without a code — run zut auth login openai-codex again")
		p = loopback.Page{Status: 400, Body: page("No code", "The answer had no code. Return to zut and sign in again.")}
	} else {
		p = loopback.Page{Body: page("Signed in", "zut has the answer. You can close this tab and return to the terminal.")}
	}
	select {
	case cb.result <- res:
	default: // an answer is already there
	}
	return p
}

func page(title, text string) string {
	return "<!doctype html><meta charset=utf-8><title>zut: " + title + "</title><h1>" + title + "</h1><p>" + text + "</p>\n"
}

func (cb *callback) close() {
	cb.srv.Close()
}

// OpenBrowser opens link with xdg-open (with a display) or open (macOS)
// when one is there, and reports whether it started one. It never fails:
// without a browser the printed link is the way.
func OpenBrowser(link string) bool {
	name := "xdg-open"
	switch runtime.GOOS {
	case "darwin":
		name = "open"
	case "linux", "freebsd", "openbsd", "netbsd":
		// Without a display xdg-open may start a text browser in this
		// very terminal.
		if os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
			return false
		}
	default:
		return false
	}
	path, err := exec.LookPath(name)
	if err != nil {
		return false
	}
	cmd := exec.Command(path, link)
	if err := cmd.Start(); err != nil {
		return false
	}
	// The opener hands the link to the browser and exits; reap it.
	go cmd.Wait()
	return true
}
