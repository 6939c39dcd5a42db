package host

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/zut-go/zut/host/internal/jsonfile"
	"github.com/zut-go/zut/proto/regular"
)

// SetEnabled rewrites dir/extension.json with "enabled" set to enabled,
// keeping every other member, known or not, in its order. The file is
// replaced atomically and keeps its permissions. The manifest must be a
// JSON object; it need not be otherwise valid, so that a broken extension
// can still be disabled.
func SetEnabled(dir string, enabled bool) error {
	file := filepath.Join(dir, ManifestFile)
	data, err := readRegular(file, MaxManifest)
	if err != nil {
		return &ManifestError{File: file, Err: err}
	}
	members, err := jsonfile.Members(data)
	if err != nil {
		return &ManifestError{File: file, Err: fmt.Errorf("not a JSON object: %s", jsonErrorAt(data, err))}
	}
	value := json.RawMessage("true")
	if !enabled {
		value = json.RawMessage("false")
	}
	found := false
	for i := range members {
		if members[i].Key == "enabled" {
			members[i].Value, found = value, true
		}
	}
	if !found {
		members = append(members, jsonfile.Member{Key: "enabled", Value: value})
	}
	mode := os.FileMode(0o644) // the file keeps its permissions
	if fi, err := os.Stat(file); err == nil {
		mode = fi.Mode().Perm()
	}
	return regular.WriteAtomic(file, append(jsonfile.Encode(members, ""), '\n'), mode)
}
