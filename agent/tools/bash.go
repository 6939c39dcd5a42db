package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/zut-go/zut/agent/sandbox"
	"github.com/zut-go/zut/provider"
)

// Limits and timings of the bash tool.
const (
	bashMaxLines    = 2000
	bashMaxBytes    = 50 << 10
	bashMaxTimeout  = 86400                  // seconds
	bashProgress    = 100 * time.Millisecond // progress throttle
	bashDrain       = 200 * time.Millisecond // reading on after the shell exits
	bashKillGrace   = 2 * time.Second        // between SIGTERM and SIGKILL
	progressLines   = 20
	progressBytes   = 4 << 10
	bashPollGroupMs = 20
)

// bashTool runs a shell command.
//
// The command runs as "<shell> -c command" in the working directory, in a
// process group of its own, with stdin from /dev/null and stdout and
// stderr merged into one pipe. Run returns as soon as the shell exits: it
// reads what is left in the pipe for a moment, then stops, so a background
// process that keeps the pipe open does not hold the call. Background
// processes left running by a command that exits normally are not killed;
// on timeout or abort the whole process group is sent SIGTERM, then
// SIGKILL after a grace period.
type bashTool struct{ cfg Config }

// BashDetails is the Details of a bash call.
type BashDetails struct {
	ExitCode int  `json:"exit_code"`
	TimedOut bool `json:"timed_out,omitempty"`
	Aborted  bool `json:"aborted,omitempty"`
	// FullOutput is the file holding the whole output when the text sent
	// to the model was cut.
	FullOutput string `json:"full_output,omitempty"`
	// Sandbox is the sandbox mode the command ran in ("" for none).
	Sandbox string `json:"sandbox,omitempty"`
	// Blocked are the sandbox's refusals read in the output
	// ("blocked by the sandbox: write outside the workspace: /etc/x").
	Blocked []string `json:"blocked,omitempty"`
	// Unconfined says the user had the blocked command run again
	// without the sandbox; the result is that run's.
	Unconfined bool `json:"unconfined,omitempty"`
}

func (t *bashTool) Definition() provider.Tool {
	return provider.Tool{Name: "bash", Description: BashDescription, Schema: json.RawMessage(BashSchema)}
}

// What the model is told of the bash tool: constant data, so that offering
// the tool runs no code of this package (TestToolDefinitions).
const (
	BashDescription = "Run a shell command with bash -c in the working directory. stdout and stderr are merged; stdin is empty (commands cannot prompt). Output over 2000 lines or 50 KiB keeps its head and tail, and the full output is saved to a file whose path is given. A non-zero exit adds [exit N]. timeout is required: when it passes, the command and all its child processes are killed. Background processes you start survive the call; redirect their output to a file."
	BashSchema      = `{"additionalProperties":false,"properties":{"command":{"description":"The command line to run.","type":"string"},"timeout":{"description":"Seconds before the command is killed.","maximum":86400,"minimum":1,"type":"integer"}},"required":["command","timeout"],"type":"object"}`
)

func (t *bashTool) Preview(raw json.RawMessage) string {
	a, err := parseArgs("bash", raw, "command", "timeout")
	if err != nil {
		return "bash (bad arguments)"
	}
	c, _ := a.str("command", false)
	return "$ " + firstLine(c, 120)
}

func (t *bashTool) Mutates(json.RawMessage) bool { return true }

// Describe is the whole command line, for the confirmation dialog.
func (t *bashTool) Describe(raw json.RawMessage) string {
	command, _, _ := parseBash(raw)
	return command
}

// Validate reports what Run would reject in the arguments.
func (t *bashTool) Validate(raw json.RawMessage) error {
	command, _, err := parseBash(raw)
	if err != nil {
		return err
	}
	return t.cfg.checkCommand(command)
}

