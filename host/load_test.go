package host

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zut-go/zut/proto"
)

// TestLoadErrors covers the handshake failures of issue 2 (C1..C3), each
// next to a good extension that must keep working.
func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"C1 garbage before hello", []string{"-garbage"}, []string{"other than a hello frame", `"starting up, please wait"`}},
		{"C3 wrong version", []string{"-version", "3"}, []string{"protocol_version 3", "protocol_version 2"}},
		{"C2 wrong name", []string{"-hello-name", "impostor"}, []string{`"impostor"`, `"bad"`}},
		{"C1 no hello", []string{"-no-hello"}, []string{"no hello within 5s"}},
		{"exits at once", []string{"-exit-now", "3"}, []string{"exited before sending hello (exit status 3)"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checkNoLeaks(t)
			f := newFixture(t)
			bad := goExt(t, f.global(), "bad", tc.args...)
			goExt(t, f.global(), "good", "-tools", "echo")
			cfg := f.config()
			// Long enough for the good extension to start under the race
			// detector on a loaded 2-core machine; only "no hello" waits
			// it out.
			cfg.Timeouts.Hello = 5 * time.Second
			h := f.start(t, cfg)
			r := report(t, h.Diagnostics(), "bad")
			if r.Status != StatusError {
				t.Fatalf("status of bad = %q, want error; report %+v", r.Status, r)
			}
			for _, w := range append(tc.want, `load extension "bad"`, "dir: "+bad, "exec: ./"+testExtExe, "language: go", "log: "+LogPath(f.home, "bad")) {
				if !strings.Contains(r.Error, w) {
					t.Errorf("error of bad = %q, want it to contain %q", r.Error, w)
				}
			}
			if g := report(t, h.Diagnostics(), "good"); g.Status != StatusOK {
				t.Errorf("status of good = %q, want ok: %+v", g.Status, g)
			}
			if _, err := h.CallTool(context.Background(), "echo", nil); err != nil {
				t.Errorf("CallTool(echo) on the good extension: %v", err)
			}
		})
	}
}

