package shell

import (
	"fmt"
	"strings"
)

// rawCmd is a simple command as parsed, before wrappers are seen
// through.
type rawCmd struct {
	assigns []word
	words   []word
	redirs  []string
	writes  bool
	stdin   *input
	text    string // its source text
}

// input is what a command reads on its standard input, when the line
// says.
type input struct {
	text   string // a here-document or here-string
	static bool   // text is exactly what is read (no expansion)
	file   bool   // a file (< path)
}

// heredoc is a here-document whose body is read at the next new line.
type heredoc struct {
	delim  string
	quoted bool // the delimiter was quoted: no expansion in the body
	strip  bool // <<-: leading tabs are removed
	in     *input
}

// parser reads one source: the line, or a string run as code.
type parser struct {
	st      *state
	src     string
	pos     int
	depth   int
	level   int
	raws    []rawCmd
	pending []*heredoc
	err     *Error
}

// parseSource parses src, at the given level of strings run as code, into
// its simple commands.
func parseSource(st *state, src string, level int) ([]rawCmd, error) {
	p := &parser{st: st, src: src, level: level, raws: make([]rawCmd, 0, 1+len(src)/16)}
	st.work += len(src)
	if st.work > maxWork {
		return nil, &Error{Msg: "too much to read"}
	}
	p.list()
	if p.ok() && !p.eof() {
		p.failf("unexpected %q", p.token())
	}
	p.readDocs()
	if p.err != nil {
		return p.raws, p.err
	}
	return p.raws, nil
}

func (p *parser) ok() bool  { return p.err == nil }
func (p *parser) eof() bool { return p.pos >= len(p.src) }

func (p *parser) failf(format string, args ...any) {
	if p.err == nil {
		p.err = &Error{Pos: p.pos, Msg: fmt.Sprintf(format, args...)}
	}
}

// token is the text at pos, for a message.
func (p *parser) token() string {
	s := p.src[p.pos:]
	for i := 0; i < len(s); i++ {
		if i > 0 && isMeta(s[i]) || i >= 12 {
			return s[:i]
		}
	}
	return s
}

func (p *parser) peek(s string) bool { return strings.HasPrefix(p.src[p.pos:], s) }

func (p *parser) eat(s string) bool {
	if p.peek(s) {
		p.pos += len(s)
		return true
	}
	return false
}

// isMeta reports whether c ends an unquoted word.
func isMeta(c byte) bool {
	switch c {
	case ' ', '\t', '\n', ';', '&', '|', '<', '>', '(', ')':
		return true
	}
	return false
}

// atReserved reports whether the reserved word w is at pos, in a place
// where a command starts.
func (p *parser) atReserved(w string) bool {
	if !p.peek(w) {
		return false
	}
	end := p.pos + len(w)
	return end == len(p.src) || isMeta(p.src[end])
}

// skipBlank skips blanks, line continuations and a comment.
func (p *parser) skipBlank() {
	for !p.eof() {
		switch c := p.src[p.pos]; {
		case c == ' ' || c == '\t':
			p.pos++
		case c == '\\' && p.pos+1 < len(p.src) && p.src[p.pos+1] == '\n':
			p.pos += 2
		case c == '#':
			for !p.eof() && p.src[p.pos] != '\n' {
				p.pos++
			}
		default:
			return
		}
	}
}

// skipSpace skips blanks and new lines, reading here-documents.
func (p *parser) skipSpace() {
	for p.ok() {
		p.skipBlank()
		if p.eof() || p.src[p.pos] != '\n' {
			return
		}
		p.newline()
	}
}

// newline consumes a new line and the bodies of the here-documents it
// ends.
func (p *parser) newline() {
	p.pos++
	p.readDocs()
}

