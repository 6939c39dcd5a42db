package app

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/zut-go/zut/agent"
	"github.com/zut-go/zut/agent/permissions"
	"github.com/zut-go/zut/agent/skills"
)

// Prompt templates (skills.DiscoverTemplates) are slash commands whose
// text becomes the prompt, in every mode: InvokeExtension answers them
// with the prompt action, after the extensions' commands of the same
// name. A template is text, not code, so a project's templates load in
// any folder; but allowed-tools widens what runs unasked, so a project
// template's allowed-tools count only in a trusted folder (the user's own
// templates' always count). The rules it allows hold for the rest of the
// session, as an "allow for this session" answer does. A template's model
// is not switched to: zut says so once and keeps the model.

// loadTemplates discovers the prompt templates and prints their
// problems.
func (a *App) loadTemplates() *skills.Templates {
	t := skills.DiscoverTemplates(skills.TemplateOptions{CWD: a.cwd, Root: a.trust.Root, ZutHome: a.home, Home: a.env.Getenv("HOME")})
	for _, w := range t.Warnings() {
		fmt.Fprintf(a.env.Stderr, "zut: warning: %s\n", w)
	}
	return t
}

// Templates are the prompt templates found.
func (a *App) Templates() *skills.Templates {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.templates
}

// templateCommands are the templates as slash commands.
func (a *App) templateCommands() []Command {
	var out []Command
	for _, t := range a.Templates().List() {
		desc := t.Description
		if t.ArgumentHint != "" {
			desc += " (" + t.ArgumentHint + ")"
		}
		out = append(out, Command{Name: t.Name, Description: desc, Source: "prompt"})
	}
	return out
}

// templatePrompt expands the template name with args; ok is false when
// there is no such template.
func (a *App) templatePrompt(name, args string) (text string, ok bool) {
	t, ok := a.Templates().Lookup(name)
	if !ok {
		return "", false
	}
	a.templateRules(t)
	if t.Model != "" {
		a.noteOnce("template-model:"+t.Name, fmt.Sprintf("prompt template /%s asks for model %s; zut keeps the current model (switch with /model or --model)", t.Name, t.Model))
	}
	return t.Expand(args), true
}

// templateRules puts the template's allowed-tools in force as session
// rules, when they may count.
func (a *App) templateRules(t skills.Template) {
	if len(t.AllowedTools) == 0 || a.rules == nil {
		return
	}
	if t.Project && !a.trust.Trusted {
		a.noteOnce("template-tools:"+t.Name, fmt.Sprintf("prompt template /%s: its allowed-tools do not count, since this folder is not trusted", t.Name))
		return
	}
	p := permissions.ClaudePaths{CWD: a.cwd, Root: a.trust.Root, Home: a.env.Getenv("HOME")}
	for _, entry := range t.AllowedTools {
		rules, err := permissions.ClaudeRules(entry, permissions.Allow, permissions.SourceSession, p)
		if err != nil {
			// zut's own syntax is welcome too: bash(go test *).
			r, err2 := permissions.ParseRule(entry, permissions.Allow, permissions.SourceSession)
			if err2 != nil || strings.ToLower(r.Tool) != r.Tool {
				a.noteOnce("template-tool:"+t.Name+":"+entry, fmt.Sprintf("prompt template %s: allowed-tools: %v", filepath.Base(t.Path), err))
				continue
			}
			rules = append(rules, r)
		}
		for _, r := range rules {
			a.rules.Add(r)
		}
	}
}

// noteOnce shows msg as a warning the first time key comes up in this
// run.
func (a *App) noteOnce(key, msg string) {
	a.mu.Lock()
	if a.noted == nil {
		a.noted = map[string]bool{}
	}
	seen := a.noted[key]
	a.noted[key] = true
	a.mu.Unlock()
	if !seen {
		a.emit(agent.Notice{Level: "warn", Message: msg})
	}
}

// ExpandTemplate returns the prompt of text when it is "/name args" for a
// prompt template that no extension command shadows; ok is false for any
// other text. RPC's prompt command runs templates through it.
func (a *App) ExpandTemplate(text string) (prompt string, ok bool) {
	if !strings.HasPrefix(strings.TrimSpace(text), "/") {
		return "", false
	}
	name, args := ParseCommand(text)
	if _, builtin := LookupBuiltin(strings.ToLower(name)); builtin {
		return "", false
	}
	if a.host != nil {
		for _, c := range a.host.Commands() {
			if strings.EqualFold(c.Name, name) {
				return "", false
			}
		}
	}
	return a.templatePrompt(name, args)
}

// LooksLikeCommand reports whether name (after the slash) reads as a
// command name rather than a path or text: letters, digits, "-", "_",
// "." and ":" only. Print mode refuses such a name when no command has
// it, instead of sending "/fix-isue 42" to the model.
func LooksLikeCommand(name string) bool {
	if name == "" {
		return false
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_.:", r)) {
			return false
		}
	}
	return true
}
