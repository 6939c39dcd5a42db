package host

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/zut-go/zut/proto"
)

// testExtExe is the name under which the test binary, linked into an
// extension directory, runs as the scripted extension.
const testExtExe = "zut-test-extension"

func TestMain(m *testing.M) {
	if filepath.Base(os.Args[0]) == testExtExe {
		os.Exit(runTestExtension(os.Args[1:]))
	}
	os.Exit(m.Run())
}

// extOptions script the test extension's behaviour.
type extOptions struct {
	name, helloName string
	version         int
	caps            string
	commands        string // comma-separated
	tools           string // comma-separated; name suffixes: "!" deferred, "?" interactive
	events          string
	intercept       string
	noReady         bool
	spam            bool // keep registering, never ready
	garbage         bool
	noHello         bool
	exitNow         int
	hugeLine        bool
	invalidMid      bool
	noRead          bool
	ignoreTerm      bool
	child           bool // start a grandchild and report its pid
	block           string
	rewrite         string
	replace         string
	context         string
	interceptSleep  time.Duration
	barrier         string // dir: wait until barrierN files exist there before hello
	barrierN        int
	readGate        string // wait until this file exists before reading stdin
	added           bool   // serve the additions beyond v2 (add_testext_test.go)
	respond         string // JSON: event name -> event_intercept_response members
}

func parseExtOptions(args []string) (*extOptions, error) {
	o := &extOptions{}
	fs := flag.NewFlagSet("testext", flag.ContinueOnError)
	fs.StringVar(&o.name, "name", "", "")
	fs.StringVar(&o.helloName, "hello-name", "", "")
	fs.IntVar(&o.version, "version", 2, "")
	fs.StringVar(&o.caps, "caps", "", "")
	fs.StringVar(&o.commands, "commands", "", "")
	fs.StringVar(&o.tools, "tools", "", "")
	fs.StringVar(&o.events, "events", "", "")
	fs.StringVar(&o.intercept, "intercept", "", "")
	fs.BoolVar(&o.noReady, "no-ready", false, "")
	fs.BoolVar(&o.spam, "spam", false, "")
	fs.BoolVar(&o.garbage, "garbage", false, "")
	fs.BoolVar(&o.noHello, "no-hello", false, "")
	fs.IntVar(&o.exitNow, "exit-now", -1, "")
	fs.BoolVar(&o.hugeLine, "huge-line", false, "")
	fs.BoolVar(&o.invalidMid, "invalid-mid", false, "")
	fs.BoolVar(&o.noRead, "no-read", false, "")
	fs.BoolVar(&o.ignoreTerm, "ignore-term", false, "")
	fs.BoolVar(&o.child, "child", false, "")
	fs.StringVar(&o.block, "block", "", "")
	fs.StringVar(&o.rewrite, "rewrite", "", "")
	fs.StringVar(&o.replace, "replace", "", "")
	fs.StringVar(&o.context, "context", "", "")
	fs.DurationVar(&o.interceptSleep, "intercept-sleep", 0, "")
	fs.StringVar(&o.barrier, "barrier", "", "")
	fs.IntVar(&o.barrierN, "barrier-n", 0, "")
	fs.StringVar(&o.readGate, "read-gate", "", "")
	fs.BoolVar(&o.added, "added", false, "")
	fs.StringVar(&o.respond, "respond", "", "")
	return o, fs.Parse(args)
}