func (p *parser) readDocs() {
	docs := p.pending
	p.pending = nil
	for _, d := range docs {
		var body strings.Builder
		for !p.eof() {
			line := p.src[p.pos:]
			next := len(p.src)
			if i := strings.IndexByte(line, '\n'); i >= 0 {
				line, next = line[:i], p.pos+i+1
			}
			p.pos = next
			if d.strip {
				line = strings.TrimLeft(line, "\t")
			}
			if line == d.delim {
				break
			}
			body.WriteString(line)
			body.WriteByte('\n')
		}
		d.in.text, d.in.static = body.String(), true
		if !d.quoted {
			d.in.text, d.in.static = p.expandDoc(d.in.text)
		}
	}
}

// atCloser reports whether what is at pos ends a list: ) ;; ;& or a
// reserved word that closes a compound command.
func (p *parser) atCloser() bool {
	if p.peek(")") || p.peek(";;") || p.peek(";&") {
		return true
	}
	for _, w := range []string{"then", "else", "elif", "fi", "do", "done", "esac", "}"} {
		if p.atReserved(w) {
			return true
		}
	}
	return false
}

// list parses commands separated by ; & and new lines, up to the end or
// a closer, which it leaves for the caller.
func (p *parser) list() {
	for p.ok() {
		p.skipSpace()
		if p.eof() || p.atCloser() {
			return
		}
		start := p.pos
		p.andOr()
		if !p.ok() {
			return
		}
		p.skipBlank()
		switch {
		case p.eof(), p.atCloser():
			return
		case p.peek("\n"):
			p.newline()
		case p.peek(";"), p.peek("&") && !p.peek("&&"):
			p.pos++
		default:
			p.failf("unexpected %q", p.token())
		}
		if p.pos == start {
			p.failf("unexpected %q", p.token())
		}
	}
}

func (p *parser) andOr() {
	p.pipeline()
	for p.ok() {
		p.skipBlank()
		if !p.eat("&&") && !p.eat("||") {
			return
		}
		p.skipSpace()
		p.pipeline()
	}
}

func (p *parser) pipeline() {
	for p.ok() {
		p.skipBlank()
		if p.atReserved("!") {
			p.pos++
			continue
		}
		if p.atReserved("time") {
			p.pos += 4
			p.skipBlank()
			if p.atReserved("-p") {
				p.pos += 2
				p.skipBlank()
			}
			if p.atReserved("--") {
				p.pos += 2
			}
			continue
		}
		break
	}
	p.command()
	for p.ok() {
		p.skipBlank()
		if p.peek("||") || !(p.eat("|&") || p.eat("|")) {
			return
		}
		p.skipSpace()
		p.command()
	}
}

// command parses one command: compound or simple, with its redirections.
func (p *parser) command() {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxDepth {
		p.failf("nested too deeply")
		return
	}
	p.skipBlank()
	if p.eof() {
		p.failf("a command is missing at the end")
		return
	}
	first := len(p.raws)
	compound := true
	switch {
	case p.peek("(("):
		start := p.pos
		p.pos += 2
		if !p.arith(false) {
			p.pos = start + 1
			p.raws = p.raws[:first]
			p.list()
			p.expect(")")
		}
	case p.eat("("):
		p.list()
		p.expect(")")
	case p.atReserved("{"):
		p.pos++
		p.list()
		p.expectWord("}")
	case p.atReserved("if"):
		p.pos += 2
		p.list()
		p.expectWord("then")
		p.list()
		for p.ok() {
			if p.atReserved("elif") {
				p.pos += 4
				p.list()
				p.expectWord("then")
				p.list()
				continue
			}
			if p.atReserved("else") {
				p.pos += 4
				p.list()
			}
			break
		}
		p.expectWord("fi")
	case p.atReserved("while"), p.atReserved("until"):
		p.pos += 5
		p.list()
		p.expectWord("do")
		p.list()
		p.expectWord("done")
	case p.atReserved("for"), p.atReserved("select"):
		p.forLoop()
	case p.atReserved("case"):
		p.caseCommand()
	case p.atReserved("function"):
		p.pos += 8
		p.skipBlank()
		if w := p.word(); w.src == "" {
			p.failf("function without a name")
			return
		}
		p.skipBlank()
		if p.eat("(") {
			p.skipBlank()
			p.expect(")")
		}
		p.skipSpace()
		p.command()
		return
	case p.atReserved("[["):
		p.pos += 2
		p.condition()
	case p.atReserved("coproc"):
		p.pos += 6
		p.command()
		return
	default:
		compound = false
		p.simple()
	}
	if compound && p.ok() {
		var rc rawCmd
		for p.ok() {
			p.skipBlank()
			if !p.redirect(&rc) {
				break
			}
		}
		if rc.writes {
			for i := first; i < len(p.raws); i++ {
				p.raws[i].writes = true
			}
		}
	}
}

