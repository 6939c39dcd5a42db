package mcp

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// The fake MCP server: the test binary re-executed with ZUT_MCP_FAKE set
// to a mode. It speaks MCP on stdio (or, through fakeServer.handle, behind
// an httptest server).

func TestMain(m *testing.M) {
	if mode := os.Getenv("ZUT_MCP_FAKE"); mode != "" {
		runFake(mode)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// fakeServer answers MCP requests; send writes one message to the client.
type fakeServer struct {
	mode    string
	version string // forced protocol version, or "" to echo the client's
	send    func(v any)
	*fakeState
}

// fakeState is what the fake server remembers between messages (and, over
// HTTP, between POSTs of one session).
type fakeState struct {
	mu      sync.Mutex
	changed bool   // the tool list changed (tool "added" appears)
	agreed  string // the negotiated protocol version
	waiting map[string]chan json.RawMessage
	cancels map[string]chan struct{}
}

func newFakeState() *fakeState {
	return &fakeState{waiting: map[string]chan json.RawMessage{}, cancels: map[string]chan struct{}{}}
}

func newFakeServer(mode string, send func(v any)) *fakeServer {
	return &fakeServer{mode: mode, version: os.Getenv("ZUT_MCP_FAKE_VERSION"), send: send, fakeState: newFakeState()}
}

func runFake(mode string) {
	fmt.Fprintf(os.Stderr, "fake server %s starting\n", mode)
	switch mode {
	case "exit":
		fmt.Fprintln(os.Stderr, "fatal: no configuration")
		os.Exit(3)
	case "silent":
		_, _ = io.Copy(io.Discard, os.Stdin)
		return
	case "child": // leaves a grandchild in its group, then serves
	}
	var wmu sync.Mutex
	w := bufio.NewWriter(os.Stdout)
	send := func(v any) {
		b, _ := json.Marshal(v)
		wmu.Lock()
		w.Write(b)
		w.WriteByte('\n')
		w.Flush()
		wmu.Unlock()
	}
	f := newFakeServer(mode, send)
	if mode == "malformed" {
		wmu.Lock()
		w.WriteString("this is not json\n{\"jsonrpc\":\"2.0\",\"method\":\n[1,2\n\n{\"jsonrpc\":\"1.0\",\"id\":99}\n")
		w.Flush()
		wmu.Unlock()
	}
	r := bufio.NewReaderSize(os.Stdin, 1<<20)
	var wg sync.WaitGroup
	for {
		line, err := r.ReadBytes('\n')
		if len(strings.TrimSpace(string(line))) > 0 {
			wg.Add(1)
			go func() { defer wg.Done(); f.handle(line, wmu.Lock, wmu.Unlock, w) }()
		}
		if err != nil {
			break
		}
	}
	wg.Wait()
	fmt.Fprintln(os.Stderr, "fake server: stdin closed")
}

type fakeMsg struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   json.RawMessage `json:"error,omitempty"`
}

func reply(id json.RawMessage, result any) map[string]any {
	return map[string]any{"jsonrpc": "2.0", "id": id, "result": result}
}

func replyErr(id json.RawMessage, code int, msg string) map[string]any {
	return map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": msg}}
}

var text = func(s string) map[string]any { return map[string]any{"type": "text", "text": s} }

const tinyPNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="

// handle answers one message. raw writers (lock, unlock, w) serve the
// hostile modes that write bytes which are not messages.
func (f *fakeServer) handle(line []byte, lock, unlock func(), w *bufio.Writer) {
	var m fakeMsg
	if err := json.Unmarshal(line, &m); err != nil {
		return
	}
	if m.Method == "" { // a response to one of our requests
		f.mu.Lock()
		ch := f.waiting[string(m.ID)]
		f.mu.Unlock()
		if ch != nil {
			if m.Error != nil {
				ch <- m.Error
			} else {
				ch <- m.Result
			}
		}
		return
	}
	var p map[string]json.RawMessage
	_ = json.Unmarshal(m.Params, &p)
	switch m.Method {
	case "notifications/initialized":
		return
	case "notifications/cancelled":
		var c struct {
			RequestID json.RawMessage `json:"requestId"`
		}
		_ = json.Unmarshal(m.Params, &c)
		f.mu.Lock()
		if ch := f.cancels[string(c.RequestID)]; ch != nil {
			close(ch)
			delete(f.cancels, string(c.RequestID))
		}
		f.mu.Unlock()
		return
	case "initialize":
		var ip struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		_ = json.Unmarshal(m.Params, &ip)
		v := ip.ProtocolVersion
		if f.version != "" {
			v = f.version
		}
		f.mu.Lock()
		f.agreed = v
		f.mu.Unlock()
		if f.mode == "slowinit" {
			time.Sleep(300 * time.Millisecond)
		}
		f.send(reply(m.ID, map[string]any{"protocolVersion": v,
			"capabilities": map[string]any{"tools": map[string]any{"listChanged": true}, "prompts": map[string]any{"listChanged": true},
				"resources": map[string]any{"listChanged": true}, "logging": map[string]any{}},
			"serverInfo": map[string]any{"name": "fake", "version": "1.2.3"}, "instructions": "Use the fake tools."}))
		return
	case "ping":
		f.send(reply(m.ID, map[string]any{}))
		return
	case "tools/list":
		f.send(reply(m.ID, f.toolsPage(p["cursor"])))
		return
	case "prompts/list":
		f.send(reply(m.ID, map[string]any{"prompts": []any{
			map[string]any{"name": "greet", "description": "Greets someone", "arguments": []any{
				map[string]any{"name": "who", "required": true}, map[string]any{"name": "mood"}}},
		}}))
		return
	case "prompts/get":
		var gp struct {
			Name      string            `json:"name"`
			Arguments map[string]string `json:"arguments"`
		}
		_ = json.Unmarshal(m.Params, &gp)
		f.send(reply(m.ID, map[string]any{"description": "A greeting", "messages": []any{
			map[string]any{"role": "user", "content": text(fmt.Sprintf("Say hello to %s, %s.", gp.Arguments["who"], gp.Arguments["mood"]))}}}))
		return
	case "resources/list":
		f.send(reply(m.ID, map[string]any{"resources": []any{
			map[string]any{"uri": "fake://notes/1", "name": "note one", "mimeType": "text/plain"}}}))
		return
	case "resources/templates/list":
		f.send(reply(m.ID, map[string]any{"resourceTemplates": []any{
			map[string]any{"uriTemplate": "fake://notes/{id}", "name": "note"}}}))
		return
	case "resources/read":
		var rp struct {
			URI string `json:"uri"`
		}
		_ = json.Unmarshal(m.Params, &rp)
		if !strings.HasPrefix(rp.URI, "fake://notes/") {
			f.send(replyErr(m.ID, -32002, "Resource not found"))
			return
		}
		f.send(reply(m.ID, map[string]any{"contents": []any{
			map[string]any{"uri": rp.URI, "mimeType": "text/plain", "text": "the text of " + rp.URI}}}))
		return
	case "tools/call":
		f.call(m, p, lock, unlock, w)
		return
	}
	if len(m.ID) > 0 {
		f.send(replyErr(m.ID, -32601, "Method not found"))
	}
}

func (f *fakeServer) toolsPage(cursor json.RawMessage) map[string]any {
	obj := map[string]any{"type": "object", "properties": map[string]any{"message": map[string]any{"type": "string"}}}
	tool := func(name, desc string) map[string]any {
		return map[string]any{"name": name, "description": desc, "inputSchema": obj}
	}
	if f.mode == "badschema" {
		return map[string]any{"tools": []any{
			tool("echo", "Echoes"),
			map[string]any{"name": "broken", "inputSchema": map[string]any{"type": "object", "properties": map[string]any{"x": map[string]any{"type": "strin"}}}},
			map[string]any{"name": "notobject", "inputSchema": map[string]any{"type": "array"}},
			tool("echo", "Echoes again"),
			tool("get.user", "dots"),
			tool("get_user", "underscores"),
			tool(strings.Repeat("very_long_tool_name_", 5), "long"),
		}}
	}
	if string(cursor) == "" || string(cursor) == "null" {
		return map[string]any{"tools": []any{tool("echo", "Echoes its message"), tool("image", "An image"),
			tool("audio", "A sound"), tool("link", "A link"), tool("embedded", "A resource"), tool("structured", "JSON")},
			"nextCursor": "page2"}
	}
	tools := []any{tool("fail", "Fails"), tool("slow", "Reports progress"), tool("wait", "Waits for cancel"),
		tool("sample", "Asks for sampling"), tool("elicit", "Asks the user"), tool("crash", "Crashes"),
		tool("change", "Changes the list"), tool("huge", "Too big"), tool("endless", "Never ends a line"),
		tool("pingback", "Pings the client")}
	f.mu.Lock()
	if f.changed {
		tools = append(tools, tool("added", "Appeared later"))
	}
	f.mu.Unlock()
	return map[string]any{"tools": tools}
}

// request sends a request to the client and waits for the answer.
func (f *fakeServer) request(id, method string, params any) json.RawMessage {
	ch := make(chan json.RawMessage, 1)
	f.mu.Lock()
	f.waiting[id] = ch
	f.mu.Unlock()
	f.send(map[string]any{"jsonrpc": "2.0", "id": json.RawMessage(id), "method": method, "params": params})
	select {
	case r := <-ch:
		return r
	case <-time.After(30 * time.Second):
		return json.RawMessage(`"no answer"`)
	}
}

func (f *fakeServer) call(m fakeMsg, p map[string]json.RawMessage, lock, unlock func(), w *bufio.Writer) {
	var name string
	_ = json.Unmarshal(p["name"], &name)
	var args map[string]any
	_ = json.Unmarshal(p["arguments"], &args)
	var meta struct {
		ProgressToken json.RawMessage `json:"progressToken"`
	}
	_ = json.Unmarshal(p["_meta"], &meta)
	ok := func(content ...any) { f.send(reply(m.ID, map[string]any{"content": content})) }
	switch name {
	case "echo":
		ok(text(fmt.Sprint(args["message"])))
	case "image":
		ok(text("an image:"), map[string]any{"type": "image", "data": tinyPNG, "mimeType": "image/png"})
	case "audio":
		ok(map[string]any{"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"})
	case "link":
		f.mu.Lock()
		old := f.agreed == "2025-03-26" // no resource_link before 2025-06-18
		f.mu.Unlock()
		if old {
			ok(text("see fake://notes/1"))
			return
		}
		ok(map[string]any{"type": "resource_link", "uri": "fake://notes/1", "name": "note one", "mimeType": "text/plain", "description": "The first note"})
	case "embedded":
		ok(map[string]any{"type": "resource", "resource": map[string]any{"uri": "fake://notes/2", "mimeType": "text/plain", "text": "embedded text"}},
			map[string]any{"type": "resource", "resource": map[string]any{"uri": "fake://bin", "mimeType": "application/octet-stream", "blob": "AAEC"}})
	case "structured":
		f.send(reply(m.ID, map[string]any{"content": []any{}, "structuredContent": map[string]any{"temperature": 22.5}}))
	case "fail":
		f.send(reply(m.ID, map[string]any{"content": []any{text("it went wrong")}, "isError": true}))
	case "slow":
		for i := 1; i <= 3; i++ {
			f.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/progress",
				"params": map[string]any{"progressToken": meta.ProgressToken, "progress": i, "total": 3, "message": fmt.Sprintf("step %d", i)}})
		}
		ok(text("done"))
	case "wait":
		ch := make(chan struct{})
		f.mu.Lock()
		f.cancels[string(m.ID)] = ch
		f.mu.Unlock()
		fmt.Fprintf(os.Stderr, "fake server: call %s waits for its cancellation\n", m.ID)
		<-ch
		fmt.Fprintf(os.Stderr, "fake server: call %s cancelled\n", m.ID)
	case "sample":
		r := f.request(`"s1"`, "sampling/createMessage", map[string]any{"messages": []any{
			map[string]any{"role": "user", "content": text("hi")}}, "maxTokens": 10})
		ok(text("sampling answer: " + string(r)))
	case "elicit":
		r := f.request(`"e1"`, "elicitation/create", map[string]any{"message": "Name?", "requestedSchema": map[string]any{
			"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}}})
		ok(text("elicitation answer: " + string(r)))
	case "pingback":
		r := f.request(`"p1"`, "ping", nil)
		ok(text("ping answer: " + string(r)))
	case "crash":
		fmt.Fprintln(os.Stderr, "fake server: crashing")
		os.Exit(7)
	case "change":
		f.mu.Lock()
		f.changed = true
		f.mu.Unlock()
		f.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
		ok(text("changed"))
	case "huge":
		lock()
		w.WriteString(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{"content":[{"type":"text","text":"`)
		w.WriteString(strings.Repeat("x", MaxMessage+10))
		w.WriteString("\"}]}}\n")
		w.Flush()
		unlock()
	case "endless":
		lock()
		chunk := strings.Repeat("y", 1<<20)
		for i := 0; i < 40; i++ {
			if _, err := w.WriteString(chunk); err != nil {
				break
			}
		}
		w.Flush()
		unlock()
		time.Sleep(time.Minute)
	default:
		f.send(replyErr(m.ID, -32602, "Unknown tool: "+name))
	}
}
