// Package authcmd is zut auth: it saves, removes and shows the API keys
// of $ZUT_HOME/auth.json (zut auth login, logout, status). The file is
// written with mode 0600 by provider.SaveAPIKey; a key typed on a
// terminal is not echoed. It imports only provider.
package authcmd

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"golang.org/x/term"

	"github.com/zut-go/zut/provider"
)

// Help is the text of zut help auth.
const Help = `zut auth — API keys saved in $ZUT_HOME/auth.json

Usage:
  zut auth login PROVIDER    save a key for PROVIDER (typed without echo, or read from stdin)
  zut auth logout PROVIDER   remove the saved key of PROVIDER
  zut auth status            where each provider's key comes from

zut reads a key from --api-key first, then the provider's variable
(ANTHROPIC_API_KEY, ...), then auth.json (mode 0600; zut refuses a file
other users can read). In the interactive UI, /login [provider] does the
same as zut auth login.

Examples:
  zut auth login anthropic
  printf '%s\n' "$KEY" | zut auth login openrouter
`

// Env is what zut auth needs from the process.
type Env struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Getenv         func(string) string
	// Home is $ZUT_HOME.
	Home string
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
		if len(rest) != 1 {
			return usagef("zut auth login needs one provider name, as in zut auth login anthropic (zut auth status lists them)")
		}
		return login(e, rest[0])
	case "logout":
		if len(rest) != 1 {
			return usagef("zut auth logout needs one provider name, as in zut auth logout anthropic")
		}
		return logout(e, rest[0])
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

func logout(e *Env, name string) error {
	p, err := provider.LookupProvider(e.Home, name)
	if err != nil {
		return err
	}
	keys, err := provider.SavedKeys(e.Home)
	if err != nil {
		return fmt.Errorf("zut auth logout %s: %w", name, err)
	}
	if _, ok := keys[p.Name]; !ok {
		fmt.Fprintf(e.Stdout, "no saved key for %s in %s\n", p.Name, provider.AuthPath(e.Home))
		return nil
	}
	if err := provider.SaveAPIKey(e.Home, p.Name, ""); err != nil {
		return fmt.Errorf("zut auth logout %s: %w", name, err)
	}
	fmt.Fprintf(e.Stdout, "removed the %s key from %s\n", p.Name, provider.AuthPath(e.Home))
	return nil
}

// status prints, for each provider, the key zut would use (masked) and
// where it comes from.
func status(e *Env) error {
	ps, err := provider.Providers(e.Home)
	if err != nil {
		return err
	}
	keys, authErr := provider.SavedKeys(e.Home)
	tw := tabwriter.NewWriter(e.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "PROVIDER\tKEY\tFROM")
	for _, p := range ps {
		key, from := "", ""
		for _, v := range p.KeyEnv {
			if k := strings.TrimSpace(e.Getenv(v)); k != "" {
				key, from = k, "$"+v
				break
			}
		}
		if key == "" && keys[p.Name] != "" {
			key, from = keys[p.Name], "auth.json"
		}
		switch {
		case key != "":
			fmt.Fprintf(tw, "%s\t%s\t%s\n", p.Name, provider.MaskKey(key), from)
		case p.Local:
			fmt.Fprintf(tw, "%s\t-\tnone needed (a local server)\n", p.Name)
		default:
			fmt.Fprintf(tw, "%s\t-\tnot set\n", p.Name)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(e.Stdout, "\nsaved keys: %s · zut auth login PROVIDER adds one; --api-key beats both\n", provider.AuthPath(e.Home))
	if authErr != nil {
		return authErr
	}
	return nil
}
