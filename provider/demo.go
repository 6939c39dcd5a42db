package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// DemoProvider is the name of the built-in demo model's provider: zut
// --demo, --provider demo or --model demo/scripted.
const DemoProvider = "demo"

// demoModel is the catalog entry of the demo model.
var demoModel = Model{Provider: DemoProvider, ID: "scripted", Name: "zut's scripted demo", Wire: WireDemo,
	ContextWindow: 200_000, MaxOutput: 8192}

// Demo is a model that needs no key, no server and no network: it answers
// every prompt with the same short scenario, compiled into zut, so that a
// newcomer sees what zut does (a command it asks to run, a file it reads,
// a Markdown answer with a diff) before choosing a real model. It reads
// the conversation to know which step comes next: first a bash call
// listing the directory, then a read of a file the listing showed, then
// the answer. Tools that are not offered are skipped.
//
// Text streams in small pieces, Delay apart, as a real model's does. A
// Demo is safe for concurrent use.
type Demo struct {
	Delay time.Duration
}

// demoFiles are the files the demo reads when the listing shows one, in
// order of preference.
var demoFiles = []string{"README.md", "go.mod", "package.json", "Cargo.toml", "pyproject.toml", "Makefile", "README"}

// Stream answers req with the next step of the scenario.
func (d Demo) Stream(ctx context.Context, req *Request) (Stream, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	reply := demoReply(req)
	asm := &assembler{model: demoModel.ID, provider: DemoProvider}
	asm.emit(Event{Type: EventRequest, Attempt: 1, MaxAttempts: 1})
	asm.start(demoModel.ID, "")
	if reply.text != "" {
		i := asm.block(Block{Type: BlockText})
		for _, piece := range demoPieces(reply.text, 14) {
			asm.text(i, piece)
		}
	}
	for n, t := range reply.tools {
		id := fmt.Sprintf("demo_%d_%d", len(req.Messages), n+1)
		i := asm.toolStart(id, t.name)
		args, _ := json.Marshal(t.args)
		asm.toolDelta(i, string(args))
		asm.toolEnd(i, false)
	}
	in := 0
	for _, m := range req.Messages {
		in += len(m.Text())
		for _, b := range m.Content {
			in += len(b.Input) + len(b.Text)
			for _, c := range b.Content {
				in += len(c.Text)
			}
		}
	}
	asm.setUsage(Usage{Input: (len(req.System)+in)/4 + 1, Output: len(reply.text)/4 + 1})
	asm.finish(StopEndTurn)
	return &demoStream{ctx: ctx, asm: asm, delay: d.Delay, done: make(chan struct{})}, nil
}

// demoTool is one tool call of a step.
type demoTool struct {
	name string
	args map[string]any
}

type demoStep struct {
	text  string
	tools []demoTool
}

// demoReply is the step of the scenario that follows req's messages.
func demoReply(req *Request) demoStep {
	offered := map[string]bool{}
	for _, t := range req.Tools {
		offered[t.Name] = true
	}
	// The user's last words, and what the tools said since.
	var prompt, listing, file, fileText string
	ran := map[string]bool{}
	calls := map[string]string{} // tool call ID → tool name
	for _, m := range req.Messages {
		if m.Role == RoleUser && m.UserText() != "" {
			prompt, listing, file, fileText, ran = m.UserText(), "", "", "", map[string]bool{}
		}
		for _, b := range m.Content {
			switch b.Type {
			case BlockToolUse:
				ran[b.Name], calls[b.ID] = true, b.Name
				if b.Name == "read" {
					var a struct{ Path string }
					json.Unmarshal(b.Input, &a)
					file = a.Path
				}
			case BlockToolResult:
				if b.IsError {
					continue
				}
				var text strings.Builder
				for _, c := range b.Content {
					text.WriteString(c.Text)
				}
				switch calls[b.ToolUseID] {
				case "bash":
					listing = text.String()
				case "read":
					fileText = text.String()
				}
			}
		}
	}

	switch {
	case !ran["bash"] && !ran["read"] && offered["bash"]:
		return demoStep{
			text: fmt.Sprintf("I'm zut's built-in **demo model**: a short script compiled into zut, with no key and no network. "+
				"You asked: %s. A real model would think about that; I'll show you what zut does instead. "+
				"First I'll list this directory, so zut asks before I run a command.", quoteShort(prompt)),
			tools: []demoTool{{"bash", map[string]any{"command": "ls -a | head -20", "timeout": 10}}},
		}
	case !ran["read"] && offered["read"]:
		name := ""
		for _, f := range demoFiles {
			if listed(listing, f) {
				name = f
				break
			}
		}
		if name != "" || !ran["bash"] {
			if name == "" {
				name = "README.md"
			}
			lead := "The listing shows `" + name + "`; I'll read it."
			if !ran["bash"] {
				lead = "I'm zut's built-in **demo model** (a script, no key, no network). I'll read `" + name + "`."
			}
			return demoStep{text: lead, tools: []demoTool{{"read", map[string]any{"path": name, "limit": 40}}}}
		}
	}
	return demoStep{text: demoAnswer(listing, file, fileText)}
}

