package mcp

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
)

// A JSON Schema validator covering what the MCP schemas use ($ref to
// $defs or definitions, type, properties, required, enum, const, anyOf,
// oneOf, allOf, items, additionalProperties, minimum, maximum), and the
// conformance check of every frame a client sent and every result it
// accepted, against the schema of the negotiated revision. The schemas
// are read from $ZUT_CONFORMANCE_DIR/mcp/schema/<revision>/schema.json.

type schemaDoc struct {
	defs map[string]any
}

var (
	schemaMu    sync.Mutex
	schemaCache = map[string]*schemaDoc{}
)

func conformanceDir() string { return os.Getenv("ZUT_CONFORMANCE_DIR") }

func loadSchema(t testing.TB, version string) *schemaDoc {
	t.Helper()
	schemaMu.Lock()
	defer schemaMu.Unlock()
	if d := schemaCache[version]; d != nil {
		return d
	}
	data, err := os.ReadFile(filepath.Join(conformanceDir(), "mcp", "schema", version, "schema.json"))
	if err != nil {
		t.Fatalf("read the MCP schema %s: %v", version, err)
	}
	var top map[string]any
	if err := json.Unmarshal(data, &top); err != nil {
		t.Fatal(err)
	}
	defs, _ := top["$defs"].(map[string]any)
	if defs == nil {
		defs, _ = top["definitions"].(map[string]any)
	}
	d := &schemaDoc{defs: defs}
	schemaCache[version] = d
	return d
}

// validate checks v against the definition name.
func (d *schemaDoc) validate(name string, v any) error {
	s, ok := d.defs[name]
	if !ok {
		return fmt.Errorf("no definition %s", name)
	}
	return d.check(s, v, name)
}

