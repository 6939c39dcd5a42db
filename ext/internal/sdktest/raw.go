package sdktest

// Bad input from the host side, which the real host never sends: the SDK
// process is driven directly on pipes. After each bad line the extension
// must still answer a command.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// rawExt is an SDK process driven without a host.
type rawExt struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	frames chan map[string]any
	stray  chan string // lines that are not JSON objects
	seq    int
	log    syncBuffer // the extension's stderr
}

// syncBuffer is a bytes.Buffer safe for one writer and one reader.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startRaw starts testdata/<Full> on pipes and goes through the
// handshake.
func (s *SDK) startRaw(t testing.TB) *rawExt {
	t.Helper()
	dir := s.extDir(t, "sdkfull", s.Full, "")
	cmd := exec.Command(filepath.Join(dir, filepath.Base(s.Full)))
	cmd.Dir = dir
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	r := &rawExt{cmd: cmd, in: in, frames: make(chan map[string]any, 1024), stray: make(chan string, 16)}
	cmd.Stderr = &r.log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 32<<20)
		for sc.Scan() {
			var f map[string]any
			if json.Unmarshal(sc.Bytes(), &f) != nil {
				select {
				case r.stray <- sc.Text():
				default:
				}
				continue
			}
			r.frames <- f
		}
		close(r.frames)
	}()
	if f := r.next(t, "hello"); f["name"] != "sdkfull" {
		t.Fatalf("hello = %v", f)
	}
	r.send(t, `{"type":"hello_ack","protocol_version":2,"cwd":"/p","capabilities":["host_requests","events2","intercepts2","ui2"]}`)
	r.next(t, "ready")
	return r
}

func (r *rawExt) send(t testing.TB, line string) {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		_, err := io.WriteString(r.in, line+"\n")
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("write to the extension: %v; its log:\n%s", err, r.log.String())
		}
	case <-time.After(waitLimit):
		t.Fatalf("the extension stopped reading its stdin; its log:\n%s", r.log.String())
	}
}

// next returns the next frame of type typ (and id, when not empty).
func (r *rawExt) next(t testing.TB, typ string, id ...string) map[string]any {
	t.Helper()
	timeout := time.After(waitLimit)
	for {
		select {
		case f, ok := <-r.frames:
			if !ok {
				t.Fatalf("the extension ended before a %s frame; its log:\n%s", typ, r.log.String())
			}
			if f["type"] == typ && (len(id) == 0 || f["id"] == id[0]) {
				return f
			}
		case s := <-r.stray:
			t.Fatalf("the extension wrote a line that is not a JSON object: %q", s)
		case <-timeout:
			t.Fatalf("no %s frame %v", typ, id)
		}
	}
}

// alive checks that the extension still answers a command.
func (r *rawExt) alive(t testing.TB) {
	t.Helper()
	r.seq++
	id := fmt.Sprintf("alive-%d", r.seq)
	r.send(t, `{"type":"command_invoked","id":"`+id+`","name":"display","args":"alive"}`)
	if f := r.next(t, "command_response", id); f["display"] != "D:alive" {
		t.Fatalf("after bad input, /display = %v", f)
	}
}

func (r *rawExt) stop(t testing.TB) {
	t.Helper()
	r.send(t, `{"type":"shutdown"}`)
	r.next(t, "shutdown_ack")
	done := make(chan error, 1)
	go func() { done <- r.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("the extension exited with %v after shutdown", err)
		}
	case <-time.After(waitLimit):
		r.cmd.Process.Kill()
		t.Errorf("the extension did not exit after shutdown")
	}
}

var badLines = []string{
	``, `   `, "\r", `not json`, `{`, `[1,2]`, `42`, `"text"`, `null`, `{}`,
	`{"type":5}`, `{"type":"no_such_frame","x":1}`, `{"type":"hello_ack","protocol_version":3}`,
	`{"type":"tool_call"}`, `{"type":"tool_call","id":7,"name":"echo"}`,
	`{"type":"tool_call","id":"t1","name":"echo","args":"a string"}`,
	`{"type":"tool_call","id":"t2","name":null,"args":{}}`,
	`{"type":"tool_call","id":"t3","name":"echo","args":[1]}`,
	`{"type":"tool_cancel","id":"never-started"}`, `{"type":"tool_cancel"}`,
	`{"type":"command_invoked","id":"c1","name":5,"args":7}`, `{"type":"command_invoked","id":"c2"}`,
	`{"type":"event","event":5}`, `{"type":"event"}`, `{"type":"event","event":"turn_start","step":"x"}`,
	`{"type":"event","event":"session_opened","session":"not an object"}`,
	`{"type":"event_intercept","id":"i1","event":"tool_call","tool_args":"x"}`,
	`{"type":"event_intercept","id":"i2","event":"input","text":5}`,
	`{"type":"event_intercept","id":"i3","event":"context_prepare","messages":"x"}`,
	`{"type":"panel_key"}`, `{"type":"panel_close","panel_id":[1]}`,
	`{"type":"host_response","id":"h999","result":{}}`, `{"type":"host_response","id":{},"error":5}`,
	`{"type":"host_stream","id":"h998","text":5}`, `{"type":"shortcut","key":7}`,
	`{"type":"command_complete","id":"cc","name":null,"prefix":5}`, `{"type":"editor_key","id":"ek","key":{}}`,
	`{"type":"render_tool","id":"rt","tool_name":"echo","args":"x","result":5,"width":"w"}`,
	`{"type":"render_message","id":"rm","name":"box","content":5,"width":null}`,
	`{"type":"tool_call","id":"t4","name":"echo","args":{"text":"` + strings.Repeat("é", 1000) + `"}}`,
	"\xff\xfe not utf-8", strings.Repeat("[", 100000),
}

// BadInput sends each of a list of bad lines to one SDK process and
// checks after each that it still answers a command.
func (s *SDK) BadInput(t *testing.T) {
	s.needRuntime(t)
	r := s.startRaw(t)
	for _, line := range badLines {
		name := line
		if len(name) > 60 {
			name = fmt.Sprintf("%s... (%d bytes)", name[:40], len(name))
		}
		t.Run(name, func(t *testing.T) {
			r.send(t, line)
			r.alive(t)
		})
	}
	t.Run("a line over 16 MiB", func(t *testing.T) {
		big := `{"type":"command_invoked","id":"big","name":"display","args":"` + strings.Repeat("x", 17<<20) + `"}`
		r.send(t, big)
		r.alive(t)
	})
	r.stop(t)
}

// FuzzLines sends each input as lines to one long-lived SDK process and
// checks after each that it still answers. Inputs that shut it down are
// skipped.
func (s *SDK) FuzzLines(f *testing.F) {
	s.needRuntime(f)
	for _, l := range badLines {
		f.Add([]byte(l))
	}
	r := s.startRaw(f)
	f.Cleanup(func() { r.stop(f) })
	var mu sync.Mutex
	f.Fuzz(func(t *testing.T, in []byte) {
		if bytes.Contains(in, []byte("shutdown")) {
			t.Skip("would shut the extension down")
		}
		mu.Lock()
		defer mu.Unlock()
		r.send(t, string(in))
		r.alive(t)
	})
}
