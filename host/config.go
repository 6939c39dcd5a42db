package host

import (
	"context"
	"os/exec"
	"time"

	"github.com/zut-go/zut/proto"
)

// Config is what Start needs. Home and CWD are resolved by the caller
// (C22); ExtDirs are the --ext directories, in command-line order.
type Config struct {
	Home    string   // $ZUT_HOME: extensions/ and logs/ live here
	CWD     string   // the user's project directory
	ExtDirs []string // --ext, loaded first and kept across Reload
	// OnlyExtDirs loads ExtDirs alone: no project or global extension
	// is discovered (a packaged agent's run, zut run).
	OnlyExtDirs bool

	// Env is the environment of every extension process, in the form of
	// os.Environ. The app passes provider.ChildEnv(os.Environ()), which
	// withholds model credentials unless ZUT_PASS_KEYS=1; extensions get
	// the provider and model from hello_ack, never a key. Nil means this
	// process's environment without any *_API_KEY, *_APIKEY, *_AUTH_TOKEN
	// or ZUTCORE_RPC_TOKEN variable.
	Env []string

	// TrustProject decides whether the project extensions (Scope
	// ScopeProject, from <cwd>/.zut/extensions) may run; it is asked on
	// every load and Reload with all of them. The app answers from a
	// TrustStore (Trusted(ProjectRoot(cwd), Digest(entries))) and asks
	// the user when the store does not know the digest. When it returns
	// false they get StatusUntrusted and are not started. Nil trusts
	// them all (the behaviour before the trust store).
	TrustProject func(project []Entry) bool

	// WrapCommand, when set, may rewrite each extension's command before
	// it starts (the app's OS sandbox, with sandbox.children); an error
	// keeps the extension from starting and is reported as its failure.
	WrapCommand func(*exec.Cmd) error

	// hello_ack contents (C7).
	ZutVersion string
	Provider   string
	Model      string
	Session    *proto.Session // the active session, or nil

	// Builtins are the names of the built-in tools active in this run (not
	// switched off with --no-tools or disabled_tools); an extension tool of
	// the same name is shadowed, and one named after an inactive built-in
	// is not. The reserved names (Reserved, C9) are shadowed whether listed
	// or not.
	Builtins []string
	// BuiltinCommands are the built-in slash command names (without the
	// slash); extension commands of the same name, in any case, are
	// shadowed.
	BuiltinCommands []string

	Callbacks Callbacks
	Timeouts  Timeouts // zero fields take the spec's defaults
	Limits    Limits   // zero fields take the spec's defaults
}

// Timeouts of the protocol. A zero field takes the default shown.
type Timeouts struct {
	Hello       time.Duration // spawn to hello (C1): 5s
	Quiet       time.Duration // silence after hello_ack that counts as ready (C5): 250ms
	Ready       time.Duration // hello_ack to ready before ready-timeout (C5): 3s
	Command     time.Duration // command_invoked to command_response (C14): 30s
	Tool        time.Duration // tool_call to tool_result, non-interactive (C14): 60s
	Intercept   time.Duration // event_intercept to its response; then allow (C14): 5s
	Write       time.Duration // one frame write before disconnecting (C11): 5s
	WriteCancel time.Duration // finishing a cancelled tool_call's write (C11): 250ms
	Shutdown    time.Duration // shutdown to exit before SIGTERM (C21): 2s
	Kill        time.Duration // SIGTERM to SIGKILL (C21): 1s

	// Additions beyond v2.
	UI          time.Duration // a ui.* dialog without timeout_ms, then the default, cancelled: 5m
	HostRequest time.Duration // any other host_request, then an error: 10m
	EditorKey   time.Duration // editor_key to editor_key_response, then passthrough: 200ms
	Render      time.Duration // render_tool / render_message to the response, then the default: 1s
	Complete    time.Duration // command_complete to command_completions, then none: 2s
}

// Limits of the per-extension write queue (C11). A zero field takes the
// default shown.
type Limits struct {
	QueueFrames int // 256
	QueueBytes  int // 16 MiB
}

// Limits of frames from extensions.
const (
	// MaxDetails is the largest tool_result.details kept as state (C19).
	MaxDetails = 256 << 10
	// MaxContext is the bound of the joined turn_start context (C15).
	MaxContext = 16 << 10
)

// DefaultTimeouts are the protocol's deadlines, the ones a zero field of
// Timeouts takes; zut ext test holds extensions to the same values.
func DefaultTimeouts() Timeouts { return Timeouts{}.withDefaults() }