// TestLoadStatuses covers ready, auto-ready and ready-timeout (C5), and a
// registration after ready becoming callable.
func TestLoadStatuses(t *testing.T) {
	checkNoLeaks(t)
	f := newFixture(t)
	goExt(t, f.global(), "a-ready", "-commands", "one")
	goExt(t, f.global(), "b-quiet", "-commands", "two", "-no-ready")
	goExt(t, f.global(), "c-spam", "-spam")
	cfg := f.config()
	// a-ready must make it under load, c-spam never does; c-spam sends a
	// frame every 50 ms, so only a stall of a whole second under load
	// could pass for quiet.
	cfg.Timeouts.Ready = 2 * time.Second
	cfg.Timeouts.Quiet = time.Second
	h := f.start(t, cfg)
	for name, want := range map[string]string{"a-ready": StatusOK, "b-quiet": StatusAutoReady, "c-spam": StatusReadyTimeout} {
		if r := report(t, h.Diagnostics(), name); r.Status != want {
			t.Errorf("status of %s = %q, want %q (%+v)", name, r.Status, want, r)
		}
	}
	if r := report(t, h.Diagnostics(), "c-spam"); !strings.Contains(strings.Join(r.Warnings, "\n"), "still registering") {
		t.Errorf("warnings of c-spam = %q, want the ready-timeout note", r.Warnings)
	}
	// c-spam keeps registering after the window: those commands arrive.
	f.rec.wait(t, "commands_changed")
	deadline := time.Now().Add(waitLimit)
	for {
		n := 0
		for _, c := range h.Commands() {
			if c.Extension == "c-spam" {
				n++
			}
		}
		if n > 12 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("c-spam has %d commands, want registrations after ready-timeout to keep arriving", n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestHelloAck checks what hello_ack carries (C7); the extension echoes it
// back as a note.
func TestHelloAck(t *testing.T) {
	checkNoLeaks(t)
	f := newFixture(t)
	dir := goExt(t, f.project(), "acker")
	cfg := f.config()
	cfg.Session = &proto.Session{ID: "b1", ParentID: "r1", Path: "/s.jsonl", CWD: f.cwd, ForkPoint: 2}
	f.start(t, cfg)
	line := f.rec.wait(t, "notify acker info ack ")
	var ack proto.HelloAck
	if err := json.Unmarshal([]byte(line[strings.Index(line, "ack ")+4:]), &ack); err != nil {
		t.Fatal(err)
	}
	root, _ := filepath.EvalSymlinks(dir)
	want := proto.HelloAck{ProtocolVersion: 2, ZutVersion: "0.1.0-test", Provider: "fake", Model: "fake-1", CWD: f.cwd,
		ExtensionDir: root, DataDir: root, Session: cfg.Session}
	got, _ := json.Marshal(ack)
	wantJSON, _ := json.Marshal(want)
	if string(got) != string(wantJSON) {
		t.Errorf("hello_ack = %s, want %s", got, wantJSON)
	}
}

// TestConcurrentHandshakes proves that extensions handshake concurrently
// (C1): each one waits, before its hello, until all of them have started.
// Loaded one after the other, the first would never see the others and
// would miss its hello deadline.
func TestConcurrentHandshakes(t *testing.T) {
	checkNoLeaks(t)
	f := newFixture(t)
	barrier := t.TempDir()
	const n = 4
	for i := range n {
		goExt(t, f.global(), "c"+string(rune('0'+i)), "-barrier", barrier, "-barrier-n", "4")
	}
	cfg := f.config()
	cfg.Timeouts.Hello = 8 * time.Second
	h := f.start(t, cfg)
	for _, r := range h.Diagnostics() {
		if r.Status != StatusOK {
			t.Errorf("status of %s = %q, want ok: %s", r.Name, r.Status, r.Error)
		}
	}
}

// TestDisabledShadowedThemeOnly checks that such extensions are not
// started and are reported.
func TestDisabledShadowedThemeOnly(t *testing.T) {
	checkNoLeaks(t)
	f := newFixture(t)
	off := goExt(t, f.global(), "off")
	writeManifest(t, off, map[string]any{"name": "off", "exec": "./" + testExtExe, "enabled": false})
	goExt(t, f.project(), "dup", "-commands", "project")
	goExt(t, f.global(), "dup", "-commands", "global")
	themeDir := filepath.Join(f.global(), "theme")
	writeScript(t, filepath.Join(themeDir, "themes", "theme.json"), "{}")
	os.MkdirAll(filepath.Join(themeDir, "skills", "s"), 0o755)
	writeManifest(t, themeDir, map[string]any{"name": "theme", "skills": []string{"skills"}})
	h := f.start(t, f.config())
	want := map[string]string{"off": StatusDisabled, "theme": StatusThemeOnly}
	for name, st := range want {
		if r := report(t, h.Diagnostics(), name); r.Status != st {
			t.Errorf("status of %s = %q, want %q", name, r.Status, st)
		}
	}
	var dups []Report
	for _, r := range h.Diagnostics() {
		if r.Name == "dup" {
			dups = append(dups, r)
		}
	}
	if len(dups) != 2 || dups[0].Scope != ScopeProject || dups[0].Status != StatusOK || dups[1].Status != StatusShadowed {
		t.Errorf("dup reports = %+v, want the project one ok and the global one shadowed", dups)
	}
	if len(h.pids()) != 1 {
		t.Errorf("%d processes started, want 1 (only the project dup)", len(h.pids()))
	}
	if got := h.Commands(); len(got) != 1 || got[0].Name != "project" {
		t.Errorf("Commands() = %+v, want only the project dup's", got)
	}
	root, _ := filepath.EvalSymlinks(themeDir)
	if th := h.Themes(); len(th) != 1 || th[0].Path != filepath.Join(root, "themes", "theme.json") {
		t.Errorf("Themes() = %+v", th)
	}
	if sk := h.Skills(); len(sk) != 1 || sk[0] != filepath.Join(root, "skills") {
		t.Errorf("Skills() = %q", sk)
	}
}

// TestScriptExtensions loads plain Python, Node and shell extensions.
func TestScriptExtensions(t *testing.T) {
	checkNoLeaks(t)
	f := newFixture(t)
	var haveNode, havePython bool
	if _, err := os.Stat("/usr/bin/env"); err != nil {
		t.Skip("no /usr/bin/env")
	}
	if p, err := lookPath("python3"); err == nil && p != "" {
		havePython = true
		dir := filepath.Join(f.global(), "hello-py")
		writeScript(t, filepath.Join(dir, "hello.py"), pythonHello)
		writeManifest(t, dir, map[string]any{"name": "hello-py", "version": "1.0.0", "exec": "./hello.py", "language": "python"})
	}
	if p, err := lookPath("node"); err == nil && p != "" {
		haveNode = true
		dir := filepath.Join(f.global(), "clock")
		writeScript(t, filepath.Join(dir, "clock.js"), nodeClock)
		writeManifest(t, dir, map[string]any{"name": "clock", "exec": "node", "args": []string{"clock.js"}, "language": "typescript"})
	}
	shDir := filepath.Join(f.global(), "stubborn")
	writeScript(t, filepath.Join(shDir, "run.sh"), shStubborn)
	writeManifest(t, shDir, map[string]any{"name": "stubborn", "exec": "./run.sh", "language": "sh"})
	cfg := f.config()
	cfg.Timeouts.Kill = 300 * time.Millisecond
	h := f.start(t, cfg)
	ctx := context.Background()
	if havePython {
		resp, err := h.InvokeCommand(ctx, "HelloPy", "  hi  ")
		if err != nil || resp.Action != proto.ActionPrompt || !strings.Contains(resp.Prompt, "Greet me") {
			t.Errorf("InvokeCommand(HelloPy) = %+v, %v, want the prompt", resp, err)
		}
	}
	if haveNode {
		if r := report(t, h.Diagnostics(), "clock"); r.Status != StatusAutoReady {
			t.Errorf("status of clock = %q, want auto-ready (it never sends ready): %s", r.Status, r.Error)
		}
		resp, err := h.InvokeCommand(ctx, "clock", "")
		if err != nil || resp.Display != "tick" {
			t.Errorf("InvokeCommand(clock) = %+v, %v, want display tick", resp, err)
		}
	}
	if r := report(t, h.Diagnostics(), "stubborn"); r.Status != StatusOK {
		t.Errorf("status of stubborn = %q, want ok: %s", r.Status, r.Error)
	}
	// stubborn ignores shutdown and SIGTERM; closeHost checks it is
	// killed.
}

func lookPath(name string) (string, error) {
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			return p, nil
		}
	}
	return "", os.ErrNotExist
}

const pythonHello = `#!/usr/bin/env python3
import json, sys

def emit(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()

emit({"type":"hello","protocol_version":2,"name":"hello-py","version":"1.0.0","capabilities":["commands"]})

for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "hello_ack":
        if msg.get("protocol_version") != 2:
            raise SystemExit("unsupported extension protocol version")
        emit({"type":"register_command","name":"hellopy","description":"say hi (python)"})
        emit({"type":"ready"})
    elif msg["type"] == "command_invoked":
        emit({"type":"command_response","id":msg["id"],"action":"prompt",
              "prompt": "Greet me very briefly in one sentence."})
    elif msg["type"] == "shutdown":
        emit({"type":"shutdown_ack"})
        break
`

const nodeClock = `const rl = require('readline').createInterface({input: process.stdin});
const emit = (o) => process.stdout.write(JSON.stringify(o) + "\n");
emit({type: "hello", protocol_version: 2, name: "clock", version: "1.0.0"});
emit({type: "register_command", name: "clock", description: "what time is it"});
rl.on('line', (line) => {
  const m = JSON.parse(line);
  if (m.type === "command_invoked") emit({type: "command_response", id: m.id, action: "display", display: "tick"});
  if (m.type === "shutdown") { emit({type: "shutdown_ack"}); process.exit(0); }
});
`

// shStubborn ignores SIGTERM and the shutdown frame.
const shStubborn = `#!/bin/sh
trap '' TERM
echo '{"type":"hello","protocol_version":2,"name":"stubborn"}'
echo '{"type":"ready"}'
while read -r line; do :; done
sleep 300
`
