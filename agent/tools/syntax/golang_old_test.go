package syntax

// This file keeps the outline, calls and references of Go as go/parser
// and go/ast gave them before the package had its own Go scanner: the
// oracle of TestGoDifferential.

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	gotoken "go/token"
	"sort"
	"strconv"
	"strings"

	"github.com/zut-go/zut/agent/tools"
)

// oldGoFile is one parsed Go file.
type oldGoFile struct {
	fset *gotoken.FileSet
	tf   *gotoken.File
	file *ast.File
	src  []byte
	str  string // src as a string, for line texts
	err  error  // the first syntax error; the tree is then partial
}

// oldParseGo parses src. A file with syntax errors still yields what the
// parser recovered, with err set.
func oldParseGo(name string, src []byte) *oldGoFile {
	fset := gotoken.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.ParseComments|parser.SkipObjectResolution)
	g := &oldGoFile{fset: fset, file: f, src: src, str: string(src), err: err}
	if f != nil {
		g.tf = fset.File(f.Pos())
	}
	if g.tf == nil {
		g.file = nil // nothing usable: not even a package clause
	}
	return g
}

func (g *oldGoFile) line(p gotoken.Pos) int {
	if !p.IsValid() || g.tf == nil || int(p) < g.tf.Base() || int(p) > g.tf.Base()+g.tf.Size() {
		return 0
	}
	return g.tf.Line(p)
}

func (g *oldGoFile) offset(p gotoken.Pos) int {
	if g.tf == nil || !p.IsValid() {
		return 0
	}
	o := int(p) - g.tf.Base()
	return max(0, min(o, len(g.src)))
}

// text is the source from start to end on one line, without comments,
// with the white space left by line breaks tidied.
func (g *oldGoFile) text(start, end gotoken.Pos) string {
	a, b := g.offset(start), g.offset(end)
	if a >= b {
		return ""
	}
	var sb strings.Builder
	cs := g.file.Comments
	i := sort.Search(len(cs), func(i int) bool { return cs[i].End() > start })
	pos := a
	for ; i < len(cs) && cs[i].Pos() < end; i++ {
		for _, c := range cs[i].List {
			ca, cb := g.offset(c.Pos()), g.offset(c.End())
			if ca < pos || cb > b {
				continue
			}
			sb.Write(g.src[pos:ca])
			sb.WriteByte(' ')
			pos = cb
		}
	}
	sb.Write(g.src[pos:b])
	return tidy(strings.TrimSpace(sb.String()))
}

// oldRecvType is the name of a method's receiver type ("T" in (t *T[K])).
func oldRecvType(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return ""
	}
	e := fd.Recv.List[0].Type
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
		case *ast.ParenExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.Ident:
			return x.Name
		default:
			return ""
		}
	}
}

// oldGoOutline lists the package clause, imports, constants, variables, types
// (with struct fields and interface methods) and functions of g.
func oldGoOutline(g *oldGoFile) []Symbol {
	f := g.file
	if f == nil {
		return nil
	}
	out := []Symbol{{Kind: KindPackage, Name: f.Name.Name, Line: g.line(f.Name.Pos()), Signature: "package " + f.Name.Name}}
	add := func(kind, name string, at gotoken.Pos, end gotoken.Pos, parent string, depth int, sig string) {
		out = append(out, Symbol{Kind: kind, Name: name, Line: g.line(at), EndLine: g.line(end), Parent: parent, Depth: depth, Signature: sig})
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			end := d.End()
			sigEnd := end
			if d.Body != nil {
				sigEnd = d.Body.Lbrace
			}
			kind, recv := KindFunc, oldRecvType(d)
			if d.Recv != nil {
				kind = KindMethod
			}
			add(kind, d.Name.Name, d.Name.Pos(), end, recv, 0, g.text(d.Pos(), sigEnd))
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				switch s := spec.(type) {
				case *ast.ImportSpec:
					path, _ := strconv.Unquote(s.Path.Value)
					add(KindImport, path, s.Path.Pos(), s.End(), "", 0, "import "+g.text(s.Pos(), s.End()))
				case *ast.ValueSpec:
					kind := KindVar
					if d.Tok == gotoken.CONST {
						kind = KindConst
					}
					sig := d.Tok.String() + " " + g.text(s.Pos(), s.End())
					for _, n := range s.Names {
						add(kind, n.Name, n.Pos(), s.End(), "", 0, sig)
					}
				case *ast.TypeSpec:
					oldGoTypeSpec(g, s, add)
				}
			}
		}
	}
	return out
}

// oldGoTypeSpec adds a type and its fields or interface methods.
func oldGoTypeSpec(g *oldGoFile, s *ast.TypeSpec, add func(kind, name string, at, end gotoken.Pos, parent string, depth int, sig string)) {
	name := s.Name.Name
	kind, sigEnd := KindType, s.End()
	var list *ast.FieldList
	switch t := s.Type.(type) {
	case *ast.StructType:
		kind, list, sigEnd = KindStruct, t.Fields, t.Fields.Opening
	case *ast.InterfaceType:
		kind, list, sigEnd = KindInterface, t.Methods, t.Methods.Opening
	}
	if !sigEnd.IsValid() || sigEnd < s.Pos() {
		sigEnd = s.End()
	}
	add(kind, name, s.Name.Pos(), s.End(), "", 0, strings.TrimSpace("type "+g.text(s.Pos(), sigEnd)))
	if list == nil {
		return
	}
	for _, fl := range list.List {
		end := fl.Type.End()
		sig := g.text(fl.Pos(), end)
		if len(fl.Names) == 0 { // embedded
			add(KindField, oldEmbeddedName(fl.Type), fl.Type.Pos(), end, name, 1, sig)
			continue
		}
		fk := KindField
		if _, ok := fl.Type.(*ast.FuncType); ok && kind == KindInterface {
			fk = KindMethod
		}
		for _, n := range fl.Names {
			add(fk, n.Name, n.Pos(), end, name, 1, sig)
		}
	}
}

