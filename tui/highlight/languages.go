package highlight

import (
	"strings"
)

// languageAliases maps names, aliases and file extensions to the
// canonical language names.
func languageAliases() map[string]string {
	return languageAliasesLazy.get(func() map[string]string {
		return map[string]string{
			"go": "go", "golang": "go",
			"python": "python", "py": "python", "python3": "python", "py3": "python", "pyi": "python",
			"javascript": "javascript", "js": "javascript", "jsx": "javascript", "mjs": "javascript", "cjs": "javascript", "node": "javascript",
			"typescript": "typescript", "ts": "typescript", "tsx": "typescript", "mts": "typescript", "cts": "typescript",
			"shell": "shell", "sh": "shell", "bash": "shell", "zsh": "shell", "ksh": "shell", "fish": "shell", "console": "shell", "shellsession": "shell", "bats": "shell",
			"json": "json", "jsonc": "json", "json5": "json", "jsonl": "json", "ndjson": "json", "geojson": "json",
			"yaml": "yaml", "yml": "yaml",
			"diff": "diff", "patch": "diff", "udiff": "diff",
			"c": "c", "h": "c",
			"cpp": "cpp", "c++": "cpp", "cc": "cpp", "cxx": "cpp", "hpp": "cpp", "hh": "cpp", "hxx": "cpp",
			"rust": "rust", "rs": "rust",
		}
	})
}

var languageAliasesLazy lazy[map[string]string]

// words builds a word table from space-separated lists.
func words(lists ...any) map[string]synKind {
	m := make(map[string]synKind)
	for i := 0; i+1 < len(lists); i += 2 {
		k := lists[i].(synKind)
		for _, w := range strings.Fields(lists[i+1].(string)) {
			m[w] = k
		}
	}
	return m
}

const (
	cKeywords = "auto break case const continue default do else enum extern for goto if inline register restrict return sizeof static struct switch typedef union volatile while _Alignas _Alignof _Atomic _Generic _Noreturn _Static_assert _Thread_local"
	cTypes    = "char short int long float double signed unsigned void bool _Bool size_t ssize_t ptrdiff_t intptr_t uintptr_t int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t uint64_t FILE va_list off_t pid_t"
	cBuiltins = "NULL true false stdin stdout stderr errno EOF printf fprintf sprintf snprintf malloc calloc realloc free memcpy memset strlen strcmp assert exit"
)

// languages builds the tokenizer tables once.
func languages() map[string]*Language {
	return languagesLazy.get(buildLanguages)
}

