package lsp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// metaModel is the part of LSP 3.17's metaModel.json the conformance
// test reads.
type metaModel struct {
	Requests      []metaMessage   `json:"requests"`
	Notifications []metaMessage   `json:"notifications"`
	Structures    []metaStructure `json:"structures"`
	Enumerations  []struct {
		Name   string   `json:"name"`
		Type   metaType `json:"type"`
		Values []struct {
			Value json.RawMessage `json:"value"`
		} `json:"values"`
		SupportsCustomValues bool `json:"supportsCustomValues"`
	} `json:"enumerations"`
	TypeAliases []struct {
		Name string   `json:"name"`
		Type metaType `json:"type"`
	} `json:"typeAliases"`
}

type metaMessage struct {
	Method    string    `json:"method"`
	Direction string    `json:"messageDirection"`
	Params    *metaType `json:"params"`
	Result    *metaType `json:"result"`
}

type metaStructure struct {
	Name       string         `json:"name"`
	Properties []metaProperty `json:"properties"`
	Extends    []metaType     `json:"extends"`
	Mixins     []metaType     `json:"mixins"`
}

type metaProperty struct {
	Name     string   `json:"name"`
	Type     metaType `json:"type"`
	Optional bool     `json:"optional"`
}

type metaType struct {
	Kind    string          `json:"kind"`
	Name    string          `json:"name"`
	Element *metaType       `json:"element"`
	Items   []metaType      `json:"items"`
	Value   json.RawMessage `json:"value"` // a literal's structure, a map's value type, a string literal
	Key     *metaType       `json:"key"`
}

// checker validates JSON values against metaModel types.
type checker struct {
	structs map[string]metaStructure
	aliases map[string]metaType
	enums   map[string]func(json.RawMessage) error
}

func newChecker(m *metaModel) *checker {
	c := &checker{structs: map[string]metaStructure{}, aliases: map[string]metaType{}, enums: map[string]func(json.RawMessage) error{}}
	for _, s := range m.Structures {
		c.structs[s.Name] = s
	}
	for _, a := range m.TypeAliases {
		c.aliases[a.Name] = a.Type
	}
	for _, e := range m.Enumerations {
		e := e
		c.enums[e.Name] = func(v json.RawMessage) error {
			if err := c.check(v, e.Type, e.Name); err != nil {
				return err
			}
			if e.SupportsCustomValues {
				return nil
			}
			for _, ev := range e.Values {
				if bytes.Equal(bytes.TrimSpace(ev.Value), bytes.TrimSpace(v)) {
					return nil
				}
			}
			return fmt.Errorf("%s is not a value of %s", v, e.Name)
		}
	}
	return c
}

// properties gathers a structure's properties with those it extends.
func (c *checker) properties(name string) []metaProperty {
	s := c.structs[name]
	props := append([]metaProperty(nil), s.Properties...)
	for _, e := range append(append([]metaType(nil), s.Extends...), s.Mixins...) {
		props = append(props, c.properties(e.Name)...)
	}
	return props
}

func jsonKind(v json.RawMessage) byte {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return 0
	}
	return v[0]
}

