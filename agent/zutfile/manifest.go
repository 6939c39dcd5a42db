package zutfile

import (
	"encoding/json"
	"fmt"
)

// FormatVersion is the only manifest format this zut reads ("zutfile": 1).
const FormatVersion = 1

// ManifestName is the manifest's file name at the agent's root.
const ManifestName = "manifest.json"

// Manifest is manifest.json: who the agent is, what it needs, and the
// most it may do (Permissions). The agent's instructions are AGENT.md
// next to it; its skills are under skills/.
type Manifest struct {
	// Zutfile is the format version, FormatVersion.
	Zutfile int `json:"zutfile"`

	// Identity.
	Name        string   `json:"name"` // lower-case letters, digits, '-', '_' and '.'; names the data dir
	Version     string   `json:"version,omitempty"`
	Description string   `json:"description,omitempty"`
	Author      string   `json:"author,omitempty"`
	License     string   `json:"license,omitempty"`
	Homepage    string   `json:"homepage,omitempty"`
	Keywords    []string `json:"keywords,omitempty"`

	// Model is what the agent needs of the model.
	Model ModelRequirements `json:"model,omitempty"`
	// Requires is what it needs of the machine.
	Requires Requirements `json:"requires,omitempty"`

	// ReplaceSystemPrompt makes AGENT.md the whole system prompt instead
	// of text appended to zut's.
	ReplaceSystemPrompt bool `json:"replace_system_prompt,omitempty"`

	// Permissions is the ceiling: the most the agent may do, whatever
	// the user's own settings allow.
	Permissions Permissions `json:"permissions"`

	// Extensions are bundled extension directories, relative to the
	// agent's root; they run in the sandbox of Permissions.
	Extensions []string `json:"extensions,omitempty"`
}

// ModelRequirements is what the agent needs of the model.
type ModelRequirements struct {
	// Provider and ID are the preferred model ("anthropic",
	// "claude-sonnet-4-5"); the user's --provider/--model win.
	Provider string `json:"provider,omitempty"`
	ID       string `json:"id,omitempty"`
	// MinContext is the smallest context window, in tokens, it works with.
	MinContext int `json:"min_context,omitempty"`
	// Capabilities the model must have: "tools", "vision", "reasoning".
	Capabilities []string `json:"capabilities,omitempty"`
}

// Requirements is what the agent needs of the machine.
type Requirements struct {
	// Zut is the lowest zut version it runs on (">=0.4.0" or "0.4.0").
	Zut string `json:"zut,omitempty"`
	// OS and Arch, when set, are the GOOS and GOARCH values it runs on.
	OS   []string `json:"os,omitempty"`
	Arch []string `json:"arch,omitempty"`
	// Binaries are programs that must be on PATH (git, python3, ...).
	Binaries []string `json:"binaries,omitempty"`
}

// Permissions is the agent's permission ceiling. Paths may use
// ${workspace} (the directory zut runs in), ${agent_data} (the agent's
// own data directory, $ZUT_HOME/agents/<name>/data), ${home} and ~.
type Permissions struct {
	FS   FSPermissions  `json:"fs"`
	Bash BashPermission `json:"bash"`
	Net  NetPermissions `json:"net"`
	Env  EnvPermissions `json:"env"`
}

// FSPermissions are the trees the agent's tools and commands may read
// and write; Write trees are readable too.
type FSPermissions struct {
	Read  []string `json:"read"`
	Write []string `json:"write"`
}

// Bash modes.
const (
	BashNone      = "none"      // no bash tool, no commands at all
	BashAsk       = "ask"       // every command is confirmed by the user
	BashAllowlist = "allowlist" // only commands matching Allow, each simple command checked
)

// BashPermission is "bash": a mode's name, or {"mode": "allowlist",
// "allow": ["git diff *", "go test ./..."]}.
type BashPermission struct {
	Mode  string   `json:"mode"`
	Allow []string `json:"allow,omitempty"`
}

// UnmarshalJSON reads a mode's name or the object form.
func (b *BashPermission) UnmarshalJSON(data []byte) error {
	var name string
	if json.Unmarshal(data, &name) == nil {
		*b = BashPermission{Mode: name}
		return nil
	}
	type plain BashPermission
	var p plain
	if err := json.Unmarshal(data, &p); err != nil {
		return fmt.Errorf("bash: not %q, %q, %q or an object of mode and allow", BashNone, BashAsk, BashAllowlist)
	}
	*b = BashPermission(p)
	return nil
}

// NetPermissions is "net": the hosts the agent may reach ("github.com",
// "*.example.org", "localhost" for the machine's own servers); none
// when empty.
type NetPermissions struct {
	Allow []string `json:"allow"`
}

// EnvPermissions is "env": the names of the only environment variables
// the agent's child processes see.
type EnvPermissions struct {
	Read []string `json:"read"`
}