// expect consumes op or fails.
func (p *parser) expect(op string) {
	if !p.ok() {
		return
	}
	p.skipBlank()
	switch {
	case p.eof():
		p.failf("%q is missing at the end", op)
	case !p.eat(op):
		p.failf("expected %q, found %q", op, p.token())
	}
}

// expectWord consumes the reserved word w or fails.
func (p *parser) expectWord(w string) {
	if !p.ok() {
		return
	}
	p.skipSpace()
	if !p.atReserved(w) {
		if p.eof() {
			p.failf("%q is missing at the end", w)
		} else {
			p.failf("expected %q, found %q", w, p.token())
		}
		return
	}
	p.pos += len(w)
}

func (p *parser) forLoop() {
	if p.atReserved("for") {
		p.pos += 3
	} else {
		p.pos += 6
	}
	p.skipBlank()
	if p.eat("((") {
		if !p.arith(true) {
			p.failf("for ((: the arithmetic does not end with ))")
			return
		}
	} else {
		if w := p.word(); w.src == "" {
			p.failf("for without a variable")
			return
		}
		p.skipSpace()
		if p.atReserved("in") {
			p.pos += 2
			for p.ok() {
				p.skipBlank()
				if p.eof() || p.peek(";") || p.peek("\n") {
					break
				}
				if w := p.word(); w.src == "" {
					p.failf("unexpected %q in a for list", p.token())
					return
				}
			}
		}
	}
	p.skipBlank()
	p.eat(";")
	p.skipSpace()
	if p.atReserved("{") {
		p.pos++
		p.list()
		p.expectWord("}")
		return
	}
	p.expectWord("do")
	p.list()
	p.expectWord("done")
}

func (p *parser) caseCommand() {
	p.pos += 4
	p.skipBlank()
	if w := p.word(); w.src == "" {
		p.failf("case without a word")
		return
	}
	p.expectWord("in")
	for p.ok() {
		p.skipSpace()
		if p.atReserved("esac") {
			p.pos += 4
			return
		}
		if p.eof() {
			p.failf("\"esac\" is missing at the end")
			return
		}
		p.eat("(")
		for p.ok() {
			p.skipBlank()
			if w := p.word(); w.src == "" {
				p.failf("expected a case pattern, found %q", p.token())
				return
			}
			p.skipBlank()
			if !p.eat("|") {
				break
			}
		}
		p.expect(")")
		p.list()
		if !p.ok() || p.eat(";;&") || p.eat(";;") || p.eat(";&") {
			continue
		}
		p.skipSpace()
		switch {
		case p.eof():
			p.failf("\"esac\" is missing at the end")
		case !p.atReserved("esac"):
			p.failf("expected ;; or esac, found %q", p.token())
		}
	}
}

// condition skips the words of [[ ... ]], parsing their expansions.
func (p *parser) condition() {
	for p.ok() {
		p.skipSpace()
		if p.eof() {
			p.failf("\"]]\" is missing at the end")
			return
		}
		if p.atReserved("]]") {
			p.pos += 2
			return
		}
		if p.eat("&&") || p.eat("||") || p.eat("(") || p.eat(")") || p.eat("<") || p.eat(">") || p.eat("|") {
			continue
		}
		if w := p.word(); w.src == "" {
			p.failf("unexpected %q in [[ ]]", p.token())
			return
		}
	}
}

