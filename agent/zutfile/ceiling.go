package zutfile

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Vars are the values of the variables of a manifest's paths; each is an
// absolute directory.
type Vars struct {
	// Workspace is ${workspace}: the directory zut runs in.
	Workspace string
	// AgentData is ${agent_data}: AgentDataDir of the agent.
	AgentData string
	// Home is ${home} and ~: the user's home directory.
	Home string
}

// Ceiling is a manifest's permissions resolved for one run: the most the
// agent may do, whatever the user's settings allow.
type Ceiling struct {
	// Read and Write are the trees the agent may read and write,
	// absolute and cleaned, without repeats; Read holds the Write trees
	// too, since a tree the agent may write it may read.
	Read  []string `json:"read"`
	Write []string `json:"write"`
	// Bash is the mode and, for BashAllowlist, the patterns.
	Bash BashPermission `json:"bash"`
	// Hosts are the hosts the agent may reach, lower case; none when
	// empty.
	Hosts []string `json:"hosts"`
	// Env are the names of the only variables its children see.
	Env []string `json:"env"`
}

// Ceiling resolves the permissions of m with v. A variable a path uses
// whose value is empty or not absolute is an error.
func (m *Manifest) Ceiling(v Vars) (Ceiling, error) {
	p := m.Permissions
	c := Ceiling{Bash: BashPermission{Mode: p.Bash.Mode}}
	if c.Bash.Mode == "" {
		c.Bash.Mode = BashAsk
	}
	if c.Bash.Mode == BashAllowlist {
		c.Bash.Allow = append([]string(nil), p.Bash.Allow...)
	}
	read, write := p.FS.Read, p.FS.Write
	if read == nil {
		read = DefaultRead
	}
	for _, path := range write {
		r, err := v.Resolve(path)
		if err != nil {
			return Ceiling{}, fmt.Errorf("permissions.fs.write %q: %v", path, err)
		}
		c.Write = addOnce(c.Write, r)
	}
	for _, path := range read {
		r, err := v.Resolve(path)
		if err != nil {
			return Ceiling{}, fmt.Errorf("permissions.fs.read %q: %v", path, err)
		}
		c.Read = addOnce(c.Read, r)
	}
	for _, w := range c.Write {
		c.Read = addOnce(c.Read, w)
	}
	if c.Write == nil {
		c.Write = []string{}
	}
	c.Hosts = []string{}
	for _, h := range p.Net.Allow {
		c.Hosts = addOnce(c.Hosts, strings.TrimSuffix(strings.ToLower(h), "."))
	}
	env := p.Env.Read
	if env == nil {
		env = DefaultEnv
	}
	c.Env = []string{}
	for _, e := range env {
		c.Env = addOnce(c.Env, e)
	}
	return c, nil
}

// Resolve writes a manifest path with v's values: absolute and cleaned.
func (v Vars) Resolve(path string) (string, error) {
	if err := checkPath(path); err != nil {
		return "", err
	}
	var base, rest, name string
	switch {
	case path == "~" || strings.HasPrefix(path, "~/"):
		base, rest, name = v.Home, path[1:], "~ (the home directory)"
	case strings.HasPrefix(path, VarWorkspace):
		base, rest, name = v.Workspace, path[len(VarWorkspace):], VarWorkspace
	case strings.HasPrefix(path, VarAgentData):
		base, rest, name = v.AgentData, path[len(VarAgentData):], VarAgentData
	case strings.HasPrefix(path, VarHome):
		base, rest, name = v.Home, path[len(VarHome):], VarHome
	default:
		return filepath.Clean(filepath.FromSlash(path)), nil
	}
	if base == "" || !filepath.IsAbs(base) {
		return "", fmt.Errorf("%s has no absolute value here (%q)", name, base)
	}
	return filepath.Clean(filepath.Join(base, filepath.FromSlash(rest))), nil
}

func addOnce(list []string, s string) []string {
	if contains(list, s) {
		return list
	}
	return append(list, s)
}