// buildLanguages makes what languages returns.
func buildLanguages() map[string]*Language {
	m := map[string]*Language{
		"go": {
			words: words(
				synKeyword, "break case chan const continue default defer else fallthrough for func go goto if import interface map package range return select struct switch type var",
				synType, "bool byte complex64 complex128 error float32 float64 int int8 int16 int32 int64 rune string uint uint8 uint16 uint32 uint64 uintptr any comparable",
				synBuiltin, "append cap clear close complex copy delete imag len make max min new panic print println real recover true false nil iota",
			),
			lineComments: []string{"//"},
			blockComment: [2]string{"/*", "*/"},
			quotes:       `"`,
			rawQuotes:    "`",
			charQuote:    true,
			defWords:     map[string]synKind{"func": synFunction, "type": synType},
		},
		"python": {
			words: words(
				synKeyword, "and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield match case",
				synBuiltin, "True False None self cls print len range str int float dict list set tuple bool bytes type isinstance issubclass open super enumerate zip map filter sorted reversed min max sum any all abs repr hasattr getattr setattr object iter next id input format round divmod Exception ValueError TypeError KeyError IndexError RuntimeError StopIteration NotImplementedError",
			),
			lineComments: []string{"#"},
			quotes:       `"'`,
			triple:       true,
			decorators:   true,
			capsTypes:    true,
			prefixes:     []string{"r", "b", "f", "u", "rb", "br", "fr", "rf"},
			defWords:     map[string]synKind{"def": synFunction, "class": synType},
		},
		"javascript": {
			words: words(
				synKeyword, jsKeywords,
				synBuiltin, jsBuiltins,
			),
			lineComments: []string{"//"},
			blockComment: [2]string{"/*", "*/"},
			quotes:       `"'`,
			multiQuotes:  "`",
			capsTypes:    true,
			defWords:     map[string]synKind{"function": synFunction, "class": synType, "extends": synType, "new": synType},
		},
		"typescript": {
			words: words(
				synKeyword, jsKeywords+" interface type enum implements namespace declare abstract readonly private protected public keyof infer is satisfies module override",
				synType, "string number boolean any unknown never void object symbol bigint",
				synBuiltin, jsBuiltins,
			),
			lineComments: []string{"//"},
			blockComment: [2]string{"/*", "*/"},
			quotes:       `"'`,
			multiQuotes:  "`",
			capsTypes:    true,
			defWords:     map[string]synKind{"function": synFunction, "class": synType, "interface": synType, "type": synType, "enum": synType, "extends": synType, "implements": synType, "new": synType},
		},
		"json": {
			words:      words(synBuiltin, "true false null"),
			quotes:     `"`,
			keyStrings: true,
		},
		"c": {
			words:        words(synKeyword, cKeywords, synType, cTypes, synBuiltin, cBuiltins),
			lineComments: []string{"//"},
			blockComment: [2]string{"/*", "*/"},
			quotes:       `"`,
			charQuote:    true,
			preprocessor: true,
			prefixes:     []string{"L", "u", "U", "u8"},
			defWords:     map[string]synKind{"struct": synType, "union": synType, "enum": synType},
		},
		"cpp": {
			words: words(
				synKeyword, cKeywords+" class namespace template typename public private protected virtual override final new delete this using operator friend explicit constexpr consteval noexcept try catch throw co_await co_return co_yield concept requires mutable decltype static_cast dynamic_cast reinterpret_cast const_cast",
				synType, cTypes+" string vector map unordered_map set unique_ptr shared_ptr optional",
				synBuiltin, cBuiltins+" nullptr std cout cerr endl",
			),
			lineComments: []string{"//"},
			blockComment: [2]string{"/*", "*/"},
			quotes:       `"`,
			charQuote:    true,
			preprocessor: true,
			capsTypes:    true,
			prefixes:     []string{"L", "u", "U", "u8", "R"},
			defWords:     map[string]synKind{"struct": synType, "class": synType, "union": synType, "enum": synType},
		},
		"rust": {
			words: words(
				synKeyword, "as async await break const continue crate dyn else enum extern fn for if impl in let loop match mod move mut pub ref return self static struct super trait type unsafe use where while",
				synType, "i8 i16 i32 i64 i128 isize u8 u16 u32 u64 u128 usize f32 f64 bool char str String Vec Option Result Box Self",
				synBuiltin, "true false Some None Ok Err",
			),
			lineComments: []string{"//"},
			blockComment: [2]string{"/*", "*/"},
			nested:       true,
			multiQuotes:  `"`,
			charQuote:    true,
			capsTypes:    true,
			macros:       true,
			attributes:   true,
			prefixes:     []string{"b", "r", "br", "c", "cr"},
			defWords:     map[string]synKind{"fn": synFunction, "struct": synType, "enum": synType, "trait": synType, "type": synType, "impl": synType},
		},
		"shell": {lex: lexShell, words: words(
			synKeyword, "if then else elif fi for while until do done case esac in function select time !",
			synBuiltin, "echo printf cd pwd read test true false return local export readonly declare typeset unset break continue exit source alias set shift trap eval exec wait",
		)},
		"yaml": {lex: lexYAML},
		"diff": {lex: lexDiff},
	}
	for name, l := range m {
		l.name = name
	}
	return m
}

var languagesLazy lazy[map[string]*Language]

const (
	jsKeywords = "break case catch class const continue debugger default delete do else export extends finally for function if import in instanceof let new return super switch this throw try typeof var void while with yield async await of static get set from as"
	jsBuiltins = "true false null undefined NaN Infinity console window document globalThis JSON Math Promise Object Array String Number Boolean Symbol Map Set WeakMap Error RegExp Date require module exports process"
)

