package host

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/zut-go/zut/host/internal/jsonfile"
)

func TestReadManifest(t *testing.T) {
	outside := t.TempDir()
	writeScript(t, filepath.Join(outside, "evil"), "#!/bin/sh\n")
	if err := os.MkdirAll(filepath.Join(outside, "skills"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		setup func(t *testing.T, dir string)
		field string // wanted ManifestError field; "-" for success
		want  string // substring of the error, or of a warning on success
	}{
		{"valid", func(t *testing.T, dir string) {
			writeScript(t, filepath.Join(dir, "bin", "run"), "#!/bin/sh\n")
			os.MkdirAll(filepath.Join(dir, "skills", "one"), 0o755)
			writeManifest(t, dir, map[string]any{"name": "ok", "exec": "./bin/run", "skills": []string{"skills"}, "x-unknown": 1})
		}, "-", ""},
		{"bare exec name", func(t *testing.T, dir string) {
			writeManifest(t, dir, map[string]any{"name": "bare", "exec": "python3"})
		}, "-", ""},
		{"theme only", func(t *testing.T, dir string) {
			writeScript(t, filepath.Join(dir, "themes", "theme.json"), "{}")
			writeManifest(t, dir, map[string]any{"name": "theme"})
		}, "-", ""},
		{"missing skills dir is a warning", func(t *testing.T, dir string) {
			writeScript(t, filepath.Join(dir, "run"), "#!/bin/sh\n")
			writeManifest(t, dir, map[string]any{"name": "w", "exec": "./run", "skills": []string{"nope"}})
		}, "-", `skills directory "nope" does not exist`},
		{"no manifest", func(t *testing.T, dir string) {}, "", "no such file"},
		{"not json", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, ManifestFile), []byte("{\n  \"name\": \"x\",\n  oops\n}"), 0o644)
		}, "", "not a JSON object: line 3, column"},
		{"json array", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, ManifestFile), []byte(`["x"]`), 0o644)
		}, "", "not a JSON object"},
		{"missing name", func(t *testing.T, dir string) {
			writeManifest(t, dir, map[string]any{"exec": "./run"})
		}, "name", "missing"},
		{"name with slash", func(t *testing.T, dir string) {
			writeManifest(t, dir, map[string]any{"name": "../x", "exec": "./run"})
		}, "name", "letters, digits"},
		{"name wrong type", func(t *testing.T, dir string) {
			writeManifest(t, dir, map[string]any{"name": 5, "exec": "./run"})
		}, "name", "want a string, got a number"},
		{"args wrong type", func(t *testing.T, dir string) {
			writeManifest(t, dir, map[string]any{"name": "a", "exec": "./run", "args": "--x"})
		}, "args", "want an array of strings, got a string"},
		{"enabled wrong type", func(t *testing.T, dir string) {
			writeManifest(t, dir, map[string]any{"name": "a", "exec": "./run", "enabled": "yes"})
		}, "enabled", "want true or false"},
		{"missing exec", func(t *testing.T, dir string) {
			writeManifest(t, dir, map[string]any{"name": "a"})
		}, "exec", "missing"},
		{"exec missing file", func(t *testing.T, dir string) {
			writeManifest(t, dir, map[string]any{"name": "a", "exec": "./run"})
		}, "exec", "does not exist"},
		{"exec not executable", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, "run"), []byte("x"), 0o644)
			writeManifest(t, dir, map[string]any{"name": "a", "exec": "./run"})
		}, "exec", "not executable"},
		{"exec escapes with dotdot", func(t *testing.T, dir string) {
			writeManifest(t, dir, map[string]any{"name": "a", "exec": "../" + filepath.Base(outside) + "/evil"})
		}, "exec", "leaves the extension directory"},
		{"exec absolute outside", func(t *testing.T, dir string) {
			writeManifest(t, dir, map[string]any{"name": "a", "exec": filepath.Join(outside, "evil")})
		}, "exec", "leaves the extension directory"},
		{"exec escapes through symlink", func(t *testing.T, dir string) {
			os.Symlink(filepath.Join(outside, "evil"), filepath.Join(dir, "run"))
			writeManifest(t, dir, map[string]any{"name": "a", "exec": "./run"})
		}, "exec", "resolves through a symlink"},
		{"skills escape with dotdot", func(t *testing.T, dir string) {
			writeScript(t, filepath.Join(dir, "run"), "#!/bin/sh\n")
			writeManifest(t, dir, map[string]any{"name": "a", "exec": "./run", "skills": []string{"../../"}})
		}, "skills", "leaves the extension directory"},
		{"skills escape through symlink", func(t *testing.T, dir string) {
			writeScript(t, filepath.Join(dir, "run"), "#!/bin/sh\n")
			os.Symlink(filepath.Join(outside, "skills"), filepath.Join(dir, "skills"))
			writeManifest(t, dir, map[string]any{"name": "a", "exec": "./run", "skills": []string{"skills"}})
		}, "skills", "resolves through a symlink"},
		{"skills not a list", func(t *testing.T, dir string) {
			writeManifest(t, dir, map[string]any{"name": "a", "exec": "./run", "skills": "skills"})
		}, "skills", "want an array of strings"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "ext")
			os.MkdirAll(dir, 0o755)
			tc.setup(t, dir)
			m, err := ReadManifest(dir)
			if tc.field == "-" {
				if err != nil {
					t.Fatalf("ReadManifest(%q) error: %v", dir, err)
				}
				if tc.want != "" && !slices.ContainsFunc(m.Warnings, func(w string) bool { return strings.Contains(w, tc.want) }) {
					t.Errorf("ReadManifest(%q).Warnings = %q, want one containing %q", dir, m.Warnings, tc.want)
				}
				return
			}
			var me *ManifestError
			if !errors.As(err, &me) {
				t.Fatalf("ReadManifest(%q) = %v, want a *ManifestError", dir, err)
			}
			if me.Field != tc.field || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), ManifestFile) {
				t.Errorf("ReadManifest(%q) = %v (field %q), want field %q and %q and the file name", dir, err, me.Field, tc.field, tc.want)
			}
		})
	}
}

