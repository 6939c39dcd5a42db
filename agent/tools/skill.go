package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/zut-go/zut/agent/skills"
	"github.com/zut-go/zut/provider"
)

// skillMaxBytes bounds the skill text returned to the model.
const skillMaxBytes = 50 << 10

// skillTool loads a skill's instructions.
type skillTool struct {
	index *skills.Index
	cfg   Config
}

func (t *skillTool) Definition() provider.Tool {
	return provider.Tool{Name: "skill", Description: SkillDescription, Schema: json.RawMessage(SkillSchema)}
}

// What the model is told of the skill tool: constant data, so that offering
// the tool runs no code of this package (TestToolDefinitions).
const (
	SkillDescription = "Load the instructions of a skill listed in the system prompt, by name. Returns the skill's SKILL.md text and its directory; paths the skill mentions are relative to that directory."
	SkillSchema      = `{"additionalProperties":false,"properties":{"name":{"description":"The skill's name, as listed.","type":"string"}},"required":["name"],"type":"object"}`
)

func (t *skillTool) Preview(raw json.RawMessage) string {
	a, err := parseArgs("skill", raw, "name")
	if err != nil {
		return "skill (bad arguments)"
	}
	n, _ := a.str("name", false)
	return "skill " + n
}

func (t *skillTool) Mutates(json.RawMessage) bool { return false }

func (t *skillTool) Run(ctx context.Context, raw json.RawMessage, progress func(string)) Result {
	a, err := parseArgs("skill", raw, "name")
	if err != nil {
		return errorResult("%v", err)
	}
	name, err := a.str("name", true)
	if err != nil {
		return errorResult("%v", err)
	}
	name = strings.TrimPrefix(strings.TrimSpace(name), "/skill:")
	s, ok := t.index.Lookup(name)
	if !ok || t.cfg.Scope == nil {
		return Skill(t.index, name)
	}
	if err := t.cfg.CheckScope("skill", s.Path, false); err != nil {
		return errorResult("%v", err)
	}
	f, err := t.cfg.OpenScoped("skill", s.Path)
	if IsOpenedOutOfScope(err) {
		return errorResult("%v", err)
	}
	if err != nil {
		return errorResult("skill: read skill %q: %v", s.Name, err)
	}
	defer f.Close()
	body, truncated, err := s.ReadBody(f)
	return skillResult(s, body, truncated, err)
}

// Skill is the result of loading the skill called name: its SKILL.md body
// (front matter removed) under a header naming the skill's directory, or
// an error listing the available names. The skill tool returns it, and the
// UI's /skill:<name> command can use it to put a skill into a prompt.
func Skill(index *skills.Index, name string) Result {
	s, ok := index.Lookup(name)
	if !ok {
		names := index.Names()
		if len(names) == 0 {
			return errorResult("skill: no skill is called %q, and no skills are installed", name)
		}
		return errorResult("skill: no skill is called %q; available skills: %s", name, strings.Join(names, ", "))
	}
	body, truncated, err := s.Body()
	return skillResult(s, body, truncated, err)
}

// skillResult words the body of skill s, read with err, for the model.
func skillResult(s skills.Skill, body string, truncated bool, err error) Result {
	if err != nil {
		return errorResult("skill: %v", err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "[skill %q from %s; relative paths in it are relative to %s]\n\n", s.Name, s.Path, s.Dir)
	if len(body) > skillMaxBytes {
		body, truncated = cutUTF8(body, skillMaxBytes), true
	}
	b.WriteString(strings.TrimRight(body, "\n"))
	if truncated {
		fmt.Fprintf(&b, "\n\n[the skill is longer than %s; read %s for the rest]", formatSize(skillMaxBytes), s.Path)
	}
	return textResult(b.String())
}