// lexShell tokenizes POSIX shell and bash.
func lexShell(l *Language, line string, st HighlightState) ([]hlToken, HighlightState) {
	x := &lexer{line: line}
	i := 0
	switch st.mode {
	case modeHeredoc:
		if strings.TrimLeft(line, "\t ") == st.delim {
			x.emit(line, synKeyword)
			return x.toks, HighlightState{}
		}
		x.emit(line, synString)
		return x.toks, st
	case modeString, modeRawString:
		i, st = scanString(x, line, 0, st)
	}
	command := i == 0 // the next word is a command name
	var heredoc string
	for i < len(line) && st.mode == modeNormal {
		c := line[i]
		switch {
		case c == ' ':
			j := i
			for j < len(line) && line[j] == ' ' {
				j++
			}
			x.emit(line[i:j], synPlain)
			i = j
			continue
		case c == '#' && (i == 0 || line[i-1] == ' ' || line[i-1] == ';'):
			x.emit(line[i:], synComment)
			i = len(line)
			continue
		case c == '\'':
			st = HighlightState{mode: modeRawString, delim: "'"}
			x.emit("'", synString)
			i, st = scanString(x, line, i+1, st)
			command = false
			continue
		case c == '"':
			st = HighlightState{mode: modeString, delim: `"`}
			x.emit(`"`, synString)
			i, st = scanString(x, line, i+1, st)
			command = false
			continue
		case c == '$':
			j := i + 1
			switch {
			case j < len(line) && line[j] == '{':
				if k := strings.IndexByte(line[j:], '}'); k >= 0 {
					j += k + 1
				} else {
					j = len(line)
				}
			case strings.HasPrefix(line[j:], "(("):
				x.emit("$((", synOperator)
				i = j + 2
				command = false
				continue
			case j < len(line) && line[j] == '(':
				x.emit("$(", synOperator)
				i = j + 1
				command = true
				continue
			default:
				for j < len(line) && (isIdentByte(line[j]) || j == i+1 && strings.IndexByte("?!#@*$-", line[j]) >= 0) {
					j++
					if j == i+2 && strings.IndexByte("?!#@*$-0123456789", line[j-1]) >= 0 {
						break
					}
				}
			}
			x.emit(line[i:j], synBuiltin)
			i = j
			command = false
			continue
		case strings.HasPrefix(line[i:], "<<") && !strings.HasPrefix(line[i:], "<<<"):
			j := i + 2
			if j < len(line) && line[j] == '-' {
				j++
			}
			for j < len(line) && line[j] == ' ' {
				j++
			}
			k := j
			for k < len(line) && line[k] != ' ' && line[k] != ';' && line[k] != '|' && line[k] != '>' {
				k++
			}
			if tag := strings.Trim(line[j:k], `'"\`); tag != "" {
				heredoc = tag
				x.emit(line[i:j], synOperator)
				x.emit(line[j:k], synString)
				i = k
				continue
			}
			x.emit("<<", synOperator)
			i += 2
			continue
		case strings.IndexByte("|&;()<>", c) >= 0:
			j := i
			for j < len(line) && strings.IndexByte("|&;()<>", line[j]) >= 0 {
				j++
			}
			x.emit(line[i:j], synOperator)
			command = strings.ContainsAny(line[i:j], "|&;(")
			i = j
			continue
		case c == '=' || c == '`' || c == '{' || c == '}' || c == '[' || c == ']':
			k := synOperator
			if c != '=' && c != '`' {
				k = synPunct
			}
			x.emit(line[i:i+1], k)
			i++
			command = false
			continue
		}
		j := i
		for j < len(line) && strings.IndexByte(" |&;()<>'\"$=`{}[]", line[j]) < 0 {
			j++
		}
		if j == i {
			j++
		}
		word := line[i:j]
		kind := synPlain
		switch k, ok := l.words[word]; {
		case ok && (command || k == synBuiltin):
			kind = k
			// After these a command follows; after for, case, select and
			// function comes a name, after builtins their arguments.
			command = k == synKeyword && strings.Contains(" if then else elif do while until time ! ", " "+word+" ")
		case j < len(line) && line[j] == '=' && command:
			kind = synType // an assignment: NAME=value
		case command:
			kind = synFunction
			command = false
		case isAllDigits(word):
			kind = synNumber
		case strings.HasPrefix(word, "-"):
			kind = synOperator
		}
		x.emit(word, kind)
		i = j
	}
	if heredoc != "" && st.mode == modeNormal {
		st = HighlightState{mode: modeHeredoc, delim: heredoc}
	}
	return x.toks, st
}

// lexYAML tokenizes YAML.
func lexYAML(_ *Language, line string, st HighlightState) ([]hlToken, HighlightState) {
	x := &lexer{line: line}
	ind := leadingSpaces(line)
	if st.mode == modeBlockScalar {
		if leadingSpaces(line) == len(line) || ind > st.indent {
			x.emit(line, synString)
			return x.toks, st
		}
		st = HighlightState{}
	}
	if st.mode == modeString || st.mode == modeRawString {
		var i int
		i, st = scanString(x, line, 0, st)
		if st.mode != modeNormal {
			return x.toks, st
		}
		x.emit(line[i:], synPlain)
		return x.toks, st
	}
	x.emit(line[:ind], synPlain)
	rest := line[ind:]
	if ind == 0 && (strings.HasPrefix(rest, "---") || strings.HasPrefix(rest, "...")) {
		x.emit(rest[:3], synKeyword)
		rest = rest[3:]
	}
	for strings.HasPrefix(rest, "- ") || rest == "-" {
		x.emit("-", synPunct)
		rest = rest[1:]
		n := leadingSpaces(rest)
		x.emit(rest[:n], synPlain)
		rest = rest[n:]
	}
	if strings.HasPrefix(rest, "#") {
		x.emit(rest, synComment)
		return x.toks, st
	}
	// A key: up to ": " or a final ":" outside quotes.
	if k := yamlKeyEnd(rest); k > 0 {
		x.emit(rest[:k], synType)
		x.emit(":", synPunct)
		rest = rest[k+1:]
	}
	return yamlValue(x, rest, ind, st)
}

// yamlKeyEnd finds the colon that ends a mapping key, or -1.
func yamlKeyEnd(s string) int {
	if s == "" || s[0] == '{' || s[0] == '[' {
		return -1
	}
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			if i == 0 {
				quote = c
			}
		case c == '#' && i > 0 && s[i-1] == ' ':
			return -1
		case c == ':' && (i+1 == len(s) || s[i+1] == ' '):
			return i
		}
	}
	return -1
}

