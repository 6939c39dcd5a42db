// Package authcmd is zut auth: it saves, removes and shows the
// credentials of $ZUT_HOME/auth.json (zut auth login, logout, status):
// API keys, and the subscription sign-ins of Claude Pro/Max (a code the
// user pastes) and ChatGPT (a local callback on 127.0.0.1). The file is
// written with mode 0600 by provider; a key typed on a terminal is not
// echoed. The interactive UI's /login uses Save and Begin. It imports
// only provider.
package authcmd

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"golang.org/x/term"

	"github.com/zut-go/zut/provider"
)

// Help is the text of zut help auth.
const Help = `zut auth — API keys and subscription sign-ins saved in $ZUT_HOME/auth.json

Usage:
  zut auth login PROVIDER                   save a key for PROVIDER (typed without echo, or read from stdin)
  zut auth login anthropic --subscription   sign in with Claude Pro/Max: open the printed link,
                                            authorize, paste the code the page shows (code#state)
  zut auth login openai-codex               sign in with ChatGPT (Plus, Pro, ...) for the Codex models:
                                            open the printed link; the browser comes back to
                                            zut on 127.0.0.1:1455
  zut auth logout PROVIDER                  remove the key or sign-in of PROVIDER (a sign-in is
                                            revoked where the provider offers it)
  zut auth status                           each provider's credential: kind, account, expiry

Sign-ins:
  anthropic --subscription   Claude Pro/Max: requests go to api.anthropic.com with the token
  openai-codex (chatgpt)     ChatGPT: requests go to the Codex backend (zut -m openai-codex/gpt-5.3-codex)

zut reads a key from --api-key first, then the provider's variable
(ANTHROPIC_API_KEY, ...), then auth.json (mode 0600; zut refuses a file
other users can read). A sign-in's token is renewed before it expires and
when the API refuses it, under a lock, so several zut processes share one
renewal. A browser opens where xdg-open or open can start one; otherwise
open the printed link yourself. The ZUT_*_OAUTH_* variables point the
sign-ins at other endpoints (zut help env). In the interactive UI, /login
does the same as zut auth login.

Examples:
  zut auth login anthropic
  printf '%s\n' "$KEY" | zut auth login openrouter
  zut auth login anthropic --subscription
  zut auth login openai-codex
`

// Env is what zut auth needs from the process.
type Env struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Getenv         func(string) string
	// Home is $ZUT_HOME.
	Home string
	// OpenBrowser opens a sign-in link and reports whether it could; nil
	// uses OpenBrowser (xdg-open or open).
	OpenBrowser func(link string) bool
}

// UsageError is an error in how zut auth was invoked; its ExitCode is 2.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }
func (e *UsageError) ExitCode() int { return 2 }

func usagef(format string, args ...any) error {
	return &UsageError{Msg: fmt.Sprintf(format, args...)}
}

// maxKey bounds a key read from stdin.
const maxKey = 16 << 10

// Run runs zut auth VERB [args].
func Run(ctx context.Context, e *Env, args []string) error {
	if len(args) == 0 {
		return usagef("zut auth needs a verb: login, logout or status (zut help auth)")
	}
	verb, rest := args[0], args[1:]
	switch verb {
	case "help", "-h", "--help":
		_, err := io.WriteString(e.Stdout, Help)
		return err
	case "login":
		sub := slices.Contains(rest, "--subscription")
		rest = slices.DeleteFunc(slices.Clone(rest), func(a string) bool { return a == "--subscription" })
		if len(rest) == 1 && strings.HasPrefix(rest[0], "-") {
			return usagef("zut auth login: unknown flag %s; the one flag is --subscription (zut help auth)", rest[0])
		}
		if len(rest) != 1 {
			return usagef("zut auth login needs one provider name, as in zut auth login anthropic (zut auth status lists them)")
		}
		name := rest[0]
		if o, ok := provider.LookupOAuth(name, nil); ok && (sub || o.Provider == "openai-codex") {
			return signIn(ctx, e, o.Provider)
		}
		if sub {
			return usagef("%s has no subscription sign-in; zut signs in to Claude Pro/Max (zut auth login anthropic --subscription) and ChatGPT (zut auth login openai-codex)", name)
		}
		return login(e, name)
	case "logout":
		if len(rest) != 1 {
			return usagef("zut auth logout needs one provider name, as in zut auth logout anthropic")
		}
		return logout(ctx, e, rest[0])
	case "status":
		if len(rest) != 0 {
			return usagef("zut auth status takes no arguments, got %q", rest[0])
		}
		return status(e)
	}
	return usagef("unknown zut auth verb %q; use login, logout or status (zut help auth)", verb)
}