// checkCommand is the scope's verdict on a command line (nil: it may run).
func (cfg Config) checkCommand(command string) error {
	if cfg.Scope == nil || cfg.Scope.Commands == nil {
		return nil
	}
	if err := cfg.Scope.Commands(command); err != nil {
		return fmt.Errorf("bash: %v; the command was not run", err)
	}
	return nil
}

// parseBash checks the arguments of a bash call.
func parseBash(raw json.RawMessage) (command string, secs int, err error) {
	a, err := parseArgs("bash", raw, "command", "timeout")
	if err != nil {
		return "", 0, err
	}
	command, err = a.str("command", true)
	if err != nil {
		return "", 0, err
	}
	if strings.TrimSpace(command) == "" {
		return command, 0, badArg("bash", "command is empty; give the command line to run")
	}
	if !a.present("timeout") {
		return command, 0, badArg("bash", "timeout is required: a positive integer number of seconds after which the command is killed")
	}
	secs, err = a.integer("timeout", 0, 1, bashMaxTimeout, fmt.Sprintf("a positive integer number of seconds (at most %d)", bashMaxTimeout))
	return command, secs, err
}

func (t *bashTool) Run(ctx context.Context, raw json.RawMessage, progress func(string)) Result {
	command, secs, err := parseBash(raw)
	if err != nil {
		return errorResult("%v", err)
	}
	if err := t.cfg.checkCommand(command); err != nil {
		return errorResult("%v", err)
	}
	if ctx.Err() != nil {
		return errorResult("bash: aborted before the command started")
	}
	if fi, err := os.Stat(t.cfg.CWD); err != nil || !fi.IsDir() {
		return errorResult("bash: working directory %s does not exist; the command was not run", t.cfg.CWD)
	}
	timeout := time.Duration(secs) * time.Second
	r, det, blocked := t.run(ctx, command, timeout, progress, true)
	if len(blocked) == 0 || t.cfg.Sandbox == nil || !t.cfg.Sandbox.Unconfined(ctx, "bash", command, blocked) {
		return r
	}
	r, det2, _ := t.run(ctx, command, timeout, progress, false)
	det2.Blocked, det2.Sandbox, det2.Unconfined = det.Blocked, det.Sandbox, true
	r.Content = append([]provider.Block{{Type: provider.BlockText, Text: "[the sandbox blocked the command (" + strings.Join(blocked, "; ") + "); the user had it run again without the sandbox:]"}}, r.Content...)
	return r.withDetails(det2)
}

