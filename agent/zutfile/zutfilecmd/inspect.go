package zutfilecmd

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/zut-go/zut/agent/zutfile"
	"github.com/zut-go/zut/proto/regular"
)

// InspectHelp is the text of zut help inspect.
const InspectHelp = `zut inspect — show what a packaged agent is and may do

Usage:
  zut inspect SOURCE [--json]

SOURCE is a directory, a .zut archive or a GitHub repository
owner/repo[/path] (a path on disk comes first; a repository is cloned
into a temporary directory and removed after). inspect prints the
agent's identity, its requirements and whether this machine meets them,
every permission with its paths resolved for the current directory (the
list zut run asks consent for), its files and its digest. --json prints
one JSON object instead. Nothing of the agent runs.

Example:
  zut inspect examples/agents/code-reviewer
  zut inspect code-reviewer-1.0.0.zut --json | jq .permissions
`

// inspection is zut inspect --json.
type inspection struct {
	Name         string            `json:"name"`
	Version      string            `json:"version"`
	Description  string            `json:"description"`
	Source       string            `json:"source"`
	Kind         string            `json:"kind"`
	Digest       string            `json:"digest"`
	Manifest     *zutfile.Manifest `json:"manifest"`
	Permissions  []string          `json:"permissions"`
	Ceiling      zutfile.Ceiling   `json:"ceiling"`
	Unmet        []string          `json:"unmet"`
	Instructions instructions      `json:"instructions"`
	DataDir      string            `json:"data_dir"`
	SessionsDir  string            `json:"sessions_dir"`
	Files        []zutfile.File    `json:"files"`
	Warnings     []string          `json:"warnings"`
}

type instructions struct {
	File    string `json:"file"`
	Bytes   int    `json:"bytes"`
	Replace bool   `json:"replace_system_prompt"`
}

// Inspect is zut inspect SOURCE [--json].
func Inspect(ctx context.Context, e *Env, args []string) error {
	fs := flag.NewFlagSet("zut inspect", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print one JSON object")
	operands, err := parse(e, fs, InspectHelp, args)
	if err != nil {
		return done(err)
	}
	if len(operands) != 1 {
		return usagef("usage: zut inspect SOURCE [--json] (zut help inspect)")
	}
	a, cleanup, err := zutfile.Load(ctx, operands[0], zutfile.LoadOptions{})
	if err != nil {
		return err
	}
	defer cleanup()
	m := a.Manifest
	v := e.vars(m.Name)
	c, err := m.Ceiling(v)
	if err != nil {
		return fmt.Errorf("inspect %s: %v", operands[0], err)
	}
	in := inspection{Name: m.Name, Version: m.Version, Description: m.Description, Source: a.Source, Kind: a.Kind, Digest: a.Digest,
		Manifest: m, Permissions: a.Permissions(v), Ceiling: c, Unmet: nonNil(m.Check(e.checkEnv())),
		Instructions: instructions{Bytes: len(a.Instructions), Replace: m.ReplaceSystemPrompt},
		DataDir:      zutfile.AgentDataDir(e.ZutHome, m.Name), SessionsDir: zutfile.SessionsDir(e.ZutHome, m.Name),
		Files: a.Files, Warnings: nonNil(a.Warnings)}
	if a.Instructions != "" {
		in.Instructions.File = zutfile.InstructionsName
	}
	if in.Files == nil {
		in.Files = []zutfile.File{}
	}
	if *asJSON {
		enc := json.NewEncoder(e.Stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(in)
	}
	return writeInspection(e.Stdout, &in)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// writeInspection writes the text of zut inspect.
func writeInspection(w io.Writer, in *inspection) error {
	var b strings.Builder
	m := in.Manifest
	fmt.Fprintf(&b, "%s\n", ident(m))
	if m.Description != "" {
		fmt.Fprintf(&b, "  %s\n", m.Description)
	}
	field := func(k, v string) {
		if v != "" {
			fmt.Fprintf(&b, "%-14s%s\n", k+":", v)
		}
	}
	field("author", m.Author)
	field("license", m.License)
	field("homepage", m.Homepage)
	field("keywords", strings.Join(m.Keywords, ", "))
	field("source", in.Source+" ("+in.Kind+")")
	field("digest", in.Digest)
	field("agent data", in.DataDir)
	field("sessions", in.SessionsDir)

	b.WriteString("\nRequirements:\n")
	var req []string
	if mr := m.Model; mr.Provider != "" || mr.ID != "" {
		req = append(req, "preferred model: "+strings.Trim(mr.Provider+"/"+mr.ID, "/"))
	}
	if m.Model.MinContext > 0 {
		req = append(req, fmt.Sprintf("a context window of at least %d tokens", m.Model.MinContext))
	}
	if len(m.Model.Capabilities) > 0 {
		req = append(req, "a model with "+strings.Join(m.Model.Capabilities, ", "))
	}
	r := m.Requires
	if r.Zut != "" {
		req = append(req, "zut "+r.Zut)
	}
	if len(r.OS) > 0 {
		req = append(req, "os: "+strings.Join(r.OS, ", "))
	}
	if len(r.Arch) > 0 {
		req = append(req, "arch: "+strings.Join(r.Arch, ", "))
	}
	if len(r.Binaries) > 0 {
		req = append(req, "programs on PATH: "+strings.Join(r.Binaries, ", "))
	}
	if len(req) == 0 {
		req = append(req, "none")
	}
	for _, x := range req {
		fmt.Fprintf(&b, "  %s\n", x)
	}
	if len(in.Unmet) == 0 {
		b.WriteString("  this machine meets them (the model's needs are not checked here)\n")
	}
	for _, x := range in.Unmet {
		fmt.Fprintf(&b, "  unmet: %s\n", x)
	}

	b.WriteString("\nInstructions:\n")
	switch {
	case in.Instructions.File == "":
		b.WriteString("  none (no AGENT.md)\n")
	case in.Instructions.Replace:
		fmt.Fprintf(&b, "  %s (%s) replaces zut's system prompt\n", in.Instructions.File, regular.SizeText(int64(in.Instructions.Bytes)))
	default:
		fmt.Fprintf(&b, "  %s (%s) is added to zut's system prompt\n", in.Instructions.File, regular.SizeText(int64(in.Instructions.Bytes)))
	}

	b.WriteString("\nPermissions (the most it may do, whatever your settings allow):\n")
	for _, p := range in.Permissions {
		fmt.Fprintf(&b, "  %s\n", p)
	}

	var total int64
	for _, f := range in.Files {
		total += f.Size
	}
	fmt.Fprintf(&b, "\nFiles (%d, %s):\n", len(in.Files), regular.SizeText(total))
	for _, f := range in.Files {
		mode := "-rw-r--r--"
		if f.Exec {
			mode = "-rwxr-xr-x"
		}
		fmt.Fprintf(&b, "  %s %8d  %s\n", mode, f.Size, f.Path)
	}
	if len(in.Warnings) > 0 {
		b.WriteString("\nWarnings:\n")
		for _, x := range in.Warnings {
			fmt.Fprintf(&b, "  %s\n", x)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// ident is the agent's name and version.
func ident(m *zutfile.Manifest) string {
	if m.Version == "" {
		return m.Name
	}
	return m.Name + " " + m.Version
}
