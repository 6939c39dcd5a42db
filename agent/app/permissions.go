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
// (Options.TrustProject).
const ProjectSettingsFile = ".zut/settings.json"

// PermissionFiles are where this run's permission rules are kept: the
// user's config.json (for every project, and for this one) and the
// project's .zut/settings.json.
func (a *App) PermissionFiles() permissions.Files {
	return permissions.Files{
		User:    filepath.Join(a.home, SettingsFile),
		Project: filepath.Join(a.cwd, ProjectSettingsFile),
		Dir:     a.cwd,
		Trusted: a.opts.TrustProject,
	}
}

// loadRules reads the rules of the files and adds those of --allow and
// --deny; problems with the files are warnings on stderr.
func (a *App) loadRules() *permissions.Set {
	set, warns := permissions.Load(a.PermissionFiles())
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
	case permissions.SourceUser, permissions.SourceUserProject:
		if err := a.PermissionFiles().Delete(r); err != nil {
			return err
		}
	}
	a.rules.Remove(r)
	return nil
}
