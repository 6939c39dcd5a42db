// Package extinit is the scaffolder of zut extensions, `zut ext init`: it
// writes a new extension directory that loads with `zut --ext DIR` as it
// is (a Go one once built): a manifest, a program in the chosen language
// on that language's SDK (raw JSON lines for sh and jq), a README, and a
// test the author can run. Python and Node extensions get a copy of their
// SDK file (from ext/python and ext/node), so that the directory is
// complete on its own and `zut ext install` of it works anywhere.
package extinit

import (
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/zut-go/zut/ext/node"
	"github.com/zut-go/zut/ext/python"
	"github.com/zut-go/zut/host"
)

// Languages Init writes.
const (
	LangGo     = "go"
	LangPython = "python"
	LangNode   = "node"
	LangSh     = "sh"
)

// Options say what Init writes. Lang is one of the Lang constants ("" is
// LangPython). Command adds the slash command /<name>, Tool a tool the
// model can call, Panel a command /<name>-panel opening an interactive
// panel; with none of them set, Init adds the command.
type Options struct {
	Lang    string
	Tool    bool
	Command bool
	Panel   bool
}

// file is one file of a scaffold.
type file struct {
	name string
	tmpl string // the template under templates/, or "" for data
	data []byte
	perm os.FileMode
}

//go:embed templates
var templates embed.FS

// layout is the files of one language, the manifest aside.
type layout struct {
	language, exec, text string
	files                []file
}

// layouts lists the layout of each language, made on first use: the
// SDK sources they copy are not needed at every start of zut.
func layouts() map[string]layout {
	return layoutsLazy.get(buildLayouts)
}

// buildLayouts makes what layouts returns.
func buildLayouts() map[string]layout {
	return map[string]layout{
		LangGo: {"go", "", "in Go", []file{
			{name: "main.go", tmpl: "go/main.go.tmpl", perm: 0o644},
			{name: "main_test.go", tmpl: "go/main_test.go.tmpl", perm: 0o644},
		}},
		LangPython: {"python", "./main.py", "in Python", []file{
			{name: "main.py", tmpl: "python/main.py.tmpl", perm: 0o755},
			{name: "test_main.py", tmpl: "python/test_main.py.tmpl", perm: 0o644},
			{name: python.FileName, data: python.Source(), perm: 0o644},
		}},
		LangNode: {"javascript", "./main.mjs", "for Node.js", []file{
			{name: "main.mjs", tmpl: "node/main.mjs.tmpl", perm: 0o755},
			{name: "main.test.mjs", tmpl: "node/main.test.mjs.tmpl", perm: 0o644},
			{name: node.FileName, data: node.Source(), perm: 0o644},
			{name: node.TypesFileName, data: node.Types(), perm: 0o644},
			{name: node.ModuleTypesFileName, data: node.ModuleTypes(), perm: 0o644},
		}},
		LangSh: {"sh", "./main.sh", "in POSIX sh and jq", []file{
			{name: "main.sh", tmpl: "sh/main.sh.tmpl", perm: 0o755},
			{name: "test.sh", tmpl: "sh/test.sh.tmpl", perm: 0o755},
		}},
	}
}

var layoutsLazy lazy[map[string]layout]

// data is what the templates see.
type data struct {
	Name, ToolName, PanelCommand string
	Lang, LangText               string
	Command, Tool, Panel         bool
}

// Init writes a new extension named name into dir, which must not exist
// or be empty; the parent directories are created. On failure it removes
// what it wrote.
func Init(dir, name string, opts Options) error {
	if err := host.CheckName(name); err != nil {
		return fmt.Errorf("init extension: name %v", err)
	}
	if opts.Lang == "" {
		opts.Lang = LangPython
	}
	layout, ok := layouts()[opts.Lang]
	if !ok {
		return fmt.Errorf("init extension %q: unknown language %q; use go, python, node or sh", name, opts.Lang)
	}
	if !opts.Command && !opts.Tool && !opts.Panel {
		opts.Command = true
	}
	d := data{
		Name: name, ToolName: strings.ReplaceAll(name, ".", "_"), PanelCommand: name + "-panel",
		Lang: opts.Lang, LangText: layout.text, Command: opts.Command, Tool: opts.Tool, Panel: opts.Panel,
	}
	files := append([]file(nil), layout.files...)
	files = append(files, file{name: "README.md", tmpl: "README.md.tmpl", perm: 0o644})
	exec := layout.exec
	if opts.Lang == LangGo {
		exec = "./" + name
		files = append(files, file{name: ".gitignore", data: []byte("/" + name + "\n"), perm: 0o644})
	}
	manifest, err := json.MarshalIndent(struct {
		Name        string `json:"name"`
		Version     string `json:"version"`
		Exec        string `json:"exec"`
		Language    string `json:"language"`
		Description string `json:"description"`
	}{name, "0.1.0", exec, layout.language, describe(d)}, "", "  ")
	if err != nil {
		return err
	}
	files = append([]file{{name: "extension.json", data: append(manifest, '\n'), perm: 0o644}}, files...)
	for i, f := range files {
		if f.tmpl == "" {
			continue
		}
		b, err := render(f.tmpl, d)
		if err != nil {
			return fmt.Errorf("init extension %q: %s: %w", name, f.name, err)
		}
		files[i].data = b
	}
	return writeAll(dir, files)
}

// describe is the manifest's description.
func describe(d data) string {
	var parts []string
	if d.Command {
		parts = append(parts, "/"+d.Name)
	}
	if d.Tool {
		parts = append(parts, "the tool "+d.ToolName)
	}
	if d.Panel {
		parts = append(parts, "a panel (/"+d.PanelCommand+")")
	}
	return strings.Join(parts, ", ") + ", " + layouts()[d.Lang].text
}

// render executes the template name. The Go templates are written so that
// what they give is gofmt's layout for every choice of parts
// (TestGoFormatted); zut does not link go/format for them (300 KB).
func render(name string, d data) ([]byte, error) {
	src, err := templates.ReadFile("templates/" + name)
	if err != nil {
		return nil, err
	}
	out, err := fill(name, string(src), d)
	if err != nil {
		return nil, err
	}
	return []byte(out), nil
}

// writeAll creates dir and writes files into it. dir must not exist or be
// an empty directory; on failure everything written is removed.
func writeAll(dir string, files []file) (err error) {
	created := false
	switch entries, rerr := os.ReadDir(dir); {
	case errors.Is(rerr, os.ErrNotExist):
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("init extension: %w", err)
		}
		created = true
	case rerr != nil:
		return fmt.Errorf("init extension: %s is not a directory zut can write into: %v", dir, rerr)
	case len(entries) > 0:
		return fmt.Errorf("init extension: %s already exists and is not empty; choose another directory (--dir) or remove it", dir)
	}
	var written []string
	defer func() {
		if err == nil {
			return
		}
		for _, p := range written {
			os.Remove(p)
		}
		if created {
			os.Remove(dir)
		}
	}()
	for _, f := range files {
		p := filepath.Join(dir, f.name)
		if err := os.WriteFile(p, f.data, f.perm); err != nil {
			return fmt.Errorf("init extension: %w", err)
		}
		written = append(written, p)
		// WriteFile keeps the mode of an existing file and the umask
		// may take bits away: set the mode the program needs.
		if err := os.Chmod(p, f.perm); err != nil {
			return fmt.Errorf("init extension: %w", err)
		}
	}
	return nil
}
