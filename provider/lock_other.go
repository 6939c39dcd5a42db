//go:build !unix

package provider

import (
	"context"
	"path/filepath"
	"time"
)

// AuthLockPath is the lock file beside auth.json (unused off Unix).
func AuthLockPath(home string) string { return filepath.Join(home, "auth.json.lock") }

// lockAuth takes no lock off Unix: two processes may both refresh, and
// the later save wins.
func lockAuth(ctx context.Context, home string, limit time.Duration) (func(), error) {
	return func() {}, nil
}