// oldEmbeddedName is the field name of an embedded type: its last identifier.
func oldEmbeddedName(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
		case *ast.SelectorExpr:
			return x.Sel.Name
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.Ident:
			return x.Name
		default:
			return "?"
		}
	}
}

// oldCalleePath is the dotted name of a call's function: ["fmt", "Errorf"]
// for fmt.Errorf, ["…", "Close"] for f().Close.
func oldCalleePath(e ast.Expr) []string {
	switch x := e.(type) {
	case *ast.Ident:
		return []string{x.Name}
	case *ast.SelectorExpr:
		p := oldCalleePath(x.X)
		if p == nil {
			p = []string{"…"}
		}
		return append(p, x.Sel.Name)
	case *ast.ParenExpr:
		return oldCalleePath(x.X)
	case *ast.IndexExpr:
		return oldCalleePath(x.X)
	case *ast.IndexListExpr:
		return oldCalleePath(x.X)
	}
	return nil
}

// oldFuncName names a function declaration the way results show it:
// "Run" or "(*T).Run".
func oldFuncName(fd *ast.FuncDecl) string {
	r := oldRecvType(fd)
	if r == "" {
		return fd.Name.Name
	}
	if len(fd.Recv.List) > 0 {
		if _, ok := fd.Recv.List[0].Type.(*ast.StarExpr); ok {
			return "(*" + r + ")." + fd.Name.Name
		}
	}
	return r + "." + fd.Name.Name
}

// oldGoCalls lists the calls in g that q matches.
func oldGoCalls(g *oldGoFile, q query) []Symbol {
	if g.file == nil {
		return nil
	}
	var out []Symbol
	for _, d := range g.file.Decls {
		parent := ""
		if fd, ok := d.(*ast.FuncDecl); ok {
			parent = oldFuncName(fd)
		}
		ast.Inspect(d, func(n ast.Node) bool {
			c, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			path := oldCalleePath(c.Fun)
			if path != nil && q.matchPath(path) {
				out = append(out, Symbol{Kind: KindCall, Name: strings.Join(path, "."), Line: g.line(c.Pos()), Parent: parent, Signature: g.text(c.Pos(), c.End())})
			}
			return true
		})
	}
	return out
}

// oldGoRefs lists the identifiers named like q (with q's qualifier, the
// selector's operand or the declaring type must match it too), marking
// those that declare the name.
func oldGoRefs(g *oldGoFile, q query) []Symbol {
	if g.file == nil {
		return nil
	}
	decls := map[gotoken.Pos]bool{}
	qualOK := map[gotoken.Pos]bool{} // idents whose qualifier matched
	var out []Symbol
	for _, d := range g.file.Decls {
		parent := ""
		if fd, ok := d.(*ast.FuncDecl); ok {
			parent = oldFuncName(fd)
			decls[fd.Name.Pos()] = true
			if q.qual != "" && matchGlob(q.qual, oldRecvType(fd)) {
				qualOK[fd.Name.Pos()] = true
			}
		}
		ast.Inspect(d, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.TypeSpec:
				decls[x.Name.Pos()] = true
				if q.qual != "" {
					var list *ast.FieldList
					switch t := x.Type.(type) {
					case *ast.StructType:
						list = t.Fields
					case *ast.InterfaceType:
						list = t.Methods
					}
					if list != nil && matchGlob(q.qual, x.Name.Name) {
						for _, fl := range list.List {
							for _, nm := range fl.Names {
								qualOK[nm.Pos()] = true
							}
						}
					}
				}
			case *ast.ValueSpec:
				for _, nm := range x.Names {
					decls[nm.Pos()] = true
				}
			case *ast.Field:
				for _, nm := range x.Names {
					decls[nm.Pos()] = true
				}
			case *ast.AssignStmt:
				if x.Tok == gotoken.DEFINE {
					for _, l := range x.Lhs {
						if id, ok := l.(*ast.Ident); ok {
							decls[id.Pos()] = true
						}
					}
				}
			case *ast.RangeStmt:
				if x.Tok == gotoken.DEFINE {
					for _, l := range []ast.Expr{x.Key, x.Value} {
						if id, ok := l.(*ast.Ident); ok {
							decls[id.Pos()] = true
						}
					}
				}
			case *ast.SelectorExpr:
				if q.qual != "" {
					if p := oldCalleePath(x.X); p != nil && matchGlob(q.qual, p[len(p)-1]) {
						qualOK[x.Sel.Pos()] = true
					}
				}
			case *ast.Ident:
				if !matchGlob(q.name, x.Name) || q.qual != "" && !qualOK[x.Pos()] {
					return true
				}
				kind := KindRef
				if decls[x.Pos()] {
					kind = KindDecl
				}
				out = append(out, Symbol{Kind: kind, Name: x.Name, Line: g.line(x.Pos()), Parent: parent, Signature: lineText(g.str, g.offset(x.Pos()))})
			}
			return true
		})
	}
	return out
}

// oldFirstError is the first parse error, without the file name.
func oldFirstError(err error) string {
	var el scanner.ErrorList
	if errors.As(err, &el) && len(el) > 0 {
		return tools.Clip(fmt.Sprintf("line %d:%d: %s", el[0].Pos.Line, el[0].Pos.Column, el[0].Msg), 200)
	}
	return tools.Clip(err.Error(), 200)
}