func TestReadManifestResolves(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ext")
	writeScript(t, filepath.Join(dir, "run"), "#!/bin/sh\n")
	os.MkdirAll(filepath.Join(dir, "skills"), 0o755)
	writeScript(t, filepath.Join(dir, "theme.json"), "{}")
	writeManifest(t, dir, map[string]any{"name": "r", "exec": "./run", "skills": []string{"skills"}, "enabled": false})
	m, err := ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	root, _ := filepath.EvalSymlinks(dir)
	if m.ExecPath != filepath.Join(root, "run") || m.Dir != root || m.Enabled || m.ThemeOnly() ||
		!slices.Equal(m.SkillDirs, []string{filepath.Join(root, "skills")}) || m.Theme != filepath.Join(root, "theme.json") {
		t.Errorf("ReadManifest(%q) = %+v", dir, m)
	}
}

func TestSetEnabled(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		enabled bool
		want    string
	}{
		{"adds the member", `{"name":"a","exec":"./run","x-custom":{"k":[1,2]}}`, false,
			"{\n  \"name\": \"a\",\n  \"exec\": \"./run\",\n  \"x-custom\": {\n    \"k\": [\n      1,\n      2\n    ]\n  },\n  \"enabled\": false\n}\n"},
		{"replaces in place", `{"enabled":false,"name":"a","zzz":"keep"}`, true,
			"{\n  \"enabled\": true,\n  \"name\": \"a\",\n  \"zzz\": \"keep\"\n}\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			file := filepath.Join(dir, ManifestFile)
			os.WriteFile(file, []byte(tc.in), 0o600)
			if err := SetEnabled(dir, tc.enabled); err != nil {
				t.Fatalf("SetEnabled(%q, %v) error: %v", tc.in, tc.enabled, err)
			}
			got, _ := os.ReadFile(file)
			if string(got) != tc.want {
				t.Errorf("SetEnabled(%q, %v) wrote %q, want %q", tc.in, tc.enabled, got, tc.want)
			}
			if fi, _ := os.Stat(file); fi.Mode().Perm() != 0o600 {
				t.Errorf("SetEnabled changed the mode to %v", fi.Mode().Perm())
			}
			if des, _ := os.ReadDir(dir); len(des) != 1 {
				t.Errorf("SetEnabled left %d files, want 1", len(des))
			}
		})
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, ManifestFile), []byte("not json"), 0o644)
	if err := SetEnabled(dir, true); err == nil {
		t.Errorf("SetEnabled on a broken manifest = nil, want an error")
	}
}

