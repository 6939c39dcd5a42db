package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestDocsJSONMode: the event table of rpc.md's JSON mode section lists
// every event zut encodes (the EventType methods of package agent, and
// print mode's final end) and nothing else, each with the JSON members of
// its type, "?" marking exactly the members left out when empty.
func TestDocsJSONMode(t *testing.T) {
	want := encodedEvents(t)
	data, err := os.ReadFile("docs/rpc.md")
	if err != nil {
		t.Fatal(err)
	}
	section := between(t, string(data), "\n## JSON mode\n", "\n## ")
	table := between(t, section, "| event | members | when |", "\n\n")
	rowRE := regexp.MustCompile("(?m)^\\| `([a-z_]+)` \\|([^|]*)\\|")
	memberRE := regexp.MustCompile("`([a-z_]+)(?:\\{[^`]*\\})?`(\\?)?")
	got := map[string]map[string]bool{}
	for _, row := range rowRE.FindAllStringSubmatch(table, -1) {
		members := map[string]bool{}
		for _, m := range memberRE.FindAllStringSubmatch(row[2], -1) {
			members[m[1]] = m[2] == "?"
		}
		got[row[1]] = members
	}
	for _, name := range slices.Sorted(maps.Keys(want)) {
		members, ok := got[name]
		if !ok {
			t.Errorf("docs/rpc.md's JSON mode table lacks the event %s, which zut writes", name)
			continue
		}
		if !reflect.DeepEqual(members, want[name]) {
			t.Errorf("docs/rpc.md's JSON mode table gives %s the members %v, want %v (true: optional, written %s?)", name, members, want[name], "`member`")
		}
	}
	for _, name := range slices.Sorted(maps.Keys(got)) {
		if _, ok := want[name]; !ok {
			t.Errorf("docs/rpc.md's JSON mode table lists the event %s, which zut does not write", name)
		}
	}
}

// encodedEvents returns the events zut writes in JSON mode, each with its
// JSON members (true: omitted when empty): the types of package agent
// with an EventType method, read from their source, and the end event of
// agent/printmode.
func encodedEvents(t *testing.T) map[string]map[string]bool {
	t.Helper()
	fset := token.NewFileSet()
	parse := func(path string) *ast.File {
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	files, err := filepath.Glob("agent/*.go")
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]string{}            // Go type -> event name
	structs := map[string]map[string]bool{} // Go type -> members
	collect := func(f *ast.File, types map[string]map[string]bool) {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Name.Name != "EventType" || d.Recv == nil || len(d.Body.List) != 1 {
					continue
				}
				recv, ok := d.Recv.List[0].Type.(*ast.Ident)
				ret, ok2 := d.Body.List[0].(*ast.ReturnStmt)
				if !ok || !ok2 || len(ret.Results) != 1 {
					continue
				}
				if lit, ok := ret.Results[0].(*ast.BasicLit); ok && lit.Kind == token.STRING {
					names[recv.Name], _ = strconv.Unquote(lit.Value)
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					ts, ok := s.(*ast.TypeSpec)
					if !ok {
						continue
					}
					st, ok := ts.Type.(*ast.StructType)
					if !ok {
						continue
					}
					types[ts.Name.Name] = jsonMembers(st)
				}
			}
		}
	}
	for _, p := range files {
		if !strings.HasSuffix(p, "_test.go") {
			collect(parse(p), structs)
		}
	}
	events := map[string]map[string]bool{}
	for typ, name := range names {
		members, ok := structs[typ]
		if !ok {
			t.Fatalf("agent.%s has an EventType method but no struct type in agent/*.go", typ)
		}
		events[name] = members
	}
	if len(events) < 20 {
		t.Fatalf("found %d event types in agent/*.go; the EventType methods are not where this test reads them", len(events))
	}

	const print = "agent/printmode/print.go"
	src, err := os.ReadFile(print)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(src), `Type: "end"`) {
		t.Fatalf("%s does not write an endEvent with Type \"end\"", print)
	}
	local := map[string]map[string]bool{}
	collect(parse(print), local)
	end, ok := local["endEvent"]
	if !ok {
		t.Fatalf("%s has no type endEvent", print)
	}
	delete(end, "type")
	events["end"] = end
	return events
}

// jsonMembers names the JSON members of a struct, true for omitempty.
func jsonMembers(st *ast.StructType) map[string]bool {
	out := map[string]bool{}
	for _, f := range st.Fields.List {
		if f.Tag == nil || len(f.Names) == 0 {
			continue
		}
		tag, _ := strconv.Unquote(f.Tag.Value)
		name, opts, _ := strings.Cut(reflect.StructTag(tag).Get("json"), ",")
		if name == "-" || name == "" {
			continue
		}
		out[name] = slices.Contains(strings.Split(opts, ","), "omitempty")
	}
	return out
}