// Save checks key and saves it for the provider name in home's auth.json;
// it returns the provider's canonical name and a note to show when a
// variable set in the environment will still take precedence.
func Save(home, name, key string, getenv func(string) string) (saved, note string, err error) {
	p, err := provider.LookupProvider(home, name)
	if err != nil {
		return "", "", err
	}
	key = strings.TrimSpace(key)
	switch {
	case key == "":
		return "", "", errors.New("no key given; nothing was saved")
	case strings.ContainsAny(key, " \t\r\n"):
		return "", "", errors.New("the key has spaces in it; paste the key alone")
	}
	if err := provider.SaveAPIKey(home, p.Name, key); err != nil {
		return "", "", err
	}
	for _, v := range p.KeyEnv {
		if getenv != nil && getenv(v) != "" {
			note = fmt.Sprintf("$%s is set and comes first; unset it to use the saved key", v)
			break
		}
	}
	return p.Name, note, nil
}

func login(e *Env, name string) error {
	if _, err := provider.LookupProvider(e.Home, name); err != nil {
		return err
	}
	var key string
	if f, ok := e.Stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		fmt.Fprintf(e.Stderr, "API key for %s (not shown): ", name)
		b, err := term.ReadPassword(int(f.Fd()))
		fmt.Fprintln(e.Stderr)
		if err != nil {
			return fmt.Errorf("read the key: %w", err)
		}
		key = string(b)
	} else {
		line, err := bufio.NewReader(io.LimitReader(e.Stdin, maxKey)).ReadString('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("read the key from stdin: %w", err)
		}
		key = line
	}
	saved, note, err := Save(e.Home, name, key, e.Getenv)
	if err != nil {
		return fmt.Errorf("zut auth login %s: %w", name, err)
	}
	fmt.Fprintf(e.Stdout, "saved the %s key in %s (mode 0600)\n", saved, provider.AuthPath(e.Home))
	if note != "" {
		fmt.Fprintf(e.Stdout, "note: %s\n", note)
	}
	return nil
}

// signIn runs the subscription sign-in of provider name: print the link
// (and open a browser where one can be), then take the pasted code
// (Claude) or wait for the callback (ChatGPT), trade it and save it.
func signIn(ctx context.Context, e *Env, name string) error {
	s, err := Begin(e.Home, name, e.Getenv)
	if err != nil {
		return err
	}
	defer s.Close()
	o := s.OAuth
	if s.Pasted() {
		fmt.Fprintf(e.Stdout, "Sign in with %s: open this link, authorize zut, then paste the code the page shows (code#state).\n\n  %s\n\n", o.Title, s.Link)
	} else {
		fmt.Fprintf(e.Stdout, "Sign in with %s: open this link and authorize zut; the browser then comes back to zut on this machine.\n\n  %s\n\n", o.Title, s.Link)
	}
	open := e.OpenBrowser
	if open == nil {
		open = OpenBrowser
	}
	if open(s.Link) {
		fmt.Fprintln(e.Stdout, "(a browser was asked to open it)")
	} else {
		fmt.Fprintln(e.Stdout, "(no browser could be opened here: open the link on any machine; for ChatGPT the browser must reach this machine's 127.0.0.1)")
	}
	var code, state string
	if s.Pasted() {
		fmt.Fprint(e.Stderr, "Code: ")
		line, err := bufio.NewReader(io.LimitReader(e.Stdin, maxKey)).ReadString('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("read the code: %w", err)
		}
		code, state = ParseCode(line)
	} else {
		fmt.Fprintln(e.Stdout, "Waiting for the browser (Ctrl+C stops)...")
		if code, state, err = s.Wait(ctx); err != nil {
			if ctx.Err() != nil {
				return fmt.Errorf("%s sign-in stopped before the browser came back; run %s to try again", o.Title, o.Login)
			}
			return err
		}
	}
	c, err := s.Finish(ctx, code, state)
	if err != nil {
		return err
	}
	who := ""
	if c.Account != "" {
		who = " as " + c.Account
	}
	fmt.Fprintf(e.Stdout, "signed in to %s%s; the sign-in is saved in %s (mode 0600) and renewed before it expires\n", o.Title, who, provider.AuthPath(e.Home))
	if p, err := provider.LookupProvider(e.Home, o.Provider); err == nil {
		for _, v := range p.KeyEnv {
			if e.Getenv != nil && e.Getenv(v) != "" {
				fmt.Fprintf(e.Stdout, "note: $%s is set and comes first; unset it to use the sign-in\n", v)
				break
			}
		}
	}
	if o.Provider == "openai-codex" {
		fmt.Fprintln(e.Stdout, "use it with: zut --provider openai-codex (zut --list-models --provider openai-codex lists the models)")
	}
	return nil
}

