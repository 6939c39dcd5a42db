package skills

import (
	"fmt"
	"io"
	"strings"

	"github.com/zut-go/zut/provider"
)

// Bounds of the manifest placed in the system prompt.
const (
	maxManifest    = 8 << 10 // bytes of the whole manifest
	maxDescription = 300     // runes of one description
)

// Manifest returns the short block for the system prompt that lists every
// skill with its description and tells the model how to load one. It is ""
// when there are no skills. The block stays under 8 KiB: descriptions are
// cut at 300 characters, and skills that do not fit are counted in a last
// line instead of listed.
func (x *Index) Manifest() string { return x.manifest(true) }

// ReadManifest is Manifest for a run without the skill tool whose model
// can still read files: each skill is listed with the path of its
// SKILL.md, to be read with the read tool.
func (x *Index) ReadManifest() string { return x.manifest(false) }

func (x *Index) manifest(tool bool) string {
	if x == nil || len(x.skills) == 0 {
		return ""
	}
	var b strings.Builder
	if tool {
		b.WriteString("Skills hold instructions for particular tasks. When a task matches a skill's description, call the skill tool with the skill's name to load its instructions before you start.\n\n")
	} else {
		b.WriteString("Skills hold instructions for particular tasks. When a task matches a skill's description, read the skill's SKILL.md (its path is given) with the read tool before you start; paths it mentions are relative to its directory.\n\n")
	}
	b.WriteString("Available skills:\n")
	for i, s := range x.skills {
		line := "- " + s.Name + ": " + oneLine(s.Description, maxDescription)
		if !tool {
			line += " (" + s.Path + ")"
		}
		line += "\n"
		const tail = 80 // room for the "more skills" line
		if b.Len()+len(line)+tail > maxManifest {
			if tool {
				fmt.Fprintf(&b, "- (%d more skills not listed; the skill tool names them all when called with an unknown name)\n", len(x.skills)-i)
			} else {
				fmt.Fprintf(&b, "- (%d more skills not listed)\n", len(x.skills)-i)
			}
			break
		}
		b.WriteString(line)
	}
	return strings.TrimRight(b.String(), "\n")
}

// oneLine collapses whitespace in s and cuts it at n runes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	i := 0
	for j := range s {
		if i == n {
			return s[:j] + "…"
		}
		i++
	}
	return s
}

// maxBody bounds how much of a SKILL.md Body reads.
const maxBody = 1 << 20

// Body reads the skill's SKILL.md and returns its text without the front
// matter. Files over 1 MiB are cut there; truncated reports it.
func (s Skill) Body() (body string, truncated bool, err error) {
	f, err := provider.OpenRegular(s.Path)
	if err != nil {
		return "", false, fmt.Errorf("read skill %q: %w", s.Name, err)
	}
	defer f.Close()
	return s.ReadBody(f)
}

// ReadBody is Body from r, the skill's SKILL.md opened by the caller (the
// skill tool, which checks the opened file against its scope first).
func (s Skill) ReadBody(r io.Reader) (body string, truncated bool, err error) {
	data, err := io.ReadAll(io.LimitReader(r, maxBody+1))
	if err != nil {
		return "", false, fmt.Errorf("read skill %q: %w", s.Name, err)
	}
	if len(data) > maxBody {
		data, truncated = data[:maxBody], true
	}
	_, body, _, err = splitFrontMatter(string(data))
	if err != nil {
		return "", false, fmt.Errorf("read skill %q: %s: %v", s.Name, s.Path, err)
	}
	return strings.TrimLeft(body, "\r\n"), truncated, nil
}