// check validates v against t; where names the place for messages.
func (c *checker) check(v json.RawMessage, t metaType, where string) error {
	k := jsonKind(v)
	switch t.Kind {
	case "base":
		ok := false
		switch t.Name {
		case "string", "DocumentUri", "URI", "RegExp":
			ok = k == '"'
		case "integer", "uinteger", "decimal":
			ok = k == '-' || k >= '0' && k <= '9'
		case "boolean":
			ok = string(bytes.TrimSpace(v)) == "true" || string(bytes.TrimSpace(v)) == "false"
		case "null":
			ok = string(bytes.TrimSpace(v)) == "null"
		}
		if !ok {
			return fmt.Errorf("%s: %s is not a %s", where, v, t.Name)
		}
		return nil
	case "reference":
		if a, ok := c.aliases[t.Name]; ok {
			return c.check(v, a, where)
		}
		if e, ok := c.enums[t.Name]; ok {
			return e(v)
		}
		if _, ok := c.structs[t.Name]; !ok {
			return fmt.Errorf("%s: unknown type %s", where, t.Name)
		}
		return c.checkObject(v, c.properties(t.Name), where+" ("+t.Name+")")
	case "literal":
		var lit struct {
			Properties []metaProperty `json:"properties"`
		}
		json.Unmarshal(t.Value, &lit)
		return c.checkObject(v, lit.Properties, where)
	case "array":
		var items []json.RawMessage
		if k != '[' || json.Unmarshal(v, &items) != nil {
			return fmt.Errorf("%s: %s is not an array", where, v)
		}
		for i, it := range items {
			if err := c.check(it, *t.Element, fmt.Sprintf("%s[%d]", where, i)); err != nil {
				return err
			}
		}
		return nil
	case "map":
		var obj map[string]json.RawMessage
		if k != '{' || json.Unmarshal(v, &obj) != nil {
			return fmt.Errorf("%s: %s is not an object", where, v)
		}
		var vt metaType
		json.Unmarshal(t.Value, &vt)
		for key, it := range obj {
			if err := c.check(it, vt, where+"."+key); err != nil {
				return err
			}
		}
		return nil
	case "or":
		var errs []string
		for _, alt := range t.Items {
			err := c.check(v, alt, where)
			if err == nil {
				return nil
			}
			errs = append(errs, err.Error())
		}
		return fmt.Errorf("%s: %s matches no alternative: %s", where, v, strings.Join(errs, " | "))
	case "and":
		for _, it := range t.Items {
			if err := c.check(v, it, where); err != nil {
				return err
			}
		}
		return nil
	case "stringLiteral":
		var want, got string
		json.Unmarshal(t.Value, &want)
		if json.Unmarshal(v, &got) != nil || got != want {
			return fmt.Errorf("%s: %s is not %q", where, v, want)
		}
		return nil
	case "tuple":
		var items []json.RawMessage
		if json.Unmarshal(v, &items) != nil || len(items) != len(t.Items) {
			return fmt.Errorf("%s: %s is not a %d-tuple", where, v, len(t.Items))
		}
		for i := range items {
			if err := c.check(items[i], t.Items[i], fmt.Sprintf("%s[%d]", where, i)); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("%s: unknown type kind %q", where, t.Kind)
}

// checkObject validates an object: no unknown keys, every required one.
func (c *checker) checkObject(v json.RawMessage, props []metaProperty, where string) error {
	var obj map[string]json.RawMessage
	if jsonKind(v) != '{' || json.Unmarshal(v, &obj) != nil {
		return fmt.Errorf("%s: %s is not an object", where, v)
	}
	byName := map[string]metaProperty{}
	for _, p := range props {
		byName[p.Name] = p
	}
	for key, val := range obj {
		p, ok := byName[key]
		if !ok {
			return fmt.Errorf("%s: unknown property %q", where, key)
		}
		if err := c.check(val, p.Type, where+"."+key); err != nil {
			return err
		}
	}
	for _, p := range props {
		if _, ok := obj[p.Name]; !ok && !p.Optional {
			return fmt.Errorf("%s: required property %q is missing", where, p.Name)
		}
	}
	return nil
}

// TestConformance runs a session of every action against the fake server,
// which records every message it receives, and validates each against the
// LSP 3.17 metaModel: the method exists in the client-to-server direction
// and its params have the declared shape. The answers zut gives to the
// server's requests are validated against their result types.
func TestConformance(t *testing.T) {
	root := os.Getenv("ZUT_CONFORMANCE_DIR")
	if root == "" {
		t.Skip("set ZUT_CONFORMANCE_DIR to the absolute path of the shared fixtures to check messages against LSP 3.17's metaModel.json")
	}
	data, err := os.ReadFile(filepath.Join(root, "lsp/_specifications/lsp/3.17/metaModel/metaModel.json"))
	if err != nil {
		t.Fatal(err)
	}
	var mm metaModel
	if err := json.Unmarshal(data, &mm); err != nil {
		t.Fatal(err)
	}
	c := newChecker(&mm)
	messages := map[string]metaMessage{}
	for _, r := range append(append([]metaMessage(nil), mm.Requests...), mm.Notifications...) {
		messages[r.Method] = r
	}

	rec := filepath.Join(t.TempDir(), "recording.jsonl")
	for _, mode := range []string{"ok", "pull"} {
		dir := fakeDir(t, map[string]string{"a.fake": "alpha 😀 beta\nalpha\n"})
		sc := fakeConfig(mode)
		sc.Env[fakeRecordEnv] = rec
		sc.InitializationOptions = json.RawMessage(`{"x": [1, {"y": null}]}`)
		m := NewManager(Config{CWD: dir, Home: dir, Servers: []ServerConfig{sc}, DiagnosticsAfterEdit: true,
			DiagnosticsWait: hangGuard, RequestTimeout: hangGuard, Apply: WriteEdits})
		for _, args := range []string{
			`{"action":"hover","path":"a.fake","line":1,"column":1}`,
			`{"action":"definition","path":"a.fake","line":2,"column":1}`,
			`{"action":"references","path":"a.fake","line":2,"column":1}`,
			`{"action":"symbols","path":"a.fake"}`,
			`{"action":"symbols","query":"alpha"}`,
			`{"action":"diagnostics","path":"a.fake"}`,
			`{"action":"rename","path":"a.fake","line":2,"column":1,"new_name":"ERROR","apply":true}`,
		} {
			if r := run(t, m, args); r.IsError {
				t.Fatalf("%s: lsp %s: %s", mode, args, r.Text())
			}
		}
		writeFile(t, filepath.Join(dir, "a.fake"), "gamma\n")
		m.DiagnosticsAfterWrite(t.Context(), "a.fake")
		os.Remove(filepath.Join(dir, "a.fake"))
		run(t, m, `{"action":"symbols","query":"x"}`) // the refresh closes the removed file
		ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
		m.Close(ctx)
		cancel()
	}

	f, err := os.Open(rec)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	seen := map[string]bool{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r recorded
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("recording line %q: %v", sc.Text(), err)
		}
		if r.Answer != "" {
			meta, ok := messages[r.Answer]
			if !ok || meta.Result == nil {
				continue // fake/unknown, answered with an error
			}
			seen["answer "+r.Answer] = true
			if err := c.check(r.Result, *meta.Result, "answer to "+r.Answer); err != nil {
				t.Error(err)
			}
			continue
		}
		seen[r.Method] = true
		meta, ok := messages[r.Method]
		switch {
		case !ok:
			t.Errorf("zut sent %s, which LSP 3.17 does not define", r.Method)
			continue
		case meta.Direction == "serverToClient":
			t.Errorf("zut sent %s, which goes from server to client", r.Method)
			continue
		}
		hasParams := len(r.Params) > 0 && string(r.Params) != "null"
		switch {
		case meta.Params == nil && hasParams:
			t.Errorf("%s takes no params, zut sent %s", r.Method, r.Params)
		case meta.Params != nil && !hasParams:
			t.Errorf("%s needs params, zut sent none", r.Method)
		case meta.Params != nil:
			if err := c.check(r.Params, *meta.Params, r.Method); err != nil {
				t.Error(err)
			}
		}
	}
	for _, want := range []string{"initialize", "initialized", "shutdown", "exit", "textDocument/didOpen",
		"textDocument/didChange", "textDocument/didClose", "textDocument/hover", "textDocument/definition",
		"textDocument/references", "textDocument/documentSymbol", "workspace/symbol", "textDocument/rename",
		"textDocument/diagnostic", "workspace/didChangeWatchedFiles", "answer workspace/configuration", "answer window/workDoneProgress/create",
		"answer client/registerCapability", "answer workspace/workspaceFolders", "answer window/showDocument"} {
		if !seen[want] {
			t.Errorf("the session never exercised %s", want)
		}
	}
}
