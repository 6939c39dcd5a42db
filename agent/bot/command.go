package bot

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// builtins are the bot's own commands, in the order /help lists them.
var builtins = []Command{
	{Name: "new", Description: "Start a new conversation"},
	{Name: "stop", Description: "Stop the running turn and drop queued messages"},
	{Name: "status", Description: "Show the model, the session and the context used"},
	{Name: "model", Description: "List the models, or switch: /model provider/id"},
	{Name: "compact", Description: "Summarise the conversation to free context"},
	{Name: "sessions", Description: "List recent sessions"},
	{Name: "resume", Description: "Resume a session: /resume <number or id>"},
	{Name: "help", Description: "Show the commands"},
}

func isBuiltin(name string) bool {
	if name == "start" {
		return true
	}
	for _, b := range builtins {
		if b.Name == name {
			return true
		}
	}
	return false
}

// commands lists the bot's commands and then the agent's extension
// commands whose names the bot does not take.
func commands(a Agent) []Command {
	out := append([]Command(nil), builtins...)
	if a == nil {
		return out
	}
	for _, c := range a.Commands() {
		if !isBuiltin(c.Name) && c.Name != "" {
			out = append(out, c)
		}
	}
	return out
}

// parseCommand splits "/name@bot args" into name and args.
func parseCommand(text string) (name, args string) {
	text = strings.TrimPrefix(text, "/")
	name, args, _ = strings.Cut(text, " ")
	if n, a, ok := strings.Cut(name, "\n"); ok {
		name, args = n, strings.TrimSpace(a+" "+args)
	}
	name, _, _ = strings.Cut(name, "@")
	return strings.ToLower(name), strings.TrimSpace(args)
}

const busyText = "A turn is running; wait for it to finish or /stop it first."

// command runs a command from the chat.
func (c *conversation) command(ctx context.Context, name, args string) {
	switch name {
	case "start", "help":
		c.out.say(Message{Plain: helpText(commands(c.agent))})
	case "stop":
		c.stop()
	case "status":
		c.out.say(Message{Plain: statusText(c.agent.Status(), c.busy(), c.jobs.len())})
	case "new":
		c.idleJob(job{kind: "new"})
	case "compact":
		c.idleJob(job{kind: "compact", arg: args})
	case "model":
		if args != "" {
			c.idleJob(job{kind: "model", arg: args})
			return
		}
		c.task(ctx, c.listModels)
	case "sessions":
		c.task(ctx, c.listSessions)
	case "resume":
		if args == "" {
			c.out.sayf("Say which session: /resume <number from /sessions or id>.")
			return
		}
		c.idleJob(job{kind: "resume", arg: c.sessionID(args)})
	default:
		for _, ext := range c.agent.Commands() {
			if ext.Name == name {
				c.enqueue(job{kind: "command", name: name, arg: args})
				return
			}
		}
		c.out.sayf("Unknown command /%s; /help lists the commands.", name)
	}
}

// idleJob queues j when nothing runs, else says why not.
func (c *conversation) idleJob(j job) {
	if c.busy() {
		c.out.sayf("%s", busyText)
		return
	}
	c.enqueue(j)
}

const listTimeout = 30 * time.Second

// task runs a query that may take a while (listing models or sessions)
// beside the worker, so that it answers while a turn runs; close joins it.
func (c *conversation) task(ctx context.Context, f func(context.Context)) {
	c.tasks.Add(1)
	go func() {
		defer c.tasks.Done()
		f(ctx)
	}()
}

func (c *conversation) listModels(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, listTimeout)
	defer cancel()
	models, err := c.agent.Models(ctx)
	if err != nil {
		c.out.sayf("⚠ Could not list the models: %v", err)
		return
	}
	current := c.agent.Status().Model
	var b strings.Builder
	fmt.Fprintf(&b, "Model: %s\n", orDefault(current, "(none)"))
	if len(models) > 0 {
		b.WriteString("\nAvailable:\n")
		for i, m := range models {
			if i == 40 {
				fmt.Fprintf(&b, "… and %d more\n", len(models)-40)
				break
			}
			mark := "  "
			if m == current {
				mark = "• "
			}
			b.WriteString(mark + m + "\n")
		}
	}
	b.WriteString("\nSwitch with /model provider/id.")
	c.out.say(Message{Plain: b.String()})
}

func (c *conversation) listSessions(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, listTimeout)
	defer cancel()
	list, err := c.agent.Sessions(ctx)
	if err != nil {
		c.out.sayf("⚠ Could not list the sessions: %v", err)
		return
	}
	if len(list) == 0 {
		c.out.sayf("No sessions yet.")
		return
	}
	list = list[:min(len(list), 10)]
	ids := make([]string, len(list))
	var b strings.Builder
	b.WriteString("Recent sessions:\n")
	for i, s := range list {
		ids[i] = s.ID
		fmt.Fprintf(&b, "%d. %s — %s, %d messages\n", i+1, clip(orDefault(s.Title, "(untitled)"), 60), ago(s.Updated), s.Messages)
	}
	b.WriteString("\nResume one with /resume <number>.")
	c.mu.Lock()
	c.listed = ids
	c.mu.Unlock()
	c.out.say(Message{Plain: b.String()})
}

// sessionID turns "/resume 2" into the id /sessions listed second.
func (c *conversation) sessionID(arg string) string {
	n, err := strconv.Atoi(arg)
	c.mu.Lock()
	defer c.mu.Unlock()
	if err == nil && n >= 1 && n <= len(c.listed) {
		return c.listed[n-1]
	}
	return arg
}

func helpText(cmds []Command) string {
	var b strings.Builder
	b.WriteString("Send a message to talk to zut; photos and documents are passed to the model. While a turn runs, new messages wait for it.\n\n")
	for _, c := range cmds {
		fmt.Fprintf(&b, "/%s — %s\n", c.Name, c.Description)
	}
	return strings.TrimRight(b.String(), "\n")
}

func statusText(st Status, busy bool, queued int) string {
	var lines []string
	add := func(label, v string) {
		if v != "" {
			lines = append(lines, label+": "+v)
		}
	}
	add("Model", st.Model)
	add("Reasoning", st.Reasoning)
	add("Session", strings.TrimSpace(st.Session+" "+paren(st.Title)))
	add("Directory", st.CWD)
	if st.Messages > 0 {
		add("Messages", strconv.Itoa(st.Messages))
	}
	if st.ContextWindow > 0 {
		add("Context", fmt.Sprintf("%d of %d tokens (%d%%)", st.ContextTokens, st.ContextWindow, st.ContextTokens*100/st.ContextWindow))
	} else if st.ContextTokens > 0 {
		add("Context", fmt.Sprintf("%d tokens", st.ContextTokens))
	}
	if st.CostUSD > 0 {
		add("Cost", fmt.Sprintf("$%.4f", st.CostUSD))
	}
	state := "idle"
	if busy {
		state = "working"
		if queued > 0 {
			state += fmt.Sprintf(", %d queued", queued)
		}
	}
	add("State", state)
	return strings.Join(lines, "\n")
}

func paren(s string) string {
	if s == "" {
		return ""
	}
	return "(" + s + ")"
}

func ago(t time.Time) string {
	if t.IsZero() {
		return "unknown time"
	}
	d := time.Since(t)
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%d min ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%d h ago", int(d.Hours()))
	}
	return t.Format("2006-01-02")
}
