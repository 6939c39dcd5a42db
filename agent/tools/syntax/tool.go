package syntax

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/zut-go/zut/agent/tools"
	"github.com/zut-go/zut/provider"
)

// Config tunes the ast tool. The zero value is usable.
type Config struct {
	// Timeout bounds a call that searches a directory; when it passes the
	// results so far are returned, marked partial. 0 means 10 s.
	Timeout time.Duration
	// MaxFileSize is the largest file read; larger ones are skipped and
	// named in the result. 0 means 4 MiB.
	MaxFileSize int64
	// MaxFiles bounds the files read by one directory search. 0 means 20000.
	MaxFiles int
	// MaxResults bounds the symbols collected by one call. 0 means 5000.
	MaxResults int
}

func (c Config) withDefaults() Config {
	if c.Timeout <= 0 {
		c.Timeout = 10 * time.Second
	}
	if c.MaxFileSize <= 0 {
		c.MaxFileSize = 4 << 20
	}
	if c.MaxFiles <= 0 {
		c.MaxFiles = 20000
	}
	if c.MaxResults <= 0 {
		c.MaxResults = 5000
	}
	return c
}

// Limits of the text sent to the model.
const (
	maxLines = 2000
	maxBytes = 50 << 10
	maxSkips = 50 // skipped files named in Details
)

// Details is the Details of an ast call.
type Details struct {
	Action string `json:"action"`
	Path   string `json:"path"`
	Query  string `json:"query,omitempty"`
	// Symbols is the outline (in source order, with Depth for nesting) or
	// the matches, file by file in path order.
	Symbols []Symbol `json:"symbols"`
	// Files are the files that produced symbols (for an outline: every file
	// read).
	Files []FileInfo `json:"files,omitempty"`
	// Searched is the number of files read.
	Searched int `json:"searched"`
	// Skipped names files that were not read (up to 50), SkippedCount
	// counts them all.
	Skipped      []Skip `json:"skipped,omitempty"`
	SkippedCount int    `json:"skipped_count,omitempty"`
	// Partial is set when the search stopped early: TimedOut, or the file
	// or result limit was reached.
	Partial  bool `json:"partial,omitempty"`
	TimedOut bool `json:"timed_out,omitempty"`
	// Cut is set when the text sent to the model was shortened.
	Cut bool `json:"cut,omitempty"`
}

// FileInfo describes one file read.
type FileInfo struct {
	Path     string `json:"path"`
	Language string `json:"language"`
	Lines    int    `json:"lines"`
	// Approximate is set for languages outlined by the tokenizer.
	Approximate bool `json:"approximate,omitempty"`
	// Error is the first syntax error of a Go file that parsed only in part.
	Error string `json:"error,omitempty"`
}

// Skip is a file left out of a search, and why.
type Skip struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// astTool is the ast tool.
type astTool struct {
	cfg tools.Config
	c   Config
}

// New returns the ast tool, working in cfg.CWD.
func New(cfg tools.Config, c Config) tools.Tool {
	return &astTool{cfg: cfg.WithDefaults(), c: c.withDefaults()}
}

var actions = []string{"outline", "find", "definition", "references"}

func (t *astTool) Definition() provider.Tool {
	return provider.Tool{Name: ToolName, Description: ToolDescription, Schema: json.RawMessage(ToolSchema)}
}

// What the model is told of the ast tool: constant data, so that
// offering the tool runs no code of this package (TestToolDefinitions).
const (
	ToolName        = "ast"
	ToolDescription = "Structural code search without external tools. outline: the declarations of a file (or of every file under a directory) with line numbers and one-line signatures, nested. find: declarations or calls matching query, e.g. func:Parse, method:Server.Close, type:Config, field:Config.Timeout, var:x, const:Max*, import:net/http, call:fmt.Errorf, call:Close, call:os.* ; a bare Name or Type.Name matches any declaration. definition: where query (Name or Type.Name) is declared. references: every use of the identifier query (by name, not type-checked). * and ? are wildcards. Go is parsed exactly; Python, JavaScript, TypeScript, Rust, C, C++ and Java by a tokenizer (marked approximate). A directory is searched recursively, honouring .gitignore, for up to 10 s."
	ToolSchema      = `{"additionalProperties":false,"properties":{"action":{"description":"outline, find, definition or references.","enum":["outline","find","definition","references"],"type":"string"},"path":{"description":"A file or a directory; default: the working directory.","type":"string"},"query":{"description":"For find, definition and references: a name or kind:pattern (func:, method:, type:, field:, var:, const:, import:, call:).","type":"string"}},"required":["action"],"type":"object"}`
)