// arith skips arithmetic after "((" up to its "))", parsing the
// substitutions in it. It reports false, having consumed an unknown
// amount, when the text is not arithmetic (a ; or new line outside a
// for loop's, or no "))"): then it is a subshell in a subshell.
func (p *parser) arith(inFor bool) bool {
	depth := 0
	var sink strings.Builder
	w := word{}
	for p.ok() && !p.eof() {
		switch c := p.src[p.pos]; c {
		case '(':
			depth++
		case ')':
			if depth == 0 {
				if p.peek("))") {
					p.pos += 2
					return true
				}
				return false
			}
			depth--
		case ';', '\n':
			if !inFor {
				return false
			}
		case '$':
			p.dollar(&sink, &w, true)
			continue
		case '`':
			p.backquote(&sink, &w, true)
			continue
		case '"':
			p.dquote(&sink, &w)
			continue
		case '\'':
			if !p.squote(&sink) {
				return false
			}
			continue
		case '\\':
			p.pos++
		}
		p.pos++
	}
	return false
}

// simple parses a simple command (or a function definition).
func (p *parser) simple() {
	start := p.pos
	var rc rawCmd
	for p.ok() {
		p.skipBlank()
		if p.eof() {
			break
		}
		if p.redirect(&rc) {
			continue
		}
		c := p.src[p.pos]
		if (c == '<' || c == '>') && p.pos+1 < len(p.src) && p.src[p.pos+1] == '(' {
			rc.words = append(rc.words, p.procSubst())
			continue
		}
		if isMeta(c) {
			break
		}
		w := p.word()
		if isAssignment(w.src) {
			if strings.HasSuffix(w.src, "=") && p.peek("(") {
				p.array(&w)
			}
			if len(rc.words) == 0 {
				rc.assigns = append(rc.assigns, w)
				continue
			}
		}
		if rc.words == nil {
			rc.words = make([]word, 0, 4)
		}
		rc.words = append(rc.words, w)
		if len(rc.words) == 1 && len(rc.assigns) == 0 && w.static && !w.glob {
			save := p.pos
			p.skipBlank()
			if p.eat("(") {
				p.skipBlank()
				if p.eat(")") {
					// name() body: a function definition.
					p.skipSpace()
					p.command()
					return
				}
			}
			p.pos = save
		}
	}
	if !p.ok() {
		return
	}
	if len(rc.words)+len(rc.assigns)+len(rc.redirs) == 0 {
		p.failf("expected a command, found %q", p.token())
		return
	}
	rc.text = p.src[start:p.pos]
	p.st.n++
	if p.st.n > maxCommands {
		p.failf("over %d commands", maxCommands)
		return
	}
	p.raws = append(p.raws, rc)
}

// array reads the elements of NAME=( ... ) into w.
func (p *parser) array(w *word) {
	start := p.pos
	p.pos++
	for p.ok() {
		p.skipSpace()
		if p.eof() {
			p.failf("unterminated array assignment")
			return
		}
		if p.eat(")") {
			break
		}
		e := p.word()
		if e.src == "" {
			p.failf("unexpected %q in an array assignment", p.token())
			return
		}
		if !e.static {
			w.static = false
		}
	}
	w.lit += p.src[start:p.pos]
	w.src += p.src[start:p.pos]
}

// isAssignment reports whether the source of a word is NAME=..., NAME+=...
// or NAME[subscript]=....
func isAssignment(src string) bool {
	i := 0
	for i < len(src) && (src[i] == '_' || src[i] >= 'a' && src[i] <= 'z' || src[i] >= 'A' && src[i] <= 'Z' || i > 0 && src[i] >= '0' && src[i] <= '9') {
		i++
	}
	if i == 0 || i == len(src) {
		return false
	}
	if src[i] == '[' {
		depth := 0
		for ; i < len(src); i++ {
			if src[i] == '[' {
				depth++
			} else if src[i] == ']' {
				depth--
				if depth == 0 {
					i++
					break
				}
			}
		}
		if i >= len(src) {
			return false
		}
	}
	if src[i] == '+' {
		i++
	}
	return i < len(src) && src[i] == '='
}