func (d *schemaDoc) check(schema any, v any, path string) error {
	if b, ok := schema.(bool); ok {
		if !b {
			return fmt.Errorf("%s: false schema", path)
		}
		return nil
	}
	s, _ := schema.(map[string]any)
	if ref, ok := s["$ref"].(string); ok {
		name := ref[strings.LastIndex(ref, "/")+1:]
		target, ok := d.defs[name]
		if !ok {
			return fmt.Errorf("%s: unknown $ref %s", path, ref)
		}
		if err := d.check(target, v, path); err != nil {
			return err
		}
	}
	if t, ok := s["type"]; ok && !typeMatches(t, v) {
		return fmt.Errorf("%s: %s is not of type %v", path, short(v), t)
	}
	if c, ok := s["const"]; ok && !reflect.DeepEqual(c, v) {
		return fmt.Errorf("%s: %s is not the constant %v", path, short(v), c)
	}
	if e, ok := s["enum"].([]any); ok {
		found := false
		for _, x := range e {
			found = found || reflect.DeepEqual(x, v)
		}
		if !found {
			return fmt.Errorf("%s: %s is not one of %v", path, short(v), e)
		}
	}
	if f, ok := v.(float64); ok {
		if min, ok := s["minimum"].(float64); ok && f < min {
			return fmt.Errorf("%s: %v < minimum %v", path, f, min)
		}
		if max, ok := s["maximum"].(float64); ok && f > max {
			return fmt.Errorf("%s: %v > maximum %v", path, f, max)
		}
	}
	if list, ok := s["allOf"].([]any); ok {
		for i, sub := range list {
			if err := d.check(sub, v, fmt.Sprintf("%s.allOf[%d]", path, i)); err != nil {
				return err
			}
		}
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		list, ok := s[k].([]any)
		if !ok {
			continue
		}
		n := 0
		var errs []string
		for _, sub := range list {
			if err := d.check(sub, v, path); err == nil {
				n++
			} else {
				errs = append(errs, err.Error())
			}
		}
		if n == 0 || k == "oneOf" && n > 1 {
			return fmt.Errorf("%s: %s matches %d of the %s alternatives: %s", path, short(v), n, k, strings.Join(errs, " | "))
		}
	}
	if obj, ok := v.(map[string]any); ok {
		props, _ := s["properties"].(map[string]any)
		if req, ok := s["required"].([]any); ok {
			for _, r := range req {
				if _, ok := obj[r.(string)]; !ok {
					return fmt.Errorf("%s: required member %q is missing", path, r)
				}
			}
		}
		keys := make([]string, 0, len(obj))
		for k := range obj {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if ps, ok := props[k]; ok {
				if err := d.check(ps, obj[k], path+"."+k); err != nil {
					return err
				}
				continue
			}
			if ap, ok := s["additionalProperties"]; ok {
				if err := d.check(ap, obj[k], path+"."+k); err != nil {
					return fmt.Errorf("%s: member %q not allowed: %v", path, k, err)
				}
			}
		}
	}
	if arr, ok := v.([]any); ok {
		if items, ok := s["items"]; ok {
			for i, x := range arr {
				if err := d.check(items, x, fmt.Sprintf("%s[%d]", path, i)); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func typeMatches(t any, v any) bool {
	if list, ok := t.([]any); ok {
		for _, x := range list {
			if typeMatches(x, v) {
				return true
			}
		}
		return false
	}
	switch t {
	case "object":
		_, ok := v.(map[string]any)
		return ok
	case "array":
		_, ok := v.([]any)
		return ok
	case "string":
		_, ok := v.(string)
		return ok
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "null":
		return v == nil
	case "number":
		_, ok := v.(float64)
		return ok
	case "integer":
		f, ok := v.(float64)
		return ok && f == math.Trunc(f)
	}
	return false
}

func short(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 80 {
		return string(b[:80]) + "…"
	}
	return string(b)
}

// frame is one message a client sent or received.
type frame struct {
	server string
	out    bool
	method string
	data   []byte
}

// recorder keeps the frames of clients for a conformance check.
type recorder struct {
	mu     sync.Mutex
	frames []frame
}

func (r *recorder) trace(server string, out bool, method string, data []byte) {
	r.mu.Lock()
	r.frames = append(r.frames, frame{server, out, method, append([]byte(nil), data...)})
	r.mu.Unlock()
}

// resultDefs names the result definition of each client request.
var resultDefs = map[string]string{
	"initialize": "InitializeResult", "ping": "Result", "tools/list": "ListToolsResult", "tools/call": "CallToolResult",
	"prompts/list": "ListPromptsResult", "prompts/get": "GetPromptResult", "resources/list": "ListResourcesResult",
	"resources/templates/list": "ListResourceTemplatesResult", "resources/read": "ReadResourceResult",
}

// requestDef finds the definition of a request or notification by its
// method constant among the alternatives of union (ClientRequest, ...).
func (d *schemaDoc) requestDef(union, method string) string {
	u, _ := d.defs[union].(map[string]any)
	alts, _ := u["anyOf"].([]any)
	for _, a := range alts {
		ref, _ := a.(map[string]any)["$ref"].(string)
		name := ref[strings.LastIndex(ref, "/")+1:]
		def, _ := d.defs[name].(map[string]any)
		props, _ := def["properties"].(map[string]any)
		m, _ := props["method"].(map[string]any)
		if m["const"] == method {
			return name
		}
	}
	return ""
}

// check validates every recorded frame of server against version: the
// messages zut sent, and the results it accepted. It returns how many
// frames it checked.
func (r *recorder) check(t *testing.T, server, version string) int {
	t.Helper()
	d := loadSchema(t, version)
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, f := range r.frames {
		if f.server != server {
			continue
		}
		var v map[string]any
		if err := json.Unmarshal(f.data, &v); err != nil {
			t.Errorf("frame %s is not JSON: %v", f.data, err)
			continue
		}
		fail := func(def string, err error) {
			t.Errorf("%s frame %s (%s) breaks %s of schema %s: %v", dir(f.out), short(v), f.method, def, version, err)
		}
		_, isResponse := v["id"]
		if _, hasMethod := v["method"]; hasMethod {
			isResponse = false
		}
		switch {
		case f.out && !isResponse:
			union, env := "ClientNotification", "JSONRPCNotification"
			if _, ok := v["id"]; ok {
				union, env = "ClientRequest", "JSONRPCRequest"
			}
			vv := version
			if f.method == "initialize" {
				vv = Versions[0] // sent before anything was negotiated
			}
			dd := loadSchema(t, vv)
			def := dd.requestDef(union, f.method)
			if def == "" {
				fail(union, fmt.Errorf("no definition for method %s", f.method))
				continue
			}
			for _, name := range []string{env, def} {
				if err := dd.validate(name, v); err != nil {
					fail(name, err)
				}
			}
		case f.out: // zut's answer to a server request
			env := "JSONRPCResponse"
			if _, ok := v["error"]; ok {
				env = "JSONRPCError"
				if d.defs[env] == nil {
					env = "JSONRPCErrorResponse"
				}
			} else if err := d.validate("ClientResult", v["result"]); err != nil {
				fail("ClientResult", err)
			}
			if err := d.validate(env, v); err != nil {
				fail(env, err)
			}
		case !f.out && isResponse:
			if _, ok := v["error"]; ok {
				continue // not accepted as a result
			}
			def := resultDefs[f.method]
			if def == "" {
				continue
			}
			if err := d.validate(def, v["result"]); err != nil {
				fail(def, err)
			}
		default:
			continue // server requests and notifications: the server's conformance
		}
		n++
	}
	return n
}

func dir(out bool) string {
	if out {
		return "sent"
	}
	return "received"
}

func skipWithoutConformance(t *testing.T) {
	if conformanceDir() == "" {
		t.Skip("set ZUT_CONFORMANCE_DIR to the directory holding the MCP schemas (mcp/schema/VERSION/schema.json for each version; .ci/run sets it) to check frames against them")
	}
}

func TestSchemaValidatorCanFail(t *testing.T) {
	skipWithoutConformance(t)
	d := loadSchema(t, "2025-11-25")
	bad := []struct {
		def string
		v   string
	}{
		{"CallToolResult", `{"content":[{"type":"text"}]}`},
		{"CallToolResult", `{"content":"x"}`},
		{"InitializeResult", `{"protocolVersion":"x","capabilities":{},"serverInfo":{"name":"a"}}`},
		{"JSONRPCRequest", `{"jsonrpc":"1.0","id":1,"method":"x"}`},
		{"JSONRPCRequest", `{"jsonrpc":"2.0","id":1.5,"method":"x"}`},
		{"ContentBlock", `{"type":"video","data":"x"}`},
	}
	for _, tc := range bad {
		var v any
		json.Unmarshal([]byte(tc.v), &v)
		if err := d.validate(tc.def, v); err == nil {
			t.Errorf("validate(%s, %s) = nil, want an error", tc.def, tc.v)
		}
	}
	var ok any
	json.Unmarshal([]byte(`{"content":[{"type":"text","text":"hi"}],"isError":false}`), &ok)
	if err := d.validate("CallToolResult", ok); err != nil {
		t.Errorf("validate(a good CallToolResult) = %v", err)
	}
}

// TestConformanceFake runs every kind of exchange with the fake server,
// over stdio and HTTP, at each revision, and checks every frame.
func TestConformanceFake(t *testing.T) {
	skipWithoutConformance(t)
	for _, v := range Versions {
		t.Run(v, func(t *testing.T) {
			rec := &recorder{}
			cfg := fakeConfig(t, "fake", "ok", "ZUT_MCP_FAKE_VERSION", v)
			m := NewManager(Options{Home: t.TempDir(), Config: &Config{Servers: []ServerConfig{cfg}}, Trace: rec.trace,
				Sampling: func(ctx contextT, server string, p json.RawMessage) (json.RawMessage, error) {
					return json.RawMessage(`{"role":"assistant","content":{"type":"text","text":"sampled"},"model":"zut-test"}`), nil
				}})
			defer m.Close()
			exerciseFake(t, m, "fake")
			if n := rec.check(t, "fake", v); n < 20 {
				t.Errorf("only %d frames checked", n)
			}
		})
	}
}

func exerciseFake(t *testing.T, m *Manager, server string) {
	t.Helper()
	ctx := contextBG()
	if err := m.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	for _, tool := range []string{"echo", "image", "audio", "link", "embedded", "structured", "fail", "slow", "sample", "elicit", "pingback"} {
		if _, err := m.Call(ctx, "mcp__"+server+"__"+tool, json.RawMessage(`{"message":"x"}`), func(Progress) {}); err != nil {
			t.Errorf("Call(%s) = %v", tool, err)
		}
	}
	if _, err := m.Call(ctx, "mcp__"+server+"__nosuch", nil, nil); err == nil {
		t.Errorf("Call(nosuch) = nil error")
	}
	if _, err := m.Prompt(ctx, "mcp__"+server+"__greet", map[string]string{"who": "you"}); err != nil {
		t.Error(err)
	}
	if _, err := m.ReadResource(ctx, server, "fake://notes/1"); err != nil {
		t.Error(err)
	}
	cctx, cancel := contextWithCancel()
	go func() { waitLog(t, LogPath(m.opts.Home, server), "initialized"); cancel() }()
	m.Call(cctx, "mcp__"+server+"__wait", nil, nil) // cancelled: notifications/cancelled is sent
}