// listed reports whether an ls listing holds name as one of its lines.
func listed(listing, name string) bool {
	for _, l := range strings.Split(listing, "\n") {
		if strings.TrimSpace(l) == name {
			return true
		}
	}
	return false
}

// quoteShort quotes s for the answer, cut to a line of 60 characters.
func quoteShort(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) > 60 {
		s = string([]rune(s)[:59]) + "…"
	}
	return "“" + s + "”"
}

// demoAnswer is the scenario's closing answer in Markdown.
func demoAnswer(listing, file, fileText string) string {
	var b strings.Builder
	b.WriteString("## What I saw\n\n")
	entries := 0
	for _, l := range strings.Split(strings.TrimSpace(listing), "\n") {
		if l = strings.TrimSpace(l); l != "" && l != "." && l != ".." {
			entries++
		}
	}
	if listing != "" {
		fmt.Fprintf(&b, "- The directory listing showed **%d entries** (the first 20 at most).\n", entries)
	}
	first := ""
	for _, l := range strings.Split(fileText, "\n") {
		// The read tool numbers its lines: "     1\ttext".
		if _, rest, ok := strings.Cut(l, "\t"); ok {
			l = rest
		}
		if l = strings.TrimSpace(l); l != "" {
			first = l
			break
		}
	}
	if file != "" && first != "" {
		fmt.Fprintf(&b, "- `%s` begins with `%s`.\n", file, strings.ReplaceAll(quoteCut(first, 60), "`", "'"))
	} else if file != "" {
		fmt.Fprintf(&b, "- `%s` could not be read here, which is fine for a demo.\n", file)
	}
	b.WriteString("\nA real model would now propose a change, shown as a diff:\n\n")
	target := file
	if target == "" {
		target = "NOTES.md"
	}
	fmt.Fprintf(&b, "```diff\n--- a/%s\n+++ b/%s\n@@ -1,2 +1,3 @@\n", target, target)
	if first != "" {
		fmt.Fprintf(&b, " %s\n", quoteCut(first, 60))
	} else {
		b.WriteString(" # Notes\n")
	}
	b.WriteString("-TODO: explain how to run this\n+Run it with `make run`; test it with `make test`.\n+(a suggestion from zut's demo model)\n```\n\n")
	b.WriteString("## Next steps\n\n| to | do |\n|---|---|\n" +
		"| use a real model | `/login` here, or `zut auth login anthropic` (a key or a Claude Pro/Max sign-in) |\n" +
		"| use a local model | start Ollama or llama.cpp, then `zut --provider ollama` |\n" +
		"| see every command | `/help` |\n\n" +
		"Nothing was changed on disk: the demo only lists and reads.")
	return b.String()
}

// quoteCut cuts s to n characters.
func quoteCut(s string, n int) string {
	if utf8.RuneCountInString(s) > n {
		return string([]rune(s)[:n-1]) + "…"
	}
	return s
}

// demoPieces splits s into pieces of about n bytes, at rune boundaries.
func demoPieces(s string, n int) []string {
	var out []string
	for len(s) > n {
		i := n
		for i < len(s) && !utf8.RuneStart(s[i]) {
			i++
		}
		out = append(out, s[:i])
		s = s[i:]
	}
	if s != "" {
		out = append(out, s)
	}
	return out
}