// run starts the command, in the sandbox in force when confine is set,
// and waits for it, its timeout, or ctx. blocked are the sandbox's
// refusals read in the output of a failed confined command.
func (t *bashTool) run(ctx context.Context, command string, timeout time.Duration, progress func(string), confine bool) (Result, BashDetails, []string) {
	var det BashDetails
	pr, pw, err := os.Pipe()
	if err != nil {
		return errorResult("bash: create output pipe: %v", err), det, nil
	}
	shell := t.cfg.shell()
	cmd := exec.Command(shell, "-c", command)
	cmd.Dir = t.cfg.CWD
	cmd.Env = t.cfg.Env
	cmd.Stdout, cmd.Stderr = pw, pw // stdin stays nil: /dev/null
	setProcessGroup(cmd)
	var conf *sandbox.Confined
	if confine && t.cfg.Sandbox != nil {
		if conf, err = t.cfg.Sandbox.Confine(cmd); err != nil {
			pr.Close()
			pw.Close()
			return errorResult("bash: %v", err), det, nil
		}
		if conf != nil {
			det.Sandbox = conf.Mode
			defer conf.Close() // its proxy, after Explain below
		}
	}
	if err := cmd.Start(); err != nil {
		pr.Close()
		pw.Close()
		return errorResult("bash: start %s: %v", shell, unwrapPath(err)), det, nil
	}
	pw.Close() // the children hold the only write ends now

	out := newCapture(bashMaxLines, bashMaxBytes, t.cfg.TempDir, t.cfg.SessionID)
	readDone := make(chan struct{}) // closed when the reader stops
	go func() {                     // reader: exits at EOF or at the read deadline set below
		defer close(readDone)
		buf := make([]byte, 32<<10)
		for {
			n, err := pr.Read(buf)
			out.Write(buf[:n])
			if err != nil {
				return
			}
		}
	}()
	waitDone := make(chan error, 1) // the shell's exit
	go func() { waitDone <- cmd.Wait() }()

	timer := time.NewTimer(timeout)
	defer timer.Stop()
	tick := time.NewTicker(bashProgress)
	defer tick.Stop()
	var waitErr error
	var timedOut, aborted bool
loop:
	for {
		select {
		case waitErr = <-waitDone:
			break loop
		case <-timer.C:
			timedOut = true
			waitErr = terminate(cmd, waitDone)
			break loop
		case <-ctx.Done():
			aborted = true
			waitErr = terminate(cmd, waitDone)
			break loop
		case <-tick.C:
			if progress != nil {
				if s, ok := out.snapshot(progressLines, progressBytes); ok {
					progress(s)
				}
			}
		}
	}
	// Take what is still in the pipe, but do not wait for EOF: a
	// background process may hold the write end for hours.
	select {
	case <-readDone:
	case <-time.After(bashDrain):
		pr.SetReadDeadline(time.Now())
		<-readDone
	}
	pr.Close()

	text, saved := out.finish()
	det.TimedOut, det.Aborted, det.FullOutput = timedOut, aborted, saved
	var footer string
	var exitErr *exec.ExitError
	switch {
	case timedOut:
		det.ExitCode = -1
		footer = fmt.Sprintf("[timed out after %d s; the command and its child processes were killed]", int(timeout/time.Second))
	case aborted:
		det.ExitCode = -1
		footer = "[aborted by the user; the command and its child processes were killed]"
	case errors.As(waitErr, &exitErr):
		det.ExitCode = exitErr.ExitCode()
		if sig := exitSignal(exitErr.ProcessState); sig != "" {
			footer = "[killed by signal " + sig + "]"
		} else {
			footer = fmt.Sprintf("[exit %d]", det.ExitCode)
		}
	case waitErr != nil:
		det.ExitCode = -1
		footer = fmt.Sprintf("[wait: %v]", waitErr)
	}
	text = strings.TrimRight(text, "\n")
	if conf != nil && footer != "" && !timedOut && !aborted {
		det.Blocked = conf.Explain(text)
	}
	if text == "" && footer == "" {
		text = "(no output)"
	}
	if footer != "" {
		if text != "" {
			text += "\n"
		}
		text += footer
	}
	if len(det.Blocked) > 0 {
		text += "\n" + strings.Join(det.Blocked, "\n") + "\n" + SandboxHint(conf.Mode)
	}
	r := textResult(text)
	r.IsError = footer != ""
	return r.withDetails(det), det, det.Blocked
}

// SandboxHint is what follows the sandbox's refusals of a command: how
// the user widens it (the model cannot).
func SandboxHint(mode string) string {
	return "[the command ran in sandbox " + mode + "; the user can widen it with sandbox.writable or sandbox.network in config.json, or choose another mode with /sandbox; do not try to get around it]"
}

// terminate stops the command's whole process group: SIGTERM, then SIGKILL
// once the grace period passes with the shell or any group member still
// alive. It returns the shell's wait error.
func terminate(cmd *exec.Cmd, waitDone <-chan error) error {
	signalGroup(cmd, false)
	grace := time.NewTimer(bashKillGrace)
	defer grace.Stop()
	poll := time.NewTicker(bashPollGroupMs * time.Millisecond)
	defer poll.Stop()
	var waitErr error
	exited := false
	for {
		select {
		case waitErr = <-waitDone:
			exited = true
			waitDone = nil
		case <-poll.C:
			if exited && !groupAlive(cmd) {
				return waitErr
			}
		case <-grace.C:
			signalGroup(cmd, true)
			if !exited {
				waitErr = <-waitDone
			}
			return waitErr
		}
	}
}
