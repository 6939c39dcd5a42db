package permissions

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"

	"github.com/zut-go/zut/proto/regular"
)

// Files names where rules are kept. In both files the rules are the
// "permissions" member of a JSON object:
//
//	"permissions": {
//	  "allow": ["bash(git status)", "read"],
//	  "ask":   ["read(.env)"],
//	  "deny":  ["bash(rm -rf *)"],
//	  "projects": {"/home/me/proj": {"allow": ["bash(go test *)"]}}
//	}
//
// "projects" exists only in the user's file: the rules of one project.
type Files struct {
	// User is $ZUT_HOME/config.json ("" reads and saves nothing).
	User string
	// Project is the project's .zut/settings.json ("" for none).
	Project string
	// Dir is the project directory: the key of the user's rules for it.
	Dir string
	// Trusted says the user trusts the project: its file may then allow
	// calls. Otherwise its allow rules are ignored (and listed as such),
	// since the file comes with a cloned repository.
	Trusted bool
}

// ruleLists is the "permissions" member.
type ruleLists struct {
	Allow    []string             `json:"allow,omitempty"`
	Ask      []string             `json:"ask,omitempty"`
	Deny     []string             `json:"deny,omitempty"`
	Projects map[string]ruleLists `json:"projects,omitempty"`
}

// maxFile bounds a settings file.
const maxFile = 4 << 20

// Load reads the rules of both files. What cannot be used (a file that is
// not JSON, a rule that does not parse, a member zut does not know) is
// reported in the warnings, each naming its file; the rest is loaded.
func Load(f Files) (*Set, []string) {
	s := NewSet()
	var warns []string
	if f.User != "" {
		lists, err := readLists(f.User)
		if err != nil {
			warns = append(warns, err.Error())
		}
		warns = append(warns, addLists(s, lists, SourceUser, f.User)...)
		if p, ok := lists.Projects[f.Dir]; ok && f.Dir != "" {
			warns = append(warns, addLists(s, p, SourceUserProject, f.User)...)
		}
	}
	if f.Project != "" {
		lists, err := readLists(f.Project)
		if err != nil {
			warns = append(warns, err.Error())
		}
		if len(lists.Projects) > 0 {
			warns = append(warns, fmt.Sprintf("%s: permissions.projects belongs in $ZUT_HOME/config.json; ignored here", f.Project))
		}
		if !f.Trusted {
			for _, text := range lists.Allow {
				if r, err := ParseRule(text, Allow, SourceProject); err == nil {
					s.ignored = append(s.ignored, r)
				}
			}
			lists.Allow = nil
		}
		warns = append(warns, addLists(s, ruleLists{Allow: lists.Allow, Ask: lists.Ask, Deny: lists.Deny}, SourceProject, f.Project)...)
	}
	return s, warns
}

func addLists(s *Set, l ruleLists, src Source, file string) []string {
	var warns []string
	for _, g := range []struct {
		e     Effect
		texts []string
	}{{Deny, l.Deny}, {Ask, l.Ask}, {Allow, l.Allow}} {
		for _, text := range g.texts {
			r, err := ParseRule(text, g.e, src)
			if err != nil {
				warns = append(warns, fmt.Sprintf("%s: %v; the rule is ignored", file, err))
				continue
			}
			s.Add(r)
		}
	}
	return warns
}

// readLists reads the "permissions" member of the file at path; a missing
// file has none.
func readLists(path string) (ruleLists, error) {
	raw, err := readObject(path)
	if err != nil || raw["permissions"] == nil {
		return ruleLists{}, err
	}
	var l ruleLists
	dec := json.NewDecoder(bytes.NewReader(raw["permissions"]))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&l); err != nil {
		return ruleLists{}, fmt.Errorf("%s: permissions: %v; it takes allow, ask and deny lists of rules such as \"bash(go test *)\"", path, err)
	}
	return l, nil
}

