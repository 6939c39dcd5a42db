package mcp

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"
)

// TestWrapCommand: ConnectOptions.WrapCommand sees a stdio server's
// command before it starts: what it changes is what runs, and its error
// keeps the server from starting (the app's sandbox with
// sandbox.children).
func TestWrapCommand(t *testing.T) {
	tests := []struct {
		name    string
		wrap    func(*exec.Cmd) error
		wantErr string
	}{
		{"rewritten", func(cmd *exec.Cmd) error { cmd.Env = append(cmd.Env, "ZUT_MCP_FAKE=ok"); return nil }, ""},
		{"refused", func(*exec.Cmd) error { return errors.New("sandbox workspace-write needs Landlock") }, "sandbox workspace-write needs Landlock"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := fakeConfig(t, "wrapped", "ok")
			delete(cfg.Env, "ZUT_MCP_FAKE") // without the wrapper, no server answers
			ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
			defer cancel()
			c, err := Connect(ctx, cfg, ConnectOptions{Home: t.TempDir(), WrapCommand: tc.wrap})
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Connect = %v, want an error with %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Connect = %v", err)
			}
			c.Close()
		})
	}
}
