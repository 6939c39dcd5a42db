package extensions_test

// TestV2Wire records what the host writes to each protocol v2 example
// (and the kinds of frames the example writes back) while a fixed
// scenario drives it, and compares the record with a golden file. The
// golden files were recorded with the host as it was before the additions
// beyond v2 (commit f4ae3a2), so the test shows that a plain v2 extension
// sees exactly what it saw then: the additions are opt-in by capability
// (C6). The scenario uses only the host API of that commit; it also emits
// the events of the additions, which a v2 extension must never receive.

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zut-go/zut/host"
	"github.com/zut-go/zut/proto"
)

// v2Examples are the examples written for protocol v2 alone.
var v2Examples = []string{"clock", "guard", "hello", "hello-py", "phases", "shout", "todo", "weather"}

// teeScript runs the real executable with both directions of its stdio
// copied to files.
const teeScript = `#!/bin/sh
tee "$0.in" | "$@" | tee "$0.out"
`

func TestV2Wire(t *testing.T) {
	for _, name := range v2Examples {
		t.Run(name, func(t *testing.T) {
			t.Parallel() // each its own copy, host and directories
			for _, tool := range map[string]string{"clock": "node", "hello-py": "python3", "shout": "jq"} {
				if _, err := exec.LookPath(tool); err != nil {
					t.Skipf("%s not found", tool)
				}
			}
			dir := wireCopy(t, name)
			got := wireScenario(t, dir)
			path := filepath.Join("testdata", "v2wire", name+".txt")
			if os.Getenv("ZUT_WIRE_RECORD") != "" {
				os.MkdirAll(filepath.Dir(path), 0o755)
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Errorf("the wire of %s differs from %s (recorded before the additions):\n--- got\n%s\n--- want\n%s", name, path, got, want)
			}
		})
	}
}

// wireCopy copies the example into a temporary directory, builds a Go
// example there, and wraps its executable in teeScript.
func wireCopy(t *testing.T, name string) string {
	t.Helper()
	src, _ := filepath.Abs(name)
	dst := filepath.Join(t.TempDir(), name)
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		info, _ := d.Info()
		return os.WriteFile(filepath.Join(dst, rel), data, info.Mode().Perm())
	})
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	b, _ := os.ReadFile(filepath.Join(dst, "extension.json"))
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	exe := m["exec"].(string)
	if m["language"] == "go" {
		if err := linkBuilt(name, filepath.Join(dst, exe)); err != nil {
			t.Fatal(err)
		}
	}
	args := []any{exe}
	if a, ok := m["args"].([]any); ok {
		args = append(args, a...)
	}
	m["exec"], m["args"] = "./tee.sh", args
	if err := os.WriteFile(filepath.Join(dst, "tee.sh"), []byte(teeScript), 0o755); err != nil {
		t.Fatal(err)
	}
	b, _ = json.Marshal(m)
	if err := os.WriteFile(filepath.Join(dst, "extension.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return dst
}

// wireScenario drives the example in dir through the host and returns the
// normalised record.
func wireScenario(t *testing.T, dir string) string {
	t.Helper()
	home, cwd := t.TempDir(), t.TempDir()
	ctx := context.Background()
	h, err := host.Start(ctx, host.Config{
		Home: home, CWD: cwd, ExtDirs: []string{dir}, ZutVersion: "test", Provider: "test", Model: "test-model",
		Session: &proto.Session{ID: "b1", ParentID: "root", ForkPoint: 2},
	})
	if err != nil {
		t.Fatal(err)
	}
	r := h.Diagnostics()[0]
	var cmds, tools []string
	for _, c := range r.Commands {
		cmds = append(cmds, c.Name)
	}
	for _, c := range r.Tools {
		tools = append(tools, c.Name)
	}
	slices.Sort(cmds)
	slices.Sort(tools)
	h.SetSession(&proto.Session{ID: "b2", ParentID: "b1", ForkPoint: 3}, map[string]json.RawMessage{r.Name: json.RawMessage(`{"v":1}`)})
	for _, ev := range []proto.Event{
		{Name: proto.EventSessionOpened}, {Name: proto.EventTurnStart, Step: 1},
		{Name: proto.EventToolCall, ToolID: "toolu_1", ToolName: "bash", ToolArgs: json.RawMessage(`{"command":"ls","timeout":5}`)},
		{Name: proto.EventToolConfirmationRequested, ToolID: "toolu_1", ToolName: "bash", ToolPreview: "ls"},
		{Name: proto.EventAssistantMessage, Text: "done"}, {Name: proto.EventTurnEnd, Stop: proto.StopEndTurn},
		// Events added beyond v2: a v2 extension never gets them.
		{Name: "agent_start"}, {Name: "agent_end"}, {Name: "message_update"}, {Name: "input"},
		{Name: "custom"}, {Name: "model_change"}, {Name: "session_shutdown"}, {Name: "tool_result"},
	} {
		h.Emit(ev)
	}
	for _, c := range cmds {
		for _, args := range []string{"", "berlin"} {
			h.InvokeCommand(ctx, c, args)
			if id, panel := h.Panel(); id != "" {
				h.PanelKey(panel, "down", "")
				h.PanelKey(panel, "rune", "x")
				h.PanelClosed(panel)
			}
		}
	}
	for _, tl := range tools {
		h.CallTool(ctx, tl, json.RawMessage(`{"city":"Berlin","text":"buy milk","title":"milk"}`))
	}
	h.InterceptToolCall(ctx, "toolu_2", "bash", json.RawMessage(`{"command":"rm -rf /","timeout":5}`))
	h.InterceptTurnStart(ctx, 2)
	h.InterceptAssistantMessage(ctx, "the end")
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	h.Close(cctx)

	in, _ := os.ReadFile(filepath.Join(dir, "tee.sh.in"))
	out, _ := os.ReadFile(filepath.Join(dir, "tee.sh.out"))
	var b strings.Builder
	fmt.Fprintf(&b, "# host -> %s, in order\n", r.Name)
	ids := map[string]string{}
	for line := range strings.Lines(string(in)) {
		line = strings.ReplaceAll(line, home, "$HOME")
		line = strings.ReplaceAll(line, cwd, "$CWD")
		line = strings.ReplaceAll(line, dir, "$EXT")
		line = idPattern.ReplaceAllStringFunc(line, func(m string) string {
			if ids[m] == "" {
				ids[m] = fmt.Sprintf(`"id":"n%d"`, len(ids)+1)
			}
			return ids[m]
		})
		b.WriteString(line)
	}
	fmt.Fprintf(&b, "# %s -> host, frame types, sorted\n", r.Name)
	var types []string
	for line := range strings.Lines(string(out)) {
		f, err := proto.Unmarshal([]byte(line))
		if err != nil {
			types = append(types, "unreadable")
			continue
		}
		types = append(types, f.Type())
	}
	slices.Sort(types)
	for _, typ := range types {
		b.WriteString(typ + "\n")
	}
	return b.String()
}

// idPattern matches the correlation ids of the host (decimal counters).
var idPattern = regexp.MustCompile(`"id":"[0-9]+"`)
