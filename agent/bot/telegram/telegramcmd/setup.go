package telegramcmd

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/zut-go/zut/agent/bot/telegram"
)

// validToken reports whether s has the form of a bot token: 3 to 20
// digits, a colon, 30 to 60 letters, digits, '_' and '-'.
func validToken(s string) bool {
	id, secret, ok := strings.Cut(s, ":")
	return ok && runOf(id, 3, 20, func(c byte) bool { return c >= '0' && c <= '9' }) &&
		runOf(secret, 30, 60, func(c byte) bool { return isAlnum(c) || c == '_' || c == '-' })
}

// setup stores a token (checked with getMe) and prints a pairing code.
func setup(ctx context.Context, env Env, args []string) error {
	fs, _ := flags(env, "setup")
	repair := fs.Bool("pair", false, "print a new pairing code even when a user is paired (the new code replaces that user once sent)")
	if err := parse(fs, args); err != nil {
		return err
	}
	token := strings.TrimSpace(env.Getenv("ZUT_TELEGRAM_TOKEN"))
	if token == "" {
		var err error
		if token, err = readToken(env); err != nil {
			return err
		}
	}
	if !validToken(token) {
		return errors.New("zut telegram setup: that is not a bot token (it looks like 123456789:AA... — digits, a colon, then about 35 letters, digits, - and _); copy it again from @BotFather")
	}
	base := env.Getenv("ZUT_TELEGRAM_API_URL")
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	me, err := telegram.NewClient(base, token, nil).Me(cctx)
	var api *telegram.APIError
	switch {
	case errors.As(err, &api) && api.Unauthorized():
		return fmt.Errorf("zut telegram setup: Telegram refused the token (%d %s): copy it again from @BotFather (/mybots → your bot → API Token), or /revoke it there and use the new one", api.Code, api.Description)
	case err != nil:
		where := telegram.DefaultAPIURL
		if base != "" {
			where = base
		}
		return fmt.Errorf("zut telegram setup: could not check the token with %s: %v", where, err)
	case !me.IsBot || !validUsername(me.Username):
		return fmt.Errorf("zut telegram setup: getMe answered %q, which is not a bot with a username", me.Username)
	}
	name := me.Username
	dir := dirOf(env, name)
	if pid, running := holder(dir); running {
		return fmt.Errorf("zut telegram setup: @%s is running (pid %d); stop it first with zut telegram stop", name, pid)
	}
	store := telegram.Store{Dir: dir}
	if err := store.SaveToken(token); err != nil {
		return err
	}
	out := env.Stdout
	fmt.Fprintf(out, "Token OK: @%s (%s). Stored in %s, readable only by you.\n", name, me.FirstName, dir)
	p, err := store.Pairing()
	if err != nil {
		return err
	}
	if p.Paired() && !*repair {
		fmt.Fprintf(out, "\nStill paired with %s (Telegram user %d): the bot answers nobody else.\nTo pair someone else: zut telegram setup -pair.\n", p.UserName, p.UserID)
	} else {
		code, hash := telegram.NewPairingCode()
		np := telegram.Pairing{CodeHash: hash}
		if p.Paired() {
			// The paired user stays until the new code is used.
			np.UserID, np.UserName, np.PairedAt = p.UserID, p.UserName, p.PairedAt
		}
		if err := store.SavePairing(np); err != nil {
			return err
		}
		fmt.Fprintf(out, "\nPairing code: %s\n", code)
		fmt.Fprintf(out, "Once the bot runs, send this code to @%s in Telegram, or open\n  https://t.me/%s?start=%s\n", name, name, telegram.LinkCode(code))
		fmt.Fprintf(out, "The first person to send it becomes the only user the bot answers; keep it to yourself.\n")
	}
	fmt.Fprintf(out, "\nNext: zut telegram run (in this terminal) or zut telegram start (in the background).\n")
	return nil
}

// readToken asks for the token; on a terminal the input is not echoed.
func readToken(env Env) (string, error) {
	fmt.Fprint(env.Stderr, "Paste the token @BotFather gave you (input is hidden): ")
	defer fmt.Fprintln(env.Stderr)
	if f, ok := env.Stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		b, err := term.ReadPassword(int(f.Fd()))
		if err != nil {
			return "", fmt.Errorf("zut telegram setup: read the token: %v", err)
		}
		return strings.TrimSpace(string(b)), nil
	}
	if env.Stdin == nil {
		return "", errors.New("zut telegram setup: no token: set ZUT_TELEGRAM_TOKEN or run setup in a terminal")
	}
	line, err := bufio.NewReader(io.LimitReader(env.Stdin, 4096)).ReadString('\n')
	if err != nil && line == "" {
		return "", errors.New("zut telegram setup: no token on standard input: set ZUT_TELEGRAM_TOKEN or run setup in a terminal")
	}
	return strings.TrimSpace(line), nil
}
