package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strings"

	"github.com/zut-go/zut/host/procgroup"
)

// Input is the JSON object a hook reads on stdin. The first four members
// come with every event; the others with the events that define them.
type Input struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	CWD            string `json:"cwd"`
	Event          Event  `json:"hook_event_name"`

	ToolName     string          `json:"tool_name,omitempty"`     // PreToolUse, PostToolUse
	ToolInput    json.RawMessage `json:"tool_input,omitempty"`    // PreToolUse, PostToolUse
	ToolResponse any             `json:"tool_response,omitempty"` // PostToolUse
	Prompt       string          `json:"prompt,omitempty"`        // UserPromptSubmit
	// StopHookActive says the model goes on because a Stop hook asked
	// it to (Stop, SubagentStop); a hook checks it to avoid a loop.
	StopHookActive *bool  `json:"stop_hook_active,omitempty"`
	Source         string `json:"source,omitempty"`  // SessionStart: startup, resume, clear
	Reason         string `json:"reason,omitempty"`  // SessionEnd
	Trigger        string `json:"trigger,omitempty"` // PreCompact: manual, auto
	// CustomInstructions are /compact's instructions (PreCompact).
	CustomInstructions *string `json:"custom_instructions,omitempty"`
	Message            string  `json:"message,omitempty"` // Notification
}

// Result is what the hooks of one event decided, together.
type Result struct {
	// Block: a hook exited with code 2, or answered decision "block"
	// (or for PreToolUse permissionDecision "deny"); Reason says why, for
	// the model or the user as the event defines.
	Block  bool
	Reason string
	// Permission is PreToolUse's permissionDecision: "allow", "ask",
	// "deny" or "" (no opinion); the strictest of the hooks counts.
	Permission       string
	PermissionReason string
	// Context is the additionalContext of the answers, and for
	// UserPromptSubmit and SessionStart a plain stdout too.
	Context []string
	// Stop: a hook answered "continue": false; StopReason is for the user.
	Stop       bool
	StopReason string
	// Messages are for the user: systemMessage answers, non-blocking
	// errors and timeouts, each naming its hook.
	Messages []string
}

// maxOutput bounds what is kept of a hook's stdout and of its stderr.
const maxOutput = 64 << 10

// Runner runs hook commands for one session.
type Runner struct {
	// Dir is the working directory of the hooks, and CLAUDE_PROJECT_DIR.
	Dir string
	// Env is the environment of the hooks (nil: none but
	// CLAUDE_PROJECT_DIR).
	Env []string
}

// Run runs cmds one after another with in on their stdin and merges
// their answers. It stops at the first hook that blocks or says not to
// continue. ctx ends every hook early (its group is killed).
func (r *Runner) Run(ctx context.Context, cmds []Command, in Input) Result {
	var res Result
	if len(cmds) == 0 {
		return res
	}
	if in.CWD == "" {
		in.CWD = r.Dir
	}
	stdin, err := json.Marshal(in)
	if err != nil {
		res.Messages = append(res.Messages, fmt.Sprintf("%s hooks: encode their input: %v; they were not run", in.Event, err))
		return res
	}
	for _, c := range cmds {
		r.runOne(ctx, c, in.Event, stdin, &res)
		if res.Block || res.Stop || ctx.Err() != nil {
			break
		}
	}
	return res
}