// demoStream hands out the queued events of one demo reply, a text delta
// every delay, and assembles the message of those handed out.
type demoStream struct {
	ctx   context.Context
	asm   *assembler // the whole reply, made before the first Next
	live  assembler  // what was handed out so far
	delay time.Duration
	next  int
	cur   Event
	err   error
	once  sync.Once
	done  chan struct{}
}

func (s *demoStream) Next() bool {
	if s.err != nil || s.next >= len(s.asm.out) {
		return false
	}
	e := s.asm.out[s.next]
	if e.Type == EventTextDelta && s.delay > 0 {
		t := time.NewTimer(s.delay)
		select {
		case <-t.C:
		case <-s.ctx.Done():
		case <-s.done:
		}
		t.Stop()
	}
	select {
	case <-s.done:
		s.err = context.Canceled
		return false
	default:
	}
	if err := s.ctx.Err(); err != nil {
		s.err = err
		return false
	}
	switch e.Type {
	case EventStart:
		s.live.start(e.Model, e.RequestID)
	case EventTextDelta:
		for len(s.live.blocks) <= e.Index {
			s.live.block(Block{Type: BlockText})
		}
		s.live.text(e.Index, e.Text)
	case EventToolStart:
		s.live.toolStart(e.ToolID, e.ToolName)
	case EventToolDelta:
		s.live.toolDelta(e.Index, e.Text)
	case EventToolEnd:
		s.live.toolEnd(e.Index, false)
	case EventUsage:
		s.live.setUsage(e.Usage)
	case EventStop:
		s.live.finish(e.Stop)
	}
	s.live.out = s.live.out[:0]
	s.cur = e
	s.next++
	return true
}

func (s *demoStream) Event() Event     { return s.cur }
func (s *demoStream) Err() error       { return s.err }
func (s *demoStream) Message() Message { return s.live.message() }

func (s *demoStream) Close() error {
	s.once.Do(func() { close(s.done) })
	return nil
}

// DemoDelayEnv sets the demo model's pause between text pieces, in
// milliseconds (10 by default; 0 streams at once, for tests).
const DemoDelayEnv = "ZUT_DEMO_DELAY_MS"

// resolveDemo is Resolve for the demo provider: no key, no base URL, no
// catalog file.
func resolveDemo(o Options) (*Resolved, error) {
	if id := strings.TrimPrefix(strings.TrimSpace(o.Model), DemoProvider+"/"); id != "" && id != demoModel.ID {
		return nil, fmt.Errorf("demo: unknown model %q — the demo has one model, %s/%s", o.Model, DemoProvider, demoModel.ID)
	}
	if o.BaseURL != "" {
		return nil, fmt.Errorf("demo: --base-url %s does not apply: the demo model runs inside zut; drop --base-url, or pick a real provider with --provider", RedactURL(o.BaseURL))
	}
	reasoning, err := ParseReasoning(o.Reasoning)
	if err != nil {
		return nil, err
	}
	delay := 10 * time.Millisecond
	if v := strings.TrimSpace(o.getenv(DemoDelayEnv)); v != "" {
		ms, err := strconv.Atoi(v)
		if err != nil || ms < 0 || ms > 10_000 {
			return nil, fmt.Errorf("$%s=%q: want a whole number of milliseconds from 0 to 10000", DemoDelayEnv, v)
		}
		delay = time.Duration(ms) * time.Millisecond
	}
	return &Resolved{
		Client:        Demo{Delay: delay},
		Provider:      ProviderInfo{Name: DemoProvider, Wire: WireDemo, Local: true, DefaultModel: demoModel.ID},
		Model:         demoModel,
		Known:         true,
		BaseURL:       "",
		BaseURLSource: "the built-in demo",
		Reasoning:     reasoning,
		Display:       DemoProvider + "/" + demoModel.ID,
		Note:          "the demo model: scripted answers from inside zut, no key, no network (/login or zut auth login for a real model)",
	}, nil
}
