package telegramcmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/zut-go/zut/agent/bot/telegram"
	"github.com/zut-go/zut/proto/regular"
)

// maxLog is the size at which start moves bot.log to bot.log.1; the bot
// that start runs caps the log at the same size as it writes (see
// cappedLog).
const maxLog = regular.MaxLog

// start runs "zut telegram run -bot NAME" as a detached daemon (its own
// session, output to bot.log) and waits until it says it runs.
func start(ctx context.Context, env Env, args []string) error {
	fs, name := flags(env, "start")
	if err := parse(fs, args); err != nil {
		return err
	}
	if !canDaemonize {
		return errors.New("zut telegram start needs Linux, macOS or a BSD; run zut telegram run under a service manager instead")
	}
	botName, err := pick(env, *name)
	if err != nil {
		return err
	}
	dir := dirOf(env, botName)
	if pid, ok := holder(dir); ok {
		fmt.Fprintf(env.Stdout, "@%s is already running (pid %d).\n", botName, pid)
		return nil
	}
	if _, err := (telegram.Store{Dir: dir}).Token(); err != nil {
		return err
	}
	if env.Executable == "" {
		return errors.New("zut telegram start: the path of the zut executable is not known")
	}
	logPath := logPath(dir)
	if fi, err := os.Stat(logPath); err == nil && fi.Size() > maxLog {
		os.Rename(logPath, logPath+".1")
	}
	logf, err := regular.OpenAppend(logPath)
	if err != nil {
		return fmt.Errorf("zut telegram start: open the log: %v", err)
	}
	defer logf.Close()
	cmd := exec.Command(env.Executable, "telegram", "run", "-bot", botName)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.Env = childEnv(env)
	detach(cmd)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("zut telegram start: %v", err)
	}
	pid := cmd.Process.Pid
	// The daemon outlives this process: it is not waited for, only
	// watched until it reports that it runs.
	deadline := time.Now().Add(60 * time.Second)
	var connecting time.Time // when it first said it connects
	for {
		st, _ := readState(dir)
		if st.State == "running" && st.PID == pid && st.Detail == detailConnecting && connecting.IsZero() {
			connecting = time.Now()
		}
		// Wait a little for the token check, so that a refused token is
		// reported here; a network that is down is not waited for.
		settled := st.Detail != detailConnecting || time.Since(connecting) > 10*time.Second
		if st.State == "running" && st.PID == pid && settled {
			cmd.Process.Release()
			fmt.Fprintf(env.Stdout, "Started @%s (pid %d): %s.\nLog: %s (zut telegram logs -f); stop it with zut telegram stop.\n", botName, pid, st.Detail, logPath)
			return nil
		}
		if reap(pid) {
			reason := "it exited at once"
			if st.State == "stopped" && st.PID == pid {
				reason = st.Reason
			}
			return fmt.Errorf("zut telegram start: @%s did not start: %s\n%s", botName, reason, tail(logPath, 5))
		}
		if time.Now().After(deadline) {
			cmd.Process.Release()
			return fmt.Errorf("zut telegram start: @%s (pid %d) has not said it runs after a minute; see zut telegram logs", botName, pid)
		}
		select {
		case <-time.After(50 * time.Millisecond):
		case <-ctx.Done():
			cmd.Process.Release()
			return ctx.Err()
		}
	}
}

// childEnv is the daemon's environment: this process's, with the
// variables the command was given.
func childEnv(env Env) []string {
	out := []string{"ZUT_HOME=" + env.ZutHome}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k != "ZUT_HOME" && k != "ZUT_TELEGRAM_API_URL" && k != "ZUT_TELEGRAM_TOKEN" {
			out = append(out, kv)
		}
	}
	if u := env.Getenv("ZUT_TELEGRAM_API_URL"); u != "" {
		out = append(out, "ZUT_TELEGRAM_API_URL="+u)
	}
	return out
}

// stopCmd stops the daemon: SIGTERM, then after 30 s SIGKILL to its
// process group.
func stopCmd(ctx context.Context, env Env, args []string) error {
	fs, name := flags(env, "stop")
	if err := parse(fs, args); err != nil {
		return err
	}
	botName, err := pick(env, *name)
	if err != nil {
		return err
	}
	msg, err := stopBot(ctx, dirOf(env, botName))
	if err != nil {
		return fmt.Errorf("zut telegram stop: @%s: %v", botName, err)
	}
	fmt.Fprintf(env.Stdout, "@%s: %s\n", botName, msg)
	return nil
}

func stopBot(ctx context.Context, dir string) (string, error) {
	pid, ok := holder(dir)
	if !ok {
		return "not running.", nil
	}
	if err := terminate(pid); err != nil {
		return "", fmt.Errorf("signal pid %d: %v", pid, err)
	}
	if waitGone(ctx, dir, pid, 30*time.Second) {
		return fmt.Sprintf("stopped (pid %d).", pid), nil
	}
	kill(pid)
	if waitGone(ctx, dir, pid, 5*time.Second) {
		st, _ := readState(dir)
		st.State, st.Stopped, st.Reason = "stopped", time.Now().UTC(), "killed by zut telegram stop: it did not stop within 30 s of SIGTERM"
		writeState(dir, st)
		return fmt.Sprintf("killed (pid %d did not stop within 30 s).", pid), nil
	}
	return "", fmt.Errorf("pid %d does not stop, even after SIGKILL", pid)
}

// waitGone waits until nobody holds the lock, reaping pid if it is a
// child.
func waitGone(ctx context.Context, dir string, pid int, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		reap(pid)
		if _, ok := holder(dir); !ok {
			reap(pid)
			return true
		}
		select {
		case <-time.After(50 * time.Millisecond):
		case <-ctx.Done():
			return false
		}
	}
	return false
}

// status says, for every bot or the one named, whether it runs and why it
// stopped last.
func status(ctx context.Context, env Env, args []string) error {
	fs, name := flags(env, "status")
	if err := parse(fs, args); err != nil {
		return err
	}
	names := bots(env)
	if *name != "" {
		n, err := pick(env, *name)
		if err != nil {
			return err
		}
		names = []string{n}
	}
	if len(names) == 0 {
		fmt.Fprintln(env.Stdout, "No Telegram bot is set up: run zut telegram setup.")
		return nil
	}
	for _, n := range names {
		fmt.Fprintln(env.Stdout, statusLine(env, n))
	}
	return nil
}

func statusLine(env Env, name string) string {
	dir := dirOf(env, name)
	st, known := readState(dir)
	p, _ := telegram.Store{Dir: dir}.Pairing()
	paired := "not paired yet"
	if p.Paired() {
		paired = "paired with " + p.UserName
	}
	if pid, ok := holder(dir); ok {
		line := fmt.Sprintf("@%s: running (pid %d", name, pid)
		if known && st.PID == pid {
			line += ", since " + st.Since.Local().Format("2006-01-02 15:04")
			if st.Detail != "" {
				line += ", " + st.Detail
			}
		}
		return line + "); " + paired + "."
	}
	switch {
	case !known:
		return fmt.Sprintf("@%s: stopped (never started); %s.", name, paired)
	case st.State == "running":
		return fmt.Sprintf("@%s: stopped: pid %d ended without saying why (it was killed, crashed or the machine restarted); see zut telegram logs. %s.", name, st.PID, upper(paired))
	}
	return fmt.Sprintf("@%s: stopped since %s: %s. %s.", name, st.Stopped.Local().Format("2006-01-02 15:04"), st.Reason, upper(paired))
}

func upper(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