// runOne runs one hook and adds its answer to res.
func (r *Runner) runOne(ctx context.Context, c Command, ev Event, stdin []byte, res *Result) {
	tctx, cancel := context.WithTimeout(ctx, c.Timeout)
	defer cancel()
	cmd := procgroup.Command(tctx, "sh", "-c", c.Command)
	cmd.Dir = r.Dir
	cmd.Env = append(append([]string(nil), r.Env...), "CLAUDE_PROJECT_DIR="+r.Dir)
	cmd.Stdin = bytes.NewReader(stdin)
	var stdout, stderr capped
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	name := fmt.Sprintf("%s hook %q (%s)", ev, clip(c.Command, 80), c.File)
	errText := strings.TrimSpace(stderr.String())
	var exit *exec.ExitError
	switch {
	case tctx.Err() == context.DeadlineExceeded && ctx.Err() == nil:
		res.Messages = append(res.Messages, fmt.Sprintf("%s timed out after %s and was stopped; raise its \"timeout\" (seconds) if it needs longer", name, c.Timeout))
		return
	case ctx.Err() != nil:
		return
	case errors.As(err, &exit) && exit.ExitCode() == 2:
		res.Block = true
		reason := errText
		if reason == "" {
			reason = "blocked by " + name + " (exit code 2, no message on stderr)"
		}
		res.Reason = joinReason(res.Reason, reason)
		return
	case errors.As(err, &exit):
		msg := fmt.Sprintf("%s failed with exit code %d", name, exit.ExitCode())
		if errText != "" {
			msg += ": " + clip(errText, 500)
		}
		res.Messages = append(res.Messages, msg)
		return
	case err != nil:
		res.Messages = append(res.Messages, fmt.Sprintf("%s did not run: %v", name, err))
		return
	}
	out := strings.TrimSpace(stdout.String())
	if !strings.HasPrefix(out, "{") {
		if out != "" && (ev == UserPromptSubmit || ev == SessionStart) {
			res.Context = append(res.Context, out)
		}
		return
	}
	var o answer
	if err := json.Unmarshal([]byte(out), &o); err != nil {
		res.Messages = append(res.Messages, fmt.Sprintf("%s printed JSON zut cannot read (%v); its answer is ignored", name, err))
		return
	}
	o.apply(ev, name, res)
}

// answer is a hook's JSON answer on stdout.
type answer struct {
	Continue      *bool  `json:"continue"`
	StopReason    string `json:"stopReason"`
	SystemMessage string `json:"systemMessage"`
	Decision      string `json:"decision"`
	Reason        string `json:"reason"`
	Specific      struct {
		PermissionDecision       string `json:"permissionDecision"`
		PermissionDecisionReason string `json:"permissionDecisionReason"`
		AdditionalContext        string `json:"additionalContext"`
	} `json:"hookSpecificOutput"`
}

// permissionRank orders permission decisions: the strictest wins.
func permissionRank() map[string]int {
	return permissionRankLazy.get(func() map[string]int {
		return map[string]int{"": 0, "allow": 1, "ask": 2, "deny": 3}
	})
}

var permissionRankLazy lazy[map[string]int]

func (o answer) apply(ev Event, name string, res *Result) {
	if o.SystemMessage != "" {
		res.Messages = append(res.Messages, o.SystemMessage)
	}
	if o.Continue != nil && !*o.Continue {
		res.Stop = true
		res.StopReason = o.StopReason
		if res.StopReason == "" {
			res.StopReason = "stopped by " + name
		}
	}
	if s := strings.TrimSpace(o.Specific.AdditionalContext); s != "" {
		res.Context = append(res.Context, s)
	}
	perm, why := o.Specific.PermissionDecision, o.Specific.PermissionDecisionReason
	if ev == PreToolUse && perm == "" {
		// The older answer: decision approve or block.
		switch o.Decision {
		case "approve":
			perm, why = "allow", o.Reason
		case "block":
			perm, why = "deny", o.Reason
		}
	}
	if ev == PreToolUse {
		if _, ok := permissionRank()[perm]; !ok {
			res.Messages = append(res.Messages, fmt.Sprintf("%s answered permissionDecision %q; zut knows allow, ask and deny", name, perm))
			return
		}
		if permissionRank()[perm] > permissionRank()[res.Permission] {
			res.Permission, res.PermissionReason = perm, why
		}
		if perm == "deny" {
			res.Block = true
			if why == "" {
				why = "denied by " + name
			}
			res.Reason = joinReason(res.Reason, why)
		}
		return
	}
	if o.Decision == "block" {
		res.Block = true
		why := o.Reason
		if why == "" {
			why = "blocked by " + name
		}
		res.Reason = joinReason(res.Reason, why)
	}
}

func joinReason(a, b string) string {
	if a == "" {
		return b
	}
	return a + "\n" + b
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// capped is a buffer that keeps the first maxOutput bytes written to it
// and drops the rest, so a hook that prints without end cannot fill
// memory.
type capped struct{ b bytes.Buffer }

func (c *capped) Write(p []byte) (int, error) {
	if room := maxOutput - c.b.Len(); room > 0 {
		c.b.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func (c *capped) String() string { return c.b.String() }
