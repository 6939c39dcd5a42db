package exttest

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/zut-go/zut/host"
	"github.com/zut-go/zut/host/internal/gobuild"
)

// needsBuild reports whether the extension in dir is Go source to build
// before the run: its manifest says language "go", its exec is a path,
// and the directory holds Go source (a go.mod or .go files). The manifest
// is read as is; ReadManifest judges it afterwards.
func needsBuild(dir string) (execPath string, ok bool) {
	data, err := host.ReadManifestFile(dir)
	if err != nil {
		return "", false
	}
	var m struct{ Exec, Language string }
	if json.Unmarshal(data, &m) != nil || m.Language != "go" || m.Exec == "" || !gobuild.IsGoSource(dir) {
		return "", false
	}
	return m.Exec, true
}

// stage builds a Go extension the way zut ext install --build=go does: the
// directory is copied into stageDir (its Go source and a binary already at
// exec left out) and go build -trimpath writes exec there from the source
// directory. The run then uses the staged copy, so that the test neither
// needs a binary built by hand nor trusts a stale one.
func stage(ctx context.Context, dir, execPath, stageDir string) error {
	skip := filepath.Clean(filepath.Join(dir, execPath))
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		target := filepath.Join(stageDir, rel)
		switch {
		case d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules") && path != dir:
			return filepath.SkipDir
		case d.IsDir():
			return os.MkdirAll(target, 0o755)
		case path == skip || filepath.Ext(path) == ".go" || !d.Type().IsRegular():
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		data, err := os.ReadFile(path) //zut:open a regular file of the walk (d.Type checked above), in the extension being tested
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, info.Mode().Perm())
	})
	if err != nil {
		return fmt.Errorf("copy %s into a temporary directory: %w", dir, err)
	}
	return gobuild.Build(ctx, dir, execPath, stageDir)
}
