package zutfile

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/zut-go/zut/proto/regular"
)

// The consent store remembers the agents the user agreed to run, by
// digest: a changed agent (any file) has another digest and is asked
// about again. It is $ZUT_HOME/agents/consent.json, mode 0600; a store
// that is not a regular file, or that other users may write, is refused
// (it would let them consent for the user). Writes take a lock file
// beside it and replace the file atomically, so several zut processes
// share it.

// ConsentFile is the consent store's path under $ZUT_HOME.
const ConsentFile = "agents/consent.json"

// maxConsentFile bounds consent.json.
const maxConsentFile = 1 << 20

type consentFile struct {
	Version int                     `json:"version"`
	Agents  map[string]consentEntry `json:"agents"` // by digest
}

type consentEntry struct {
	Name    string    `json:"name"`
	Allowed time.Time `json:"allowed"`
}

// Consented reports whether the user agreed to run the agent of digest.
// A missing, unreadable or unsafe store consents to nothing.
func Consented(zutHome, digest string) bool {
	cf, err := readConsent(zutHome)
	if err != nil {
		return false
	}
	_, ok := cf.Agents[digest]
	return ok
}

// ConsentError is why the store cannot be read, for a caller that wants
// to say so (Consented only answers no); nil when it can.
func ConsentError(zutHome string) error {
	_, err := readConsent(zutHome)
	return err
}

// RememberConsent records that the user agreed to run the agent name
// with digest.
func RememberConsent(zutHome, name, digest string) error {
	if zutHome == "" {
		return errors.New("remember consent: no zut home directory; set ZUT_HOME")
	}
	path := filepath.Join(zutHome, filepath.FromSlash(ConsentFile))
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("remember consent in %s: %v", path, err)
	}
	unlock, err := lockFile(path + ".lock")
	if err != nil {
		return fmt.Errorf("remember consent in %s: %v", path, err)
	}
	defer unlock()
	cf, err := readConsent(zutHome)
	if err != nil {
		return fmt.Errorf("remember consent: %v", err)
	}
	cf.Agents[digest] = consentEntry{Name: name, Allowed: time.Now().UTC().Truncate(time.Second)}
	data, err := json.MarshalIndent(cf, "", "  ")
	if err != nil {
		return fmt.Errorf("remember consent in %s: %v", path, err)
	}
	if err := regular.WriteAtomic(path, append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("remember consent: %v", err)
	}
	return nil
}

func readConsent(zutHome string) (*consentFile, error) {
	cf := &consentFile{Version: 1, Agents: map[string]consentEntry{}}
	path := filepath.Join(zutHome, filepath.FromSlash(ConsentFile))
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return cf, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read consent store %s: %v", path, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("read consent store %s: it is %s, not a regular file; remove it to start over", path, regular.Kind(fi.Mode()))
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm()&0o022 != 0 {
		return nil, fmt.Errorf("read consent store %s: other users may write it (mode %04o); run chmod 600 on it", path, fi.Mode().Perm())
	}
	if uid, ok := fileOwner(fi); ok && uid != os.Getuid() {
		return nil, fmt.Errorf("read consent store %s: it belongs to another user (uid %d); remove it to start over", path, uid)
	}
	data, err := regular.Read(path, maxConsentFile)
	if err != nil {
		return nil, fmt.Errorf("read consent store: %v", err)
	}
	if err := json.Unmarshal(data, cf); err != nil {
		return nil, fmt.Errorf("read consent store %s: %v; remove the file to start over", path, err)
	}
	if cf.Agents == nil {
		cf.Agents = map[string]consentEntry{}
	}
	return cf, nil
}