func TestDiscover(t *testing.T) {
	f := newFixture(t)
	mk := func(parent, dir, name string, extra map[string]any) string {
		p := filepath.Join(parent, dir)
		writeScript(t, filepath.Join(p, "run"), "#!/bin/sh\n")
		fields := map[string]any{"name": name, "exec": "./run"}
		for k, v := range extra {
			fields[k] = v
		}
		writeManifest(t, p, fields)
		return p
	}
	dev := mk(t.TempDir(), "dev", "tools", nil)
	mk(f.project(), "b-proj", "proj", nil)
	mk(f.project(), "a-tools", "tools", nil) // shadowed by --ext
	mk(f.global(), "z-off", "proj", map[string]any{"enabled": false})
	mk(f.global(), "c-off", "off", map[string]any{"enabled": false})
	mk(f.global(), ".hidden", "hidden", nil)
	os.MkdirAll(filepath.Join(f.global(), "empty"), 0o755)
	writeScript(t, filepath.Join(f.global(), "a-theme", "theme.json"), "{}")
	writeManifest(t, filepath.Join(f.global(), "a-theme"), map[string]any{"name": "pretty"})
	os.MkdirAll(filepath.Join(f.global(), "bad"), 0o755)
	os.WriteFile(filepath.Join(f.global(), "bad", ManifestFile), []byte("{"), 0o644)

	got := Discover(f.home, f.cwd, []string{dev, dev})
	var lines []string
	for _, e := range got {
		lines = append(lines, e.Scope+" "+filepath.Base(e.Dir)+" "+e.Name()+" "+e.Status())
	}
	want := []string{
		"ext dev tools enabled",
		"project a-tools tools shadowed",
		"project b-proj proj enabled",
		"global a-theme pretty theme-only",
		"global bad bad error",
		"global c-off off disabled",
		"global z-off proj shadowed",
	}
	if !slices.Equal(lines, want) {
		t.Errorf("Discover() =\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}

// FuzzManifest feeds arbitrary extension.json contents to ReadManifest
// and SetEnabled: no panic, and an error is always a *ManifestError.
func FuzzManifest(f *testing.F) {
	f.Add([]byte(`{"name":"a","exec":"./run","args":["x"],"skills":["s"],"enabled":false}`))
	f.Add([]byte(`{"name":"a","exec":"../x"}`))
	f.Add([]byte(`{"name":5}`))
	f.Add([]byte(`[]`))
	f.Add([]byte(`{"name":"a","exec":"node","x":{"y":[1,{"z":null}]}}`))
	root := f.TempDir()
	writeScript(f, filepath.Join(root, "run"), "#!/bin/sh\n")
	f.Fuzz(func(t *testing.T, data []byte) {
		file := filepath.Join(root, ManifestFile)
		if err := os.WriteFile(file, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadManifest(root); err != nil {
			var me *ManifestError
			if !errors.As(err, &me) {
				t.Fatalf("ReadManifest(%q) error %T %v, want a *ManifestError", data, err, err)
			}
		}
		if err := SetEnabled(root, false); err != nil {
			return
		}
		rewritten, _ := os.ReadFile(file)
		if _, err := jsonfile.Members(rewritten); err != nil {
			t.Fatalf("SetEnabled(%q) wrote %q, which does not parse: %v", data, rewritten, err)
		}
	})
}
