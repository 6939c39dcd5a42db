package interactive

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/zut-go/zut/provider/providertest"
)

// The key scripts in testdata/keys are UI tests as data: a script of
// keys and waits, and the screens it must produce.
//
//	-- script --
//	size 60 14                   terminal size (default 80x24)
//	reply {"text": "Hi!"}        a model reply (providertest script format)
//	type "some text"             type text, one key per rune
//	key ctrl+c enter alt+enter   press keys
//	wait "text"                  wait until the screen or scrollback shows text
//	requests N                   wait until the model server got N requests
//	idle                         wait until nothing runs
//	screen                       dump the screen
//	all                          dump the screen and the scrollback
//	-- want --
//	(what the screen and all commands printed)
//
// go test -run TestUIKeyScripts -update-tui rewrites the want sections.

func TestUIKeyScripts(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(uiGoldenDir, "keys", "*.txtar"))
	if len(files) == 0 {
		t.Fatal("no key scripts in testdata/keys")
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			comment, sections := splitUITxtar(string(data))
			script := sections["script"]
			got := runKeyScript(t, script)
			if *update {
				out := comment + "-- script --\n" + script + "-- want --\n" + got
				if err := os.WriteFile(file, []byte(out), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if want := sections["want"]; got != want {
				t.Errorf("%s: screens differ\n--- got ---\n%s\n--- want ---\n%s", file, got, want)
			}
		})
	}
}

// splitUITxtar reads a txtar archive into its comment and files by name.
func splitUITxtar(s string) (string, map[string]string) {
	files := map[string]string{}
	var comment strings.Builder
	var cur string
	var b strings.Builder
	inFile := false
	flush := func() {
		if inFile {
			files[cur] = b.String()
		}
		b.Reset()
	}
	for _, line := range strings.SplitAfter(s, "\n") {
		t := strings.TrimRight(line, "\n")
		if strings.HasPrefix(t, "-- ") && strings.HasSuffix(t, " --") && len(t) > 6 {
			flush()
			cur, inFile = t[3:len(t)-3], true
			continue
		}
		if inFile {
			b.WriteString(line)
		} else {
			comment.WriteString(line)
		}
	}
	flush()
	return comment.String(), files
}

// runKeyScript runs a key script and returns what it printed.
func runKeyScript(t *testing.T, script string) string {
	t.Helper()
	o := uiOptions{}
	var steps [][]string
	for n, line := range strings.Split(script, "\n") {
		f := uiScriptWords(t, line)
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		switch f[0] {
		case "size":
			if len(f) != 3 {
				t.Fatalf("line %d: size W H", n+1)
			}
			o.width, _ = strconv.Atoi(f[1])
			o.height, _ = strconv.Atoi(f[2])
		case "reply":
			rs, err := providertest.ParseScript([]byte("[" + strings.TrimSpace(strings.TrimPrefix(line, "reply")) + "]"))
			if err != nil {
				t.Fatalf("line %d: %v", n+1, err)
			}
			o.replies = append(o.replies, rs...)
		case "flags":
			o.args = append(o.args, f[1:]...)
		default:
			steps = append(steps, append([]string{strconv.Itoa(n + 1)}, f...))
		}
	}
	h := startUI(t, o)
	h.idle()
	var out strings.Builder
	for _, st := range steps {
		line, cmd, args := st[0], st[1], st[2:]
		switch cmd {
		case "type":
			for _, a := range args {
				h.typeText(a)
			}
		case "key":
			for _, a := range args {
				seq, ok := keySeq[a]
				if !ok {
					t.Fatalf("line %s: no byte sequence for key %q in keySeq", line, a)
				}
				h.send(seq)
			}
		case "wait":
			h.waitText(strings.Join(args, " "))
		case "requests":
			n, _ := strconv.Atoi(args[0])
			h.waitRequests(n)
		case "idle":
			h.flushInput()
			h.idle()
		case "screen", "all":
			h.flushInput()
			h.sync()
			fmt.Fprintf(&out, "%s (line %s):\n%s", cmd, line, h.screen(cmd == "all"))
		default:
			t.Fatalf("line %s: unknown command %q", line, cmd)
		}
	}
	return out.String()
}

// uiScriptWords splits a script line into words and Go-quoted strings.
func uiScriptWords(t *testing.T, line string) []string {
	var out []string
	for line = strings.TrimSpace(line); line != ""; line = strings.TrimSpace(line) {
		if line[0] == '"' {
			q, err := strconv.QuotedPrefix(line)
			if err != nil {
				t.Fatalf("bad quoted string in %q", line)
			}
			s, _ := strconv.Unquote(q)
			out = append(out, s)
			line = line[len(q):]
			continue
		}
		w, rest, _ := strings.Cut(line, " ")
		out = append(out, w)
		line = rest
	}
	return out
}

// keySeq is what a terminal sends for each key name the scripts use. Esc
// uses the kitty encoding, which needs no wait for a lone ESC.
var keySeq = map[string]string{
	"enter": "\r", "tab": "\t", "backspace": "\x7f", "esc": "\x1b[27u",
	"up": "\x1b[A", "down": "\x1b[B", "right": "\x1b[C", "left": "\x1b[D",
	"home": "\x1b[H", "end": "\x1b[F", "pageup": "\x1b[5~", "pagedown": "\x1b[6~",
	"shift+enter": "\x1b[13;2u", "alt+enter": "\x1b\r", "shift+tab": "\x1b[Z",
	"ctrl+a": "\x01", "ctrl+c": "\x03", "ctrl+d": "\x04", "ctrl+e": "\x05",
	"ctrl+j": "\n", "ctrl+k": "\x0b", "ctrl+o": "\x0f", "ctrl+u": "\x15",
	"ctrl+w": "\x17", "ctrl+y": "\x19", "ctrl+_": "\x1f",
}

// flushInput waits until zut has read every key sent so far: it sends a
// focus report and waits for it to arrive, after everything before it.
func (h *uiHarness) flushInput() {
	h.t.Helper()
	h.do(func(u *ui) { u.focused = false })
	h.send("\x1b[I")
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		got := make(chan bool, 1)
		h.ui.inbox.post(func(u *ui) { got <- u.focused })
		if <-got {
			return
		}
		time.Sleep(2 * time.Millisecond)
	}
	h.t.Fatal("zut did not read its input within 60s")
}

// waitRequests waits until the model server has received n requests.
func (h *uiHarness) waitRequests(n int) {
	h.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for len(h.srv.Requests()) < n {
		if time.Now().After(deadline) {
			h.t.Fatalf("the model server got %d requests, want %d", len(h.srv.Requests()), n)
		}
		time.Sleep(2 * time.Millisecond)
	}
}