// yamlValue colours the value part of a YAML line.
func yamlValue(x *lexer, s string, ind int, st HighlightState) ([]hlToken, HighlightState) {
	for len(s) > 0 {
		n := leadingSpaces(s)
		x.emit(s[:n], synPlain)
		s = s[n:]
		if s == "" {
			break
		}
		switch c := s[0]; {
		case c == '#':
			x.emit(s, synComment)
			return x.toks, st
		case c == '"' || c == '\'':
			mode := modeString
			if c == '\'' {
				mode = modeRawString
			}
			st = HighlightState{mode: mode, delim: string(c)}
			x.emit(s[:1], synString)
			var i int
			i, st = scanString(x, s, 1, st)
			s = s[i:]
			continue
		case c == '|' || c == '>':
			if t := strings.TrimRight(s, " "); len(t) <= 3 && strings.Trim(t[1:], "+-0123456789") == "" {
				x.emit(s, synOperator)
				return x.toks, HighlightState{mode: modeBlockScalar, indent: ind}
			}
		case c == '&' || c == '*':
			j := strings.IndexAny(s, " ,]}")
			if j < 0 {
				j = len(s)
			}
			x.emit(s[:j], synBuiltin)
			s = s[j:]
			continue
		case c == '!':
			j := strings.IndexByte(s, ' ')
			if j < 0 {
				j = len(s)
			}
			x.emit(s[:j], synKeyword)
			s = s[j:]
			continue
		case strings.IndexByte("{}[],", c) >= 0:
			x.emit(s[:1], synPunct)
			s = s[1:]
			continue
		}
		// A plain scalar up to a comment or flow punctuation.
		j := 0
		for j < len(s) && !(s[j] == '#' && j > 0 && s[j-1] == ' ') && strings.IndexByte("{}[],", s[j]) < 0 {
			j++
		}
		word := strings.TrimRight(s[:j], " ")
		kind := synString
		switch strings.ToLower(word) {
		case "true", "false", "yes", "no", "on", "off", "null", "~":
			kind = synBuiltin
		default:
			if word != "" && numberLen(word) == len(word) && (word[0] >= '0' && word[0] <= '9' || word[0] == '.') {
				kind = synNumber
			} else if len(word) > 1 && (word[0] == '-' || word[0] == '+') && word[1] >= '0' && word[1] <= '9' && numberLen(word[1:]) == len(word)-1 {
				kind = synNumber
			}
		}
		x.emit(word, kind)
		x.emit(s[len(word):j], synPlain)
		s = s[j:]
	}
	return x.toks, st
}

// lexDiff colours unified diff lines.
func lexDiff(_ *Language, line string, st HighlightState) ([]hlToken, HighlightState) {
	k := synPlain
	switch {
	case strings.HasPrefix(line, "+++ "), strings.HasPrefix(line, "--- "), strings.HasPrefix(line, "diff "),
		strings.HasPrefix(line, "index "), strings.HasPrefix(line, "new file"), strings.HasPrefix(line, "deleted file"),
		strings.HasPrefix(line, "rename "), strings.HasPrefix(line, "similarity "):
		k = synKeyword
	case strings.HasPrefix(line, "@@"):
		k = synHunk
	case strings.HasPrefix(line, "+"):
		k = synAdded
	case strings.HasPrefix(line, "-"):
		k = synRemoved
	case strings.HasPrefix(line, `\`):
		k = synComment
	}
	if line == "" {
		return nil, st
	}
	return []hlToken{{text: line, kind: k}}, st
}

func isAllDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// leadingSpaces counts the spaces at the start of s.
func leadingSpaces(s string) int { return len(s) - len(strings.TrimLeft(s, " ")) }