func logout(ctx context.Context, e *Env, name string) error {
	p, err := provider.LookupProvider(e.Home, name)
	if err != nil {
		return err
	}
	if o, ok := provider.LookupOAuth(p.Name, e.Getenv); ok {
		c, err := provider.RemoveSignIn(ctx, e.Home, p.Name)
		if err != nil {
			return fmt.Errorf("zut auth logout %s: %w", name, err)
		}
		if c != nil {
			fmt.Fprintf(e.Stdout, "removed the %s sign-in from %s\n", o.Title, provider.AuthPath(e.Home))
			switch err := o.Revoke(ctx, c); {
			case errors.Is(err, provider.ErrNoRevoke):
				fmt.Fprintf(e.Stdout, "note: %s offers no revocation endpoint zut knows, so the grant was not revoked; revoke it in the account's settings if you need to\n", o.Title)
			case err != nil:
				return fmt.Errorf("zut auth logout %s: the sign-in was removed, but revoking it failed: %w", name, err)
			default:
				fmt.Fprintf(e.Stdout, "revoked the %s sign-in at %s\n", o.Title, provider.RedactURL(o.RevokeURL))
			}
			return nil
		}
	}
	keys, err := provider.SavedKeys(e.Home)
	if err != nil {
		return fmt.Errorf("zut auth logout %s: %w", name, err)
	}
	if _, ok := keys[p.Name]; !ok {
		fmt.Fprintf(e.Stdout, "no saved key or sign-in for %s in %s\n", p.Name, provider.AuthPath(e.Home))
		return nil
	}
	if err := provider.SaveAPIKey(e.Home, p.Name, ""); err != nil {
		return fmt.Errorf("zut auth logout %s: %w", name, err)
	}
	fmt.Fprintf(e.Stdout, "removed the %s key from %s\n", p.Name, provider.AuthPath(e.Home))
	return nil
}

// status prints, for each provider, the credential zut would use: its
// kind, the key or token (masked), where it comes from, and for a
// sign-in the account and the expiry.
func status(e *Env) error {
	ps, err := provider.Providers(e.Home)
	if err != nil {
		return err
	}
	saved, authErr := provider.SavedCredentials(e.Home)
	tw := tabwriter.NewWriter(e.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "PROVIDER\tKIND\tCREDENTIAL\tFROM\tACCOUNT, EXPIRY")
	now := time.Now()
	for _, p := range ps {
		key, from := "", ""
		for _, v := range p.KeyEnv {
			if k := strings.TrimSpace(e.Getenv(v)); k != "" {
				key, from = k, "$"+v
				break
			}
		}
		c, ok := saved[p.Name]
		switch {
		case key != "":
			fmt.Fprintf(tw, "%s\tkey\t%s\t%s\n", p.Name, provider.MaskKey(key), from)
		case ok && c.Kind == "key":
			fmt.Fprintf(tw, "%s\tkey\t%s\tauth.json\n", p.Name, c.Masked)
		case ok:
			fmt.Fprintf(tw, "%s\tsubscription\t%s\tauth.json\t%s\n", p.Name, c.Masked, signInDetail(c, now))
		case p.Local:
			fmt.Fprintf(tw, "%s\t-\t-\tnone needed (a local server)\n", p.Name)
		default:
			if o, ok := provider.LookupOAuth(p.Name, nil); ok && len(p.KeyEnv) == 0 {
				fmt.Fprintf(tw, "%s\t-\t-\tnot signed in (%s)\n", p.Name, o.Login)
				continue
			}
			fmt.Fprintf(tw, "%s\t-\t-\tnot set\n", p.Name)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(e.Stdout, "\nsaved in %s · zut auth login PROVIDER adds a key, zut auth login anthropic --subscription or openai-codex signs in; --api-key beats both\n", provider.AuthPath(e.Home))
	if authErr != nil {
		return authErr
	}
	return nil
}

// signInDetail is the account and expiry of a sign-in for zut auth
// status.
func signInDetail(c provider.Credential, now time.Time) string {
	var parts []string
	if c.Account != "" {
		parts = append(parts, c.Account)
	}
	switch {
	case c.Expires.IsZero():
		parts = append(parts, "expiry unknown")
	case c.Expires.After(now):
		parts = append(parts, "expires "+c.Expires.UTC().Format("2006-01-02 15:04 UTC"))
	case c.Renewable:
		parts = append(parts, "expired "+c.Expires.UTC().Format("2006-01-02 15:04 UTC")+", renewed on next use")
	default:
		parts = append(parts, "expired; sign in again")
	}
	return strings.Join(parts, ", ")
}