func (t Timeouts) withDefaults() Timeouts {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&t.Hello, 5*time.Second)
	def(&t.Quiet, 250*time.Millisecond)
	def(&t.Ready, 3*time.Second)
	def(&t.Command, 30*time.Second)
	def(&t.Tool, 60*time.Second)
	def(&t.Intercept, 5*time.Second)
	def(&t.Write, 5*time.Second)
	def(&t.WriteCancel, 250*time.Millisecond)
	def(&t.Shutdown, 2*time.Second)
	def(&t.Kill, time.Second)
	def(&t.UI, 5*time.Minute)
	def(&t.HostRequest, 10*time.Minute)
	def(&t.EditorKey, 200*time.Millisecond)
	def(&t.Render, time.Second)
	def(&t.Complete, 2*time.Second)
	return t
}

func (l Limits) withDefaults() Limits {
	if l.QueueFrames <= 0 {
		l.QueueFrames = 256
	}
	if l.QueueBytes <= 0 {
		l.QueueBytes = 16 << 20
	}
	return l
}

// Callbacks deliver what extensions ask of the rest of zut. Every field
// may be nil. They are called from the host's goroutines, one extension's
// frames in order, never while a host lock is held; they must return
// promptly (hand the work to the UI loop) and may call Host methods,
// except Close and Reload, which wait for the goroutine running the
// callback. ext is the extension's name.
type Callbacks struct {
	Notify      func(ext, level, message string) // level normalised to info|success|warn|error
	ClearNotes  func(ext string)
	Alert       func(ext, kind, reason string)
	Status      func(ext, key, level, text string) // empty text clears the item
	Widget      func(ext string, w proto.Widget)   // position normalised (C18)
	WidgetClear func(ext, id string)

	// OpenPanel opens p in the single panel slot, owned by ext; it
	// replaces any other panel (whose owner the host has told, C17).
	OpenPanel   func(ext string, p proto.Panel)
	RenderPanel func(ext string, p proto.Panel) // redraw of the open panel
	ClosePanel  func(ext, panelID string)       // the owner closed its panel

	Submit      func(ext, text string) // a prompt; empty text never arrives
	SubmitSlash func(ext, text string) // "/name args" to run as typed (C17)

	// ClearChrome drops everything ext put on screen: status items,
	// widgets, notes and its panel. Called when ext stops or is reloaded
	// (C20).
	ClearChrome func(ext string)
	// Exited reports an extension that stopped while zut ran (crash,
	// disconnect), after ClearChrome; err says why, logPath is its log
	// (C20). It is not called for Close or Reload.
	Exited func(ext string, err error, logPath string)

	ToolsChanged    func() // Tools() changed: rebuild the model's tool list
	CommandsChanged func() // Commands() changed

	// Log carries diagnostics that belong in the chat, such as an
	// interceptor that timed out or sent unusable modified_args.
	Log func(ext, msg string)

	// The callbacks below serve the additions beyond v2 (see
	// docs/protocol.md). Only extensions that listed the capability
	// named in each comment can cause them.

	// UIRequest shows a dialog (ui.select, ui.confirm, ui.input or
	// ui.overlay; capability host_requests) to the user and calls answer
	// with the user's answer, once, from any goroutine. It is called on a
	// goroutine of its own per dialog and should return promptly. When
	// the request's timeout passes or ext stops first, the host answers
	// the extension with the default, cancelled, and calls UIRequestDone;
	// a later answer is ignored. Nil answers every dialog at once,
	// cancelled: nobody can see it.
	UIRequest func(ext string, req proto.UIRequest, answer func(proto.UIResponse))
	// UIRequestDone tells the UI that the dialog id no longer waits for an
	// answer because it timed out or its extension stopped: close it. It
	// is not called after answer.
	UIRequestDone func(ext, id string)

	// HostRequest carries out a host_request (capability host_requests)
	// whose method the host does not handle itself: every method except
	// ui.* and app.notify_custom. It is called on a goroutine of its own
	// per request and must call req.Respond once, from any goroutine. ctx
	// ends when Respond is called, when the request times out (the host
	// then answers with an error) or when its extension stops. Nil
	// answers every such request with an error saying the method is not
	// available.
	HostRequest func(ctx context.Context, req *Request)

	// Print adds a transcript note (capability ui2): shown, never sent to
	// the model, not saved. p.Style is normalised to plain, info, error or
	// block; p.Renderer, when set, names a message renderer to draw it
	// with (see RenderMessage).
	Print func(ext string, p proto.Print)
	// Header and Footer set ext's header or footer (capability ui2); an
	// empty Text clears it.
	Header func(ext string, h proto.Header)
	Footer func(ext string, f proto.Footer)
	// UIVisibility replaces what ext asks the UI to hide (capability ui2).
	UIVisibility func(ext string, v proto.UIVisibility)
	// StatusPriority gives the status item key of ext a priority (lower is
	// further left), before the Status call that shows it (capability
	// ui2). It is not called for priority 0, the default.
	StatusPriority func(ext, key string, priority int)
	// UIChanged reports that Shortcuts, EditorKeys, ToolRenderers,
	// MessageRenderers or Options changed.
	UIChanged func()
}
