package app

import (
	"fmt"
	"path/filepath"

	"github.com/zut-go/zut/agent"
	"github.com/zut-go/zut/agent/permissions"
)

// ProjectSettingsFile is the project's own settings file, relative to the
// working directory. It comes with the repository, so its permission
// rules may only narrow (deny, ask) unless the user trusts the project
// (trust.go: it is one of host.ProjectConfigFiles).
const ProjectSettingsFile = ".zut/settings.json"

// PermissionFiles are where this run's permission rules are kept: the
// user's config.json (for every project, and for this one) and the
// project's .zut/settings.json.
func (a *App) PermissionFiles() permissions.Files {
	return permissions.Files{
		User:    filepath.Join(a.home, SettingsFile),
		Project: filepath.Join(a.cwd, ProjectSettingsFile),
		Dir:     a.cwd,
		Trusted: a.trust.Trusted,
	}
}

// loadRules reads the rules of the files and adds those of --allow and
// --deny; problems with the files are warnings on stderr.
func (a *App) loadRules() *permissions.Set {
	set, warns := permissions.Load(a.PermissionFiles())
	warns = append(warns, a.addClaudeRules(set)...)
	for _, w := range warns {
		fmt.Fprintf(a.env.Stderr, "zut: warning: %s\n", w)
	}
	for _, f := range []struct {
		texts  []string
		effect permissions.Effect
	}{{a.opts.Allow, permissions.Allow}, {a.opts.Deny, permissions.Deny}} {
		for _, text := range f.texts {
			// ParseOptions checked them.
			if r, err := permissions.ParseRule(text, f.effect, permissions.SourceFlag); err == nil {
				set.Add(r)
			}
		}
	}
	return set
}

// policy is the agent's confirmation policy for the options and the
// frontend. A headless run with --allow rules refuses what they do not
// match, as --no-yolo does.
func (a *App) policy(rules *permissions.Set) agent.Policy {
	o := a.opts
	p := agent.Policy{Yolo: o.Yolo, DenyMutating: o.NoYolo, Interactive: a.front.Interactive, Rules: rules, CWD: a.cwd}
	if len(o.Allow) > 0 && !a.front.Interactive {
		p.DenyMutating = true
		p.DenyHint = "no --allow rule matches it and nobody can confirm it in this mode; add an --allow rule for it (zut help permissions) or do without it"
	}
	return p
}

// Rules are the permission rules in force; confirmations and /permissions
// change them.
func (a *App) Rules() *permissions.Set { return a.rules }

// Yolo reports whether tools run without asking (--yolo).
func (a *App) Yolo() bool { return a.opts.Yolo }

// AddRule puts r in force now and, for a rule of the user's config.json
// (SourceUser, SourceUserProject), saves it there.
func (a *App) AddRule(r permissions.Rule) error {
	if r.Source == permissions.SourceUser || r.Source == permissions.SourceUserProject {
		if err := a.PermissionFiles().Save(r); err != nil {
			return err
		}
	}
	a.rules.Add(r)
	return nil
}

// RemoveRule takes r out of force and out of config.json. Rules of the
// command line and of the project's file cannot be removed here: the
// error says where they come from.
func (a *App) RemoveRule(r permissions.Rule) error {
	switch r.Source {
	case permissions.SourceFlag:
		return fmt.Errorf("%s %s comes from the command line; it holds for this run only", r.Effect, r)
	case permissions.SourceProject:
		return fmt.Errorf("%s %s comes from %s; edit that file to remove it", r.Effect, r, filepath.Join(a.cwd, ProjectSettingsFile))
	case permissions.SourceClaudeProject, permissions.SourceClaudeUser:
		return fmt.Errorf("%s %s comes from Claude Code's settings (%s); edit that file to remove it", r.Effect, r, r.Source)
	case permissions.SourceUser, permissions.SourceUserProject:
		if err := a.PermissionFiles().Delete(r); err != nil {
			return err
		}
	}
	a.rules.Remove(r)
	return nil
}

// PermissionsHelp is the text of zut help permissions.
const PermissionsHelp = `zut help permissions — which tool calls run, ask or are refused

Without a rule, reading tools (read, grep, skill) run, and the others
(write, edit, bash, extension tools) ask in the interactive UI. In print
and JSON modes nobody can be asked: those calls run, and print mode shows
each on stderr; --no-yolo refuses them instead, and so does --allow for
the calls its rules do not match.

A rule is TOOL or TOOL(PATTERN):
  bash(git status)     exactly that command
  bash(go test *)      go test with any arguments
  bash(rm *)           (deny) every rm the line runs: /bin/rm, \rm, env rm, sudo rm,
                       sh -c 'rm ...', eval 'rm ...', echo $(rm ...), and any line
                       zut cannot analyse, such as $(echo rm) x
  edit(docs/**)        any file under docs/ (paths are relative to the project)
  write(*.md)          a .md file at the top of the project
  todo                 every call of the extension tool todo

A bash rule is matched against each command the line runs (lists,
pipelines, subshells, loops, functions, substitutions, and what env,
sudo, timeout, xargs, sh -c and eval run): deny and ask rules apply when
any command matches, allow rules only when every command is allowed. A
line zut cannot analyse matches every deny and ask rule and no allow
rule. Rules name commands, not what they do: find -delete is not rm.

deny beats ask, ask beats allow. Rules come from:
  --allow RULE, --deny RULE             this run only
  $ZUT_HOME/config.json                 "permissions": {"allow": [...], "ask": [...], "deny": [...]},
                                        and "projects": {"/path": {...}} for one project
  .zut/settings.json of the project     deny and ask rules; its allow rules need the project trusted
  Claude Code's settings                ~/.claude/settings.json, and the project's .claude/settings.json
                                        and .claude/settings.local.json (allow rules need trust), in
                                        Claude Code's syntax: Bash(npm run test:*), Read(./secrets/**),
                                        Edit, WebFetch(domain:example.com), mcp__server__tool

In the interactive UI, "a" in a confirmation saves an allow rule for
exactly that call in this project; /permissions lists the rules and
removes them.
--yolo runs every call without asking; deny rules still refuse.
`
