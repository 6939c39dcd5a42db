package telegramcmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"time"

	"github.com/zut-go/zut/proto/regular"
)

// state is status.json: what the bot's process last said about itself.
type state struct {
	State   string    `json:"state"` // "running" or "stopped"
	PID     int       `json:"pid,omitempty"`
	Since   time.Time `json:"since,omitzero"`
	Detail  string    `json:"detail,omitempty"` // running: what it does now
	Stopped time.Time `json:"stopped,omitzero"`
	Reason  string    `json:"reason,omitempty"` // stopped: why
}

func statePath(dir string) string { return filepath.Join(dir, "status.json") }

func readState(dir string) (state, bool) {
	var s state
	b, err := regular.Read(statePath(dir), 64<<10)
	if err != nil {
		return s, false
	}
	return s, json.Unmarshal(b, &s) == nil
}

// writeState replaces status.json atomically.
func writeState(dir string, s state) error {
	b, _ := json.MarshalIndent(s, "", "  ")
	tmp, err := os.CreateTemp(dir, ".status.*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), statePath(dir))
}
