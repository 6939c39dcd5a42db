// Package hooks runs Claude Code's hooks: the shell commands that a
// "hooks" member of a Claude Code settings file (~/.claude/settings.json,
// .claude/settings.json, .claude/settings.local.json) attaches to events
// of the session, with Claude Code's contract. A hook gets a JSON object
// on stdin (session_id, transcript_path, cwd, hook_event_name and the
// event's own members); exit code 0 is success, its stdout read as JSON
// when it is an object; exit code 2 blocks what the event allows to block
// and feeds stderr back; any other exit code is a non-blocking error
// shown to the user. Each hook runs in a process group of its own, with
// its own timeout (60 s unless the settings say otherwise), one after
// another in the order of the files and of their entries.
//
// The package knows nothing of the agent: the app maps zut's
// interceptions onto Run (agent/app/hooks.go says how and in which
// order with extensions).
package hooks

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
)

// Event is a hook event name, as the settings write it.
type Event string

// The events zut runs hooks for.
const (
	PreToolUse       Event = "PreToolUse"
	PostToolUse      Event = "PostToolUse"
	UserPromptSubmit Event = "UserPromptSubmit"
	Stop             Event = "Stop"
	SubagentStop     Event = "SubagentStop"
	SessionStart     Event = "SessionStart"
	SessionEnd       Event = "SessionEnd"
	PreCompact       Event = "PreCompact"
	Notification     Event = "Notification"
)

// Events lists the events zut runs, in the order of the docs.
var Events = []Event{PreToolUse, PostToolUse, UserPromptSubmit, Stop, SubagentStop, SessionStart, SessionEnd, PreCompact, Notification}

// DefaultTimeout is a hook's timeout when its entry has none.
const DefaultTimeout = 60 * time.Second

// Command is one hook command.
type Command struct {
	Command string
	Timeout time.Duration
	// File is the settings file it comes from.
	File string
	// Project says the file comes with the repository: the hook runs
	// only once the folder is trusted.
	Project bool
}

// group is one entry of an event's list: a matcher and its commands.
type group struct {
	matcher string
	re      *regexp.Regexp // nil: matches everything
	hooks   []Command
}

// Config is the hooks of every settings file read, by event. The zero
// Config has none. It is not changed after Add; Run is safe for
// concurrent use.
type Config struct {
	events map[Event][]group
}

// settingsGroup is one entry of an event's list in the file.
type settingsGroup struct {
	Matcher string `json:"matcher"`
	Hooks   []struct {
		Type    string   `json:"type"`
		Command string   `json:"command"`
		Timeout *float64 `json:"timeout"`
	} `json:"hooks"`
}

// Add reads the "hooks" member raw of the settings file file and adds its
// hooks after those already there. What cannot be used (an unknown event,
// a hook type other than command, a matcher that is not a regular
// expression) is reported in the warnings, each naming the file; the rest
// is added.
func (c *Config) Add(raw json.RawMessage, file string, project bool) []string {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var byName map[string][]settingsGroup
	if err := json.Unmarshal(raw, &byName); err != nil {
		return []string{fmt.Sprintf("%s: hooks: %v; its hooks are ignored (write \"hooks\": {\"PreToolUse\": [{\"matcher\": \"Bash\", \"hooks\": [{\"type\": \"command\", \"command\": \"...\"}]}]})", file, err)}
	}
	if c.events == nil {
		c.events = map[Event][]group{}
	}
	var warns []string
	names := make([]string, 0, len(byName))
	for name := range byName {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		ev := Event(name)
		if !slices.Contains(Events, ev) {
			warns = append(warns, fmt.Sprintf("%s: hooks: zut runs no %s event (it runs %s); those hooks are ignored", file, name, eventList()))
			continue
		}
		for _, g := range byName[name] {
			out := group{matcher: g.Matcher}
			if m := strings.TrimSpace(g.Matcher); m != "" && m != "*" {
				re, err := regexp.Compile("^(?:" + m + ")$")
				if err != nil {
					warns = append(warns, fmt.Sprintf("%s: hooks: %s matcher %q is not a regular expression (%v); its hooks are ignored", file, name, g.Matcher, err))
					continue
				}
				out.re = re
			}
			for _, h := range g.Hooks {
				if h.Type != "command" {
					warns = append(warns, fmt.Sprintf("%s: hooks: %s hook of type %q is not run; zut runs type \"command\" only", file, name, h.Type))
					continue
				}
				if strings.TrimSpace(h.Command) == "" {
					warns = append(warns, fmt.Sprintf("%s: hooks: a %s hook has no command; it is ignored", file, name))
					continue
				}
				t := DefaultTimeout
				if h.Timeout != nil && *h.Timeout > 0 {
					t = time.Duration(*h.Timeout * float64(time.Second))
				}
				out.hooks = append(out.hooks, Command{Command: h.Command, Timeout: t, File: file, Project: project})
			}
			if len(out.hooks) > 0 {
				c.events[ev] = append(c.events[ev], out)
			}
		}
	}
	return warns
}

func eventList() string {
	s := make([]string, len(Events))
	for i, e := range Events {
		s[i] = string(e)
	}
	return strings.Join(s, ", ")
}

// Has reports whether some hook, project ones included only when
// trusted, is attached to ev.
func (c *Config) Has(ev Event, trusted bool) bool {
	for _, g := range c.events[ev] {
		for _, h := range g.hooks {
			if trusted || !h.Project {
				return true
			}
		}
	}
	return false
}

// Empty reports whether the files held no hook at all.
func (c *Config) Empty() bool { return len(c.events) == 0 }

// Commands returns the hooks of ev whose matcher matches one of
// subjects (the tool's names for tool events, the source or trigger for
// others; no subject is matched by every matcher), project ones only when
// trusted.
func (c *Config) Commands(ev Event, trusted bool, subjects ...string) []Command {
	var out []Command
	for _, g := range c.events[ev] {
		if g.re != nil && len(subjects) > 0 && !slices.ContainsFunc(subjects, g.re.MatchString) {
			continue
		}
		for _, h := range g.hooks {
			if trusted || !h.Project {
				out = append(out, h)
			}
		}
	}
	return out
}

// Count returns how many hooks each event has, for zut config show;
// project ones are counted apart.
func (c *Config) Count() map[Event][2]int {
	out := map[Event][2]int{}
	for ev, gs := range c.events {
		var n [2]int
		for _, g := range gs {
			for _, h := range g.hooks {
				if h.Project {
					n[1]++
				} else {
					n[0]++
				}
			}
		}
		out[ev] = n
	}
	return out
}