func splitList(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

// runTestExtension is the scripted extension. It speaks the protocol with
// package proto and reports what it sees as notify frames, which the
// tests read through their recording callbacks.
func runTestExtension(args []string) int {
	o, err := parseExtOptions(args)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	fmt.Fprintf(os.Stderr, "test extension %s starting\n", o.name)
	if o.ignoreTerm {
		signal.Ignore(syscall.SIGTERM)
	}
	if o.exitNow >= 0 {
		return o.exitNow
	}
	if o.barrier != "" {
		os.WriteFile(filepath.Join(o.barrier, o.name), nil, 0o644)
		for deadline := time.Now().Add(waitLimit); time.Now().Before(deadline); {
			des, _ := os.ReadDir(o.barrier)
			if len(des) >= o.barrierN {
				break
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	w := proto.NewWriter(os.Stdout)
	var wmu sync.Mutex
	send := func(f proto.Frame) {
		wmu.Lock()
		defer wmu.Unlock()
		if err := w.Write(f); err != nil {
			fmt.Fprintln(os.Stderr, "write:", err)
			os.Exit(3)
		}
	}
	if o.noHello {
		time.Sleep(time.Hour)
	}
	if o.garbage {
		fmt.Println("starting up, please wait")
	}
	name := o.name
	if o.helloName != "" {
		name = o.helloName
	}
	send(proto.Hello{ProtocolVersion: o.version, Name: name, Version: "1.0.0", Capabilities: splitList(o.caps)})
	for _, c := range splitList(o.commands) {
		send(proto.RegisterCommand{Name: c, Description: "command " + c})
	}
	for _, t := range splitList(o.tools) {
		def := proto.RegisterTool{Description: "tool", Schema: json.RawMessage(`{"type":"object"}`)}
		for strings.HasSuffix(t, "!") || strings.HasSuffix(t, "?") {
			def.Deferred = def.Deferred || strings.HasSuffix(t, "!")
			def.Interactive = def.Interactive || strings.HasSuffix(t, "?")
			t = t[:len(t)-1]
		}
		def.Name = t
		send(def)
	}
	if o.events != "" || o.intercept != "" {
		send(proto.Subscribe{Events: splitList(o.events), Intercept: splitList(o.intercept)})
	}
	if o.spam {
		for i := 0; ; i++ {
			send(proto.RegisterCommand{Name: "spam" + strconv.Itoa(i)})
			time.Sleep(50 * time.Millisecond)
		}
	}
	if !o.noReady {
		send(proto.Ready{})
	}
	if o.child {
		cmd := exec.Command("sleep", "300")
		if err := cmd.Start(); err == nil {
			send(proto.Notify{Message: "child " + strconv.Itoa(cmd.Process.Pid)})
		}
	}
	if o.hugeLine {
		os.Stdout.WriteString(`{"type":"notify","message":"` + strings.Repeat("x", 20<<20) + "\"}\n")
	}
	if o.invalidMid {
		os.Stdout.WriteString("{this is not json\n")
		send(proto.Notify{Message: "after invalid"})
	}
	if o.noRead {
		time.Sleep(time.Hour)
	}
	for o.readGate != "" {
		if _, err := os.Stat(o.readGate); err == nil {
			break
		}
		time.Sleep(2 * time.Millisecond)
	}
	added := newAddedScript(o, send)
	r := proto.NewReader(os.Stdin, 0)
	for {
		f, err := r.Read()
		if err == io.EOF {
			return 0
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "read:", err)
			continue
		}
		if o.added && added.handle(f) {
			continue
		}
		switch f := f.(type) {
		case *proto.HelloAck:
			b, _ := json.Marshal(f)
			send(proto.Notify{Message: "ack " + string(b)})
		case *proto.CommandInvoked:
			switch f.Name {
			case "panel", "panel2":
				send(proto.CommandResponse{ID: f.ID, Action: proto.ActionOpenPanel,
					OpenPanel: &proto.Panel{ID: o.name + "-panel", Title: "T", Lines: []string{f.Args}}})
			case "render":
				send(proto.PanelRender{PanelID: o.name + "-panel", Lines: []string{"redrawn"}})
				send(proto.CommandResponse{ID: f.ID, Action: proto.ActionNoop})
			case "close":
				send(proto.PanelClose{PanelID: o.name + "-panel"})
				send(proto.CommandResponse{ID: f.ID, Action: proto.ActionNoop})
			case "chrome":
				send(proto.Status{Key: "k", Level: "warning", Text: "busy"})
				send(proto.Widget{ID: "w", Position: "sideways", Lines: []string{"l"}})
				send(proto.Alert{Kind: "bell", Reason: "r"})
				send(proto.Submit{Text: "  "})
				send(proto.Submit{Text: "go on"})
				send(proto.SubmitSlash{Text: "/other x"})
				send(proto.OpenPanel{Panel: proto.Panel{ID: "standalone", Lines: []string{"s"}}})
				send(proto.WidgetClear{ID: "w"})
				send(proto.ClearNotes{})
				send(proto.CommandResponse{ID: f.ID, Action: proto.ActionNoop})
			case "silent":
			default:
				send(proto.CommandResponse{ID: f.ID, Action: proto.ActionDisplay, Display: "ran " + f.Name + " " + f.Args})
			}
		case *proto.ToolCall:
			var a struct {
				Details json.RawMessage `json:"details"`
				Names   []string        `json:"names"`
				Size    int             `json:"size"`
			}
			json.Unmarshal(f.Args, &a)
			switch f.Name {
			case "crash":
				os.Exit(7)
			case "exit_after_reply":
				send(proto.ToolResult{ID: f.ID, Content: []proto.ContentBlock{{Type: "text", Text: "last words"}}})
				os.Exit(0)
			case "noreply":
			case "slow", "slow2", "ask":
				send(proto.Notify{Message: "started " + f.ID})
			case "details":
				send(proto.ToolResult{ID: f.ID, Content: []proto.ContentBlock{{Type: "text", Text: "ok"}}, Details: a.Details})
			case "big_details":
				big, _ := json.Marshal(strings.Repeat("d", a.Size))
				send(proto.ToolResult{ID: f.ID, Content: []proto.ContentBlock{{Type: "text", Text: "big"}}, Details: big})
			case "activate":
				send(proto.ToolResult{ID: f.ID, Content: []proto.ContentBlock{{Type: "text", Text: "activated"}}, ActivateTools: a.Names})
			case "wrong_id":
				send(proto.ToolResult{ID: "no-such-" + f.ID, Content: []proto.ContentBlock{{Type: "text", Text: "stray"}}})
				send(proto.ToolResult{ID: f.ID, Content: []proto.ContentBlock{{Type: "text", Text: "right"}}})
			case "broken_reply":
				fmt.Fprintf(os.Stdout, `{"type":"tool_result","id":%q,"content":"not a list"}`+"\n", f.ID)
			default:
				send(proto.ToolResult{ID: f.ID, Content: []proto.ContentBlock{{Type: "text", Text: o.name + ":" + f.Name + ":" + string(f.Args)}}})
			}
		case *proto.ToolCancel:
			send(proto.Notify{Message: "tool_cancel " + f.ID})
		case *proto.Event:
			b, _ := json.Marshal(f)
			send(proto.Notify{Message: "event " + string(b)})
		case *proto.EventIntercept:
			time.Sleep(o.interceptSleep)
			resp := proto.EventInterceptResponse{ID: f.ID, Reason: o.block, Block: o.block != "", ReplaceText: o.replace, Context: o.context}
			if o.rewrite != "" {
				resp.ModifiedArgs = json.RawMessage(o.rewrite)
			}
			if f.Name == "tool_call" {
				send(proto.Notify{Message: "saw args " + string(f.ToolArgs)})
			}
			if f.Name == "assistant_message" {
				send(proto.Notify{Message: "saw text " + f.Text})
			}
			send(resp)
		case *proto.PanelKey:
			send(proto.Notify{Message: "key " + f.PanelID + " " + f.Key + " " + f.Text})
		case *proto.PanelClose:
			send(proto.Notify{Message: "panel_close " + f.PanelID})
		case *proto.Shutdown:
			if o.ignoreTerm {
				continue
			}
			send(proto.ShutdownAck{})
			return 0
		default:
			send(proto.Notify{Message: "got " + f.Type()})
		}
	}
}