// redirect parses a redirection at pos into rc, reporting whether there
// was one.
func (p *parser) redirect(rc *rawCmd) bool {
	i := p.pos
	if i >= len(p.src) {
		return false
	}
	switch c := p.src[i]; {
	case c == '<', c == '>', c == '&', c == '{', c >= '0' && c <= '9':
	default:
		return false
	}
	if i < len(p.src) && p.src[i] == '{' {
		// {varname}>file: bash opens a file descriptor into the variable.
		j := i + 1
		for j < len(p.src) && (p.src[j] == '_' || p.src[j] >= 'a' && p.src[j] <= 'z' || p.src[j] >= 'A' && p.src[j] <= 'Z' || p.src[j] >= '0' && p.src[j] <= '9') {
			j++
		}
		if j > i+1 && j+1 < len(p.src) && p.src[j] == '}' && (p.src[j+1] == '<' || p.src[j+1] == '>') {
			i = j + 1
		}
	}
	for i < len(p.src) && p.src[i] >= '0' && p.src[i] <= '9' {
		i++
	}
	rest := p.src[i:]
	var op string
	for _, o := range []string{"&>>", "&>", "<<<", "<<-", "<<", "<>", "<&", ">>", ">|", ">&", "<", ">"} {
		if strings.HasPrefix(rest, o) {
			op = o
			break
		}
	}
	if op == "" || op[0] == '&' && i != p.pos || (op == "<" || op == ">") && strings.HasPrefix(rest[1:], "(") {
		return false
	}
	fd := p.src[p.pos:i]
	p.pos = i + len(op)
	p.skipBlank()
	var target word
	switch {
	case p.eof() || p.peek("\n"):
		p.failf("redirection %s has no target", op)
		return true
	case p.peek("<(") || p.peek(">("):
		target = p.procSubst()
	case isMeta(p.src[p.pos]):
		p.failf("redirection %s has no target, found %q", op, p.token())
		return true
	default:
		target = p.word()
	}
	rc.redirs = append(rc.redirs, fd+op+target.src)
	switch op {
	case "<<", "<<-":
		in := &input{}
		p.pending = append(p.pending, &heredoc{delim: target.lit, quoted: strings.ContainsAny(target.src, `'"\`), strip: op == "<<-", in: in})
		rc.stdin = in
	case "<<<":
		rc.stdin = &input{text: target.lit + "\n", static: target.static}
	case "<":
		rc.stdin = &input{file: true}
	case "<&":
	case ">&":
		if !target.static || !isFD(target.lit) && target.lit != "/dev/null" {
			rc.writes = true
		}
	default:
		if op != "<>" && (!target.static || target.lit != "/dev/null") || op == "<>" {
			rc.writes = true
		}
	}
	return true
}

// isFD reports whether s names a file descriptor to duplicate or close:
// "1", "2-", "-".
func isFD(s string) bool {
	s = strings.TrimSuffix(s, "-")
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// procSubst parses <(list) or >(list) at pos.
func (p *parser) procSubst() word {
	start := p.pos
	p.pos += 2
	p.depth++
	p.list()
	p.depth--
	p.expect(")")
	return word{lit: p.src[start:p.pos], src: p.src[start:p.pos], split: false}
}

// sub parses src, a command substitution in backquotes or a
// here-document's body, adding its commands to p's.
func (p *parser) sub(src string, at int) {
	if p.depth+1 > maxDepth {
		p.failf("nested too deeply")
		return
	}
	p.st.work += len(src)
	if p.st.work > maxWork {
		p.failf("too much to read")
		return
	}
	q := &parser{st: p.st, src: src, depth: p.depth + 1, level: p.level}
	q.list()
	if q.ok() && !q.eof() {
		q.failf("unexpected %q", q.token())
	}
	q.readDocs()
	p.raws = append(p.raws, q.raws...)
	if q.err != nil && p.err == nil {
		p.err = &Error{Pos: at, Msg: q.err.Msg}
	}
}
