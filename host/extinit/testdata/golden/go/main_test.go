package main

// The test runs the extension in-process on pipes and speaks the
// protocol with it, as zut would. Run it with go test.

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"testing"
	"time"
)

// host is a small stand-in for zut.
type host struct {
	t      *testing.T
	w      io.Writer
	frames chan map[string]any
	seq    int
}

func startHost(t *testing.T) *host {
	extR, hostW := io.Pipe()
	hostR, extW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- newExtension().RunIO(context.Background(), extR, extW) }()
	h := &host{t: t, w: hostW, frames: make(chan map[string]any, 64)}
	go func() {
		sc := bufio.NewScanner(hostR)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			var f map[string]any
			if err := json.Unmarshal(sc.Bytes(), &f); err != nil {
				t.Errorf("the extension wrote a line that is not JSON: %q", sc.Text())
				continue
			}
			h.frames <- f
		}
		close(h.frames)
	}()
	t.Cleanup(func() {
		h.send(map[string]any{"type": "shutdown"})
		h.next("shutdown_ack")
		if err := <-done; err != nil {
			t.Errorf("RunIO = %v", err)
		}
		extW.Close()
		hostW.Close()
	})
	if f := h.next(""); f["type"] != "hello" || f["name"] != "demo" || f["protocol_version"] != 2.0 {
		t.Fatalf("first frame = %v, want the hello of demo", f)
	}
	h.send(map[string]any{"type": "hello_ack", "protocol_version": 2, "zut_version": "test", "provider": "test",
		"model": "test", "cwd": ".", "extension_dir": ".", "data_dir": "."})
	h.next("ready")
	return h
}

func (h *host) send(f map[string]any) {
	b, _ := json.Marshal(f)
	if _, err := h.w.Write(append(b, '\n')); err != nil {
		h.t.Fatal(err)
	}
}

// next returns the next frame of type typ ("" for any), skipping others.
func (h *host) next(typ string) map[string]any {
	h.t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case f, ok := <-h.frames:
			if !ok {
				h.t.Fatalf("the extension stopped writing before a %s frame", typ)
			}
			if typ == "" || f["type"] == typ {
				return f
			}
		case <-timeout:
			h.t.Fatalf("no %s frame within 10 s", typ)
		}
	}
}

func (h *host) request(f map[string]any, reply string) map[string]any {
	h.t.Helper()
	h.seq++
	f["id"] = fmt.Sprint(h.seq)
	h.send(f)
	r := h.next(reply)
	if r["id"] != f["id"] {
		h.t.Fatalf("%s id = %v, want %v", reply, r["id"], f["id"])
	}
	return r
}

func TestCommand(t *testing.T) {
	h := startHost(t)
	r := h.request(map[string]any{"type": "command_invoked", "name": "demo", "args": "hi"}, "command_response")
	if r["display"] != "demo: hi" {
		t.Errorf("/demo hi = %v", r)
	}
}

func TestTool(t *testing.T) {
	h := startHost(t)
	r := h.request(map[string]any{"type": "tool_call", "name": "demo", "args": map[string]any{"text": "hi"}}, "tool_result")
	if fmt.Sprint(r["content"]) != "[map[text:HI type:text]]" {
		t.Errorf("demo(hi) = %v", r)
	}
	r = h.request(map[string]any{"type": "tool_call", "name": "demo", "args": map[string]any{}}, "tool_result")
	if r["is_error"] != true {
		t.Errorf("demo({}) = %v, want an error", r)
	}
}

func TestPanel(t *testing.T) {
	h := startHost(t)
	r := h.request(map[string]any{"type": "command_invoked", "name": "demo-panel", "args": ""}, "command_response")
	if r["action"] != "open_panel" {
		t.Fatalf("/demo-panel = %v", r)
	}
	h.send(map[string]any{"type": "panel_key", "panel_id": "demo-panel", "key": "down"})
	if f := h.next("panel_render"); fmt.Sprint(f["lines"]) != "[  first item › second item   third item]" {
		t.Errorf("panel after down = %v", f)
	}
	h.send(map[string]any{"type": "panel_key", "panel_id": "demo-panel", "key": "enter"})
	if f := h.next("notify"); f["message"] != "picked second item" {
		t.Errorf("notify after enter = %v", f)
	}
}
