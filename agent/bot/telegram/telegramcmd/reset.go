package telegramcmd

import (
	"context"
	"fmt"
	"os"
)

// reset stops the bot and removes its directory: token, pairing, offset,
// status and log.
func reset(ctx context.Context, env Env, args []string) error {
	fs, name := flags(env, "reset")
	if err := parse(fs, args); err != nil {
		return err
	}
	botName, err := pick(env, *name)
	if err != nil {
		return err
	}
	dir := dirOf(env, botName)
	if _, running := holder(dir); running {
		msg, err := stopBot(ctx, dir)
		if err != nil {
			return fmt.Errorf("zut telegram reset: @%s: %v", botName, err)
		}
		fmt.Fprintf(env.Stdout, "@%s: %s\n", botName, msg)
	}
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("zut telegram reset: remove %s: %v", dir, err)
	}
	fmt.Fprintf(env.Stdout, "Forgot @%s: its token, pairing and state are removed from %s.\nThe bot itself still exists in Telegram: /revoke its token with @BotFather if it may have leaked. Run zut telegram setup to start over.\n", botName, dir)
	return nil
}