func (t *astTool) Preview(raw json.RawMessage) string {
	a, err := tools.ParseArgs("ast", raw, "action", "path", "query")
	if err != nil {
		return "ast (bad arguments)"
	}
	action, _ := a.String("action", false)
	path, _ := a.String("path", false)
	q, _ := a.String("query", false)
	s := "ast " + action
	if q != "" {
		s += " " + tools.Clip(q, 60)
	}
	if path != "" {
		s += " in " + tools.Clip(path, 80)
	}
	return s
}

func (t *astTool) Run(ctx context.Context, raw json.RawMessage, progress func(string)) tools.Result {
	a, err := tools.ParseArgs("ast", raw, "action", "path", "query")
	if err != nil {
		return tools.ErrorResult("%v", err)
	}
	action, err := a.String("action", true)
	if err != nil {
		return tools.ErrorResult("%v", err)
	}
	if !contains(actions, action) {
		return tools.ErrorResult("ast: unknown action %q; use outline, find, definition or references", action)
	}
	path, err := a.String("path", false)
	if err != nil {
		return tools.ErrorResult("%v", err)
	}
	qs, err := a.String("query", false)
	if err != nil {
		return tools.ErrorResult("%v", err)
	}
	q, errRes := checkQuery(action, qs)
	if errRes != nil {
		return *errRes
	}
	abs := t.cfg.Resolve(path)
	if err := t.cfg.CheckScope("ast", abs, false); err != nil {
		return tools.ErrorResult("%v", err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return t.cfg.StatError("ast", abs, err)
	}
	if ctx.Err() != nil {
		return tools.ErrorResult("ast: aborted before the search started")
	}
	s := &search{t: t, action: action, q: q, det: Details{Action: action, Path: t.cfg.Display(abs), Query: q.raw, Symbols: []Symbol{}}}
	if !fi.IsDir() {
		if !fi.Mode().IsRegular() {
			return tools.ErrorResult("ast: %s is not a regular file (%s); give a source file or a directory", t.cfg.Display(abs), fi.Mode().Type())
		}
		lang := languageOf(abs)
		if lang == nil {
			lang = sniffLanguage(abs)
		}
		if lang == nil {
			return tools.ErrorResult("ast: %s is not in a language ast knows; it reads Go (.go), Python (.py), JavaScript (.js, .mjs, .jsx), TypeScript (.ts, .tsx), Rust (.rs), C (.c, .h), C++ (.cc, .cpp, .hpp ...) and Java (.java); use grep or read for other files", t.cfg.Display(abs))
		}
		if reason := s.file(abs, lang); reason != "" {
			return tools.ErrorResult("ast: %s: %s", t.cfg.Display(abs), reason)
		}
		return s.result(false)
	}
	wctx, cancel := context.WithTimeout(ctx, t.c.Timeout)
	defer cancel()
	last := time.Now()
	err = tools.WalkFiles(wctx, abs, func(p string) error {
		lang := languageOf(p)
		if lang == nil {
			return nil
		}
		if s.det.Searched >= t.c.MaxFiles {
			s.stop = fmt.Sprintf("stopped after reading %s (the limit)", tools.Plural(t.c.MaxFiles, "file"))
			return fs.SkipAll
		}
		if reason := s.file(p, lang); reason != "" {
			s.skip(t.cfg.Display(p), reason)
		}
		if len(s.det.Symbols) >= t.c.MaxResults {
			s.stop = fmt.Sprintf("stopped at %d results (the limit)", t.c.MaxResults)
			return fs.SkipAll
		}
		if progress != nil && time.Since(last) > 250*time.Millisecond {
			last = time.Now()
			progress(fmt.Sprintf("searched %s", tools.Plural(s.det.Searched, "file")))
		}
		return nil
	})
	switch {
	case ctx.Err() != nil:
		return tools.ErrorResult("ast: aborted after searching %s", tools.Plural(s.det.Searched, "file"))
	case errors.Is(err, context.DeadlineExceeded):
		s.det.TimedOut = true
		s.stop = fmt.Sprintf("stopped after %s (the ast time limit)", t.c.Timeout)
	case err != nil:
		return tools.ErrorResult("ast: walk %s: %v", t.cfg.Display(abs), err)
	}
	return s.result(true)
}

// checkQuery parses the query for action; the error is a Result.
func checkQuery(action, qs string) (query, *tools.Result) {
	fail := func(format string, v ...any) (query, *tools.Result) {
		r := tools.ErrorResult(format, v...)
		return query{}, &r
	}
	if action == "outline" {
		if qs != "" {
			return fail("ast: outline takes no query; use action find to search for %q", qs)
		}
		return query{}, nil
	}
	if strings.TrimSpace(qs) == "" {
		return fail("ast: %s needs a query, for example func:Parse, call:fmt.Errorf or a name", action)
	}
	q, err := parseQuery(qs)
	if err != nil {
		return fail("ast: %v", err)
	}
	switch {
	case action == "definition" && (q.kind == "call" || q.kind == "import"):
		return fail("ast: definition looks for declarations; use action find for %s", q.raw)
	case action == "references" && q.kind != "":
		return fail("ast: references takes a plain name or Type.Name, not %s:; use action find for kinds", q.kind)
	}
	return q, nil
}

// sniffLanguage recognises a script without an extension by its #! line.
func sniffLanguage(path string) *language {
	f, err := provider.OpenRegular(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	buf := make([]byte, 128)
	n, _ := io.ReadFull(f, buf)
	line, _, _ := strings.Cut(string(buf[:n]), "\n")
	if !strings.HasPrefix(line, "#!") {
		return nil
	}
	switch {
	case strings.Contains(line, "python"):
		return langPython
	case strings.Contains(line, "node") || strings.Contains(line, "deno") || strings.Contains(line, "bun"):
		return langJS
	}
	return nil
}

// search collects the results of one call.
type search struct {
	t      *astTool
	action string
	q      query
	det    Details
	stop   string // why the search stopped early
	notes  []string
}

// file reads and analyzes one file; it returns why it was skipped, or "".
func (s *search) file(abs string, lang *language) string {
	f, err := s.t.cfg.OpenScoped("ast", abs)
	if tools.IsOpenedOutOfScope(err) {
		return "was swapped for a file out of scope as it was opened, so it was not read"
	}
	if err != nil {
		return "cannot be read: " + errText(err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "cannot be read: " + errText(err)
	}
	if !fi.Mode().IsRegular() {
		return "not a regular file"
	}
	if fi.Size() > s.t.c.MaxFileSize {
		return fmt.Sprintf("too large (%s; the limit is %s)", tools.FormatSize(fi.Size()), tools.FormatSize(s.t.c.MaxFileSize))
	}
	src, err := io.ReadAll(io.LimitReader(f, s.t.c.MaxFileSize+1))
	if err != nil {
		return "cannot be read: " + errText(err)
	}
	if int64(len(src)) > s.t.c.MaxFileSize {
		return fmt.Sprintf("too large (over %s)", tools.FormatSize(s.t.c.MaxFileSize))
	}
	if bytes.IndexByte(src[:min(len(src), 8000)], 0) >= 0 {
		return "binary (holds NUL bytes)"
	}
	s.det.Searched++
	display := s.t.cfg.Display(abs)
	res := analyze(s.action, s.q, lang, display, src)
	if room := s.t.c.MaxResults - len(s.det.Symbols); len(res.symbols) > room {
		res.symbols = res.symbols[:room]
	}
	if len(res.symbols) > 0 || s.action == "outline" || res.broken != "" {
		s.det.Files = append(s.det.Files, FileInfo{Path: display, Language: lang.name, Lines: res.lines, Approximate: !lang.exact, Error: res.broken})
	}
	s.det.Symbols = append(s.det.Symbols, res.symbols...)
	return ""
}

func errText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

func (s *search) skip(path, reason string) {
	s.det.SkippedCount++
	if len(s.det.Skipped) < maxSkips {
		s.det.Skipped = append(s.det.Skipped, Skip{Path: path, Reason: reason})
	}
}

// result renders the collected symbols for the model.
func (s *search) result(dir bool) tools.Result {
	var b strings.Builder
	byFile := map[string]FileInfo{}
	for _, f := range s.det.Files {
		byFile[f.Path] = f
	}
	if s.action == "outline" {
		s.outlineText(&b, dir)
	} else {
		for _, sym := range s.det.Symbols {
			fmt.Fprintf(&b, "%s:%d: %s\n", sym.File, sym.Line, label(sym))
		}
	}
	s.footer(&b, dir)
	text, cut := tools.CapText(strings.TrimRight(b.String(), "\n"), maxLines, maxBytes, "narrow path or query to see the rest")
	s.det.Cut = cut
	s.det.Partial = s.stop != ""
	return tools.TextResult(text).WithDetails(s.det)
}

func (s *search) outlineText(b *strings.Builder, dir bool) {
	i := 0
	for _, f := range s.det.Files {
		n := 0
		for j := i; j < len(s.det.Symbols) && s.det.Symbols[j].File == f.Path; j++ {
			n++
		}
		desc := fmt.Sprintf("%s, %s, %s", f.Language, tools.Plural(f.Lines, "line"), tools.Plural(n, "symbol"))
		if dir {
			if n == 0 {
				continue
			}
			fmt.Fprintf(b, "== %s (%s)\n", f.Path, desc)
		} else {
			fmt.Fprintf(b, "%s: %s\n", f.Path, desc)
		}
		for ; i < len(s.det.Symbols) && s.det.Symbols[i].File == f.Path; i++ {
			sym := s.det.Symbols[i]
			if i > 0 && s.det.Symbols[i-1].Line == sym.Line && s.det.Symbols[i-1].Signature == sym.Signature {
				continue // a, b int: one line for both
			}
			fmt.Fprintf(b, "%s%d: %s\n", strings.Repeat("  ", min(sym.Depth, 20)), sym.Line, label(sym))
		}
	}
}

// footer adds the lines that say what was searched, skipped, cut or
// approximate.
func (s *search) footer(b *strings.Builder, dir bool) {
	d := &s.det
	var approx []string
	seen := map[string]bool{}
	for _, f := range d.Files {
		if !seen[f.Language] && f.Approximate {
			seen[f.Language] = true
			approx = append(approx, f.Language)
		}
	}
	what := "match"
	if s.action == "outline" {
		what = "symbol"
	}
	if len(d.Symbols) == 0 {
		target := d.Path
		if dir {
			target = fmt.Sprintf("%s under %s", tools.Plural(d.Searched, "source file"), d.Path)
		}
		if s.action == "outline" {
			fmt.Fprintf(b, "no declarations found in %s\n", target)
		} else {
			fmt.Fprintf(b, "no matches for %s in %s\n", s.q.raw, target)
		}
	} else if dir {
		fmt.Fprintf(b, "[%s in %s; searched %s]\n", tools.Plural(len(d.Symbols), what), tools.Plural(countFiles(d.Symbols), "file"), tools.Plural(d.Searched, "file"))
	}
	for _, f := range d.Files {
		if f.Error != "" {
			fmt.Fprintf(b, "[%s has a syntax error (%s); declarations after it may be missing]\n", f.Path, f.Error)
		}
	}
	if len(approx) > 0 && len(d.Symbols) > 0 {
		fmt.Fprintf(b, "[approximate: %s %s outlined by a tokenizer, not a full parser; unusual syntax (macros, JSX, code built at run time) can be missed]\n", strings.Join(approx, ", "), verb(len(approx)))
	}
	if s.action == "references" && len(d.Symbols) > 0 {
		b.WriteString("[references are matched by name, without type checking: same-named identifiers in other scopes are included]\n")
	}
	if d.SkippedCount > 0 {
		var names []string
		for _, sk := range d.Skipped[:min(len(d.Skipped), 5)] {
			names = append(names, sk.Path+": "+sk.Reason)
		}
		if d.SkippedCount > len(names) {
			names = append(names, fmt.Sprintf("and %d more", d.SkippedCount-len(names)))
		}
		fmt.Fprintf(b, "[skipped %s — %s]\n", tools.Plural(d.SkippedCount, "file"), strings.Join(names, "; "))
	}
	if s.stop != "" {
		fmt.Fprintf(b, "[%s: searched %s; results are partial; narrow path to search the rest]\n", s.stop, tools.Plural(d.Searched, "file"))
	}
}

func verb(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

func countFiles(syms []Symbol) int {
	n, last := 0, ""
	for _, s := range syms {
		if s.File != last {
			n++
			last = s.File
		}
	}
	return n
}

// kindWords are, for each kind, the words that show it in a signature
// by themselves, so that the kind is not written before it.
func kindWords() map[string][]string {
	return kindWordsLazy.get(func() map[string][]string {
		return map[string][]string{
			KindFunc:      {"func", "def", "fn", "function", "function*"},
			KindMethod:    {"func", "def", "fn", "function", "function*"},
			KindType:      {"type", "typedef", "using"},
			KindStruct:    {"type", "struct", "typedef"},
			KindInterface: {"type", "interface", "@interface"},
			KindClass:     {"class"},
			KindEnum:      {"type", "enum", "typedef"},
			KindTrait:     {"trait"},
			KindUnion:     {"union", "typedef"},
			KindRecord:    {"record"},
			KindImpl:      {"impl"},
			KindNamespace: {"namespace", "mod", "module"},
			KindVar:       {"var", "let", "static"},
			KindConst:     {"const", "constexpr"},
			KindImport:    {"import", "use", "from", "#include", "#import", "#include_next"},
			KindPackage:   {"package"},
			KindMacro:     {"#define", "macro_rules!"},
		}
	})
}

var kindWordsLazy lazy[map[string][]string]

// label is how a symbol is shown: its signature, after its kind unless a
// word of the signature already says it.
func label(s Symbol) string {
	switch s.Kind {
	case KindCall, KindRef:
		if s.Parent != "" {
			return s.Signature + "  (in " + s.Parent + ")"
		}
		return s.Signature
	case KindDecl:
		return s.Signature + "  (declaration)"
	}
	words := strings.Fields(s.Signature)
	for i, w := range words {
		if i == 8 {
			break
		}
		end := 0
		for end < len(w) && (isAlnum(w[end]) || strings.IndexByte("_#@!*", w[end]) >= 0) {
			end++
		}
		if contains(kindWords()[s.Kind], w[:end]) {
			return s.Signature
		}
	}
	return s.Kind + " " + s.Signature
}