// readObject reads a JSON object file into its members; a missing file
// is empty.
func readObject(path string) (map[string]json.RawMessage, error) {
	data, err := regular.Read(path, maxFile)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]json.RawMessage{}, nil
	}
	if err != nil {
		return nil, err
	}
	raw := map[string]json.RawMessage{}
	if len(bytes.TrimSpace(data)) == 0 {
		return raw, nil
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("read %s: not a JSON object (%v); fix or delete the file", path, err)
	}
	if raw == nil {
		raw = map[string]json.RawMessage{}
	}
	return raw, nil
}

// Save writes r into the user's file: for every project (SourceUser) or
// for f.Dir (SourceUserProject). Other members of the file are kept; the
// file is replaced atomically.
func (f Files) Save(r Rule) error {
	return f.edit(r, func(list []string, text string) []string {
		if slices.Contains(list, text) {
			return list
		}
		return append(list, text)
	})
}

// Delete removes r from the user's file.
func (f Files) Delete(r Rule) error {
	return f.edit(r, func(list []string, text string) []string {
		return slices.DeleteFunc(list, func(s string) bool {
			x, err := ParseRule(s, r.Effect, r.Source)
			return s == text || err == nil && x.Same(r)
		})
	})
}

func (f Files) edit(r Rule, change func(list []string, text string) []string) error {
	if r.Source != SourceUser && r.Source != SourceUserProject {
		return fmt.Errorf("rule %s: %s rules are not kept in config.json; change them where they come from (%s)", r, r.Source, r.Source.Describe())
	}
	if f.User == "" {
		return errors.New("save permission rule: no $ZUT_HOME; set ZUT_HOME")
	}
	raw, err := readObject(f.User)
	if err != nil {
		return fmt.Errorf("save permission rule: %w", err)
	}
	var all ruleLists
	if raw["permissions"] != nil {
		if err := json.Unmarshal(raw["permissions"], &all); err != nil {
			return fmt.Errorf("save permission rule: %s: permissions: %v; fix it first", f.User, err)
		}
	}
	lists := &all
	if r.Source == SourceUserProject {
		if f.Dir == "" {
			return errors.New("save permission rule: no project directory")
		}
		if all.Projects == nil {
			all.Projects = map[string]ruleLists{}
		}
		p := all.Projects[f.Dir]
		lists = &p
		apply(lists, r, change)
		if len(p.Allow)+len(p.Ask)+len(p.Deny) == 0 {
			delete(all.Projects, f.Dir)
		} else {
			all.Projects[f.Dir] = p
		}
	} else {
		apply(lists, r, change)
	}
	b, err := json.Marshal(all)
	if err != nil {
		return err
	}
	raw["permissions"] = b
	return writeObject(f.User, raw)
}

func apply(l *ruleLists, r Rule, change func([]string, string) []string) {
	switch r.Effect {
	case Allow:
		l.Allow = change(l.Allow, r.String())
	case Ask:
		l.Ask = change(l.Ask, r.String())
	case Deny:
		l.Deny = change(l.Deny, r.String())
	}
}

// writeObject writes members as an indented JSON object, sorted by name,
// through a temporary file renamed over path.
func writeObject(path string, raw map[string]json.RawMessage) error {
	names := make([]string, 0, len(raw))
	for k := range raw {
		names = append(names, k)
	}
	sort.Strings(names)
	var buf bytes.Buffer
	buf.WriteString("{")
	for i, k := range names {
		if i > 0 {
			buf.WriteString(",")
		}
		kb, _ := json.Marshal(k)
		buf.WriteString("\n  ")
		buf.Write(kb)
		buf.WriteString(": ")
		var v bytes.Buffer
		if err := json.Indent(&v, raw[k], "  ", "  "); err != nil {
			return fmt.Errorf("save %s: %w", path, err)
		}
		buf.Write(v.Bytes())
	}
	buf.WriteString("\n}\n")
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("save %s: %w", path, err)
	}
	tmp, err := os.CreateTemp(dir, ".config-*.json")
	if err != nil {
		return fmt.Errorf("save %s: %w", path, err)
	}
	_, werr := tmp.Write(buf.Bytes())
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("save %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("save %s: %w", path, err)
	}
	return nil
}
