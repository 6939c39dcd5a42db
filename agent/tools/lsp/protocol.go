package lsp

import "encoding/json"

// This file holds the part of the LSP 3.17 vocabulary zut speaks, as wire
// types. Field names follow the specification's metaModel.json.

// position is a place in a document: a 0-based line and a 0-based offset
// in the line, counted in the negotiated encoding's code units.
type position struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

// span is the specification's Range: start inclusive, end exclusive.
type span struct {
	Start position `json:"start"`
	End   position `json:"end"`
}

type location struct {
	URI   string `json:"uri"`
	Range span   `json:"range"`
}

type locationLink struct {
	TargetURI            string `json:"targetUri"`
	TargetRange          span   `json:"targetRange"`
	TargetSelectionRange span   `json:"targetSelectionRange"`
}

type textDocumentIdentifier struct {
	URI string `json:"uri"`
}

type versionedTextDocumentIdentifier struct {
	URI     string `json:"uri"`
	Version *int   `json:"version"`
}

type textDocumentItem struct {
	URI        string `json:"uri"`
	LanguageID string `json:"languageId"`
	Version    int    `json:"version"`
	Text       string `json:"text"`
}

// contentChange is a TextDocumentContentChangeEvent: a range and its new
// text, or (Range nil) the whole new text.
type contentChange struct {
	Range *span  `json:"range,omitempty"`
	Text  string `json:"text"`
}

// fileEvent is a FileEvent of workspace/didChangeWatchedFiles.
type fileEvent struct {
	URI  string `json:"uri"`
	Type int    `json:"type"`
}

// fileChanged is FileChangeType Changed.
const fileChanged = 2

type textDocumentPositionParams struct {
	TextDocument textDocumentIdentifier `json:"textDocument"`
	Position     position               `json:"position"`
}

type textEdit struct {
	Range   span   `json:"range"`
	NewText string `json:"newText"`
}

// wireDiagnostic is a Diagnostic as servers send it.
type wireDiagnostic struct {
	Range    span            `json:"range"`
	Severity int             `json:"severity"`
	Code     json.RawMessage `json:"code"`
	Source   string          `json:"source"`
	Message  string          `json:"message"`
}

type publishDiagnosticsParams struct {
	URI         string           `json:"uri"`
	Version     *int             `json:"version"`
	Diagnostics []wireDiagnostic `json:"diagnostics"`
}

// documentDiagnosticReport is the answer to textDocument/diagnostic.
type documentDiagnosticReport struct {
	Kind  string           `json:"kind"`
	Items []wireDiagnostic `json:"items"`
}

// documentSymbol is the hierarchical answer to textDocument/documentSymbol;
// symbolInformation the flat one (also the answer to workspace/symbol).
type documentSymbol struct {
	Name           string           `json:"name"`
	Detail         string           `json:"detail"`
	Kind           int              `json:"kind"`
	Range          span             `json:"range"`
	SelectionRange span             `json:"selectionRange"`
	Children       []documentSymbol `json:"children"`
}

type symbolInformation struct {
	Name          string `json:"name"`
	Kind          int    `json:"kind"`
	ContainerName string `json:"containerName"`
	Location      struct {
		URI   string `json:"uri"`
		Range *span  `json:"range"`
	} `json:"location"`
}

// workspaceEdit is the answer to textDocument/rename.
type workspaceEdit struct {
	Changes         map[string][]textEdit `json:"changes"`
	DocumentChanges []json.RawMessage     `json:"documentChanges"`
}

type textDocumentEdit struct {
	TextDocument versionedTextDocumentIdentifier `json:"textDocument"`
	Edits        []textEdit                      `json:"edits"`
}

// serverCapabilities is the part of the initialize result zut uses. The
// providers are raw because each may be a boolean or an options object.
type serverCapabilities struct {
	PositionEncoding   string          `json:"positionEncoding"`
	TextDocumentSync   json.RawMessage `json:"textDocumentSync"`
	HoverProvider      json.RawMessage `json:"hoverProvider"`
	DefinitionProvider json.RawMessage `json:"definitionProvider"`
	ReferencesProvider json.RawMessage `json:"referencesProvider"`
	DocumentSymbol     json.RawMessage `json:"documentSymbolProvider"`
	WorkspaceSymbol    json.RawMessage `json:"workspaceSymbolProvider"`
	RenameProvider     json.RawMessage `json:"renameProvider"`
	DiagnosticProvider json.RawMessage `json:"diagnosticProvider"`
}

// provides reports whether a provider field says the server supports it:
// true or an options object.
func provides(raw json.RawMessage) bool {
	s := string(raw)
	return s != "" && s != "null" && s != "false"
}

// Text document sync kinds.
const (
	syncNone        = 0
	syncFull        = 1
	syncIncremental = 2
)

// syncKind reads textDocumentSync, a number or an options object.
func (c serverCapabilities) syncKind() (kind int, openClose bool) {
	raw := c.TextDocumentSync
	if len(raw) == 0 || string(raw) == "null" {
		return syncNone, false
	}
	var n int
	if json.Unmarshal(raw, &n) == nil {
		return n, n != syncNone
	}
	var opts struct {
		OpenClose bool `json:"openClose"`
		Change    int  `json:"change"`
	}
	json.Unmarshal(raw, &opts)
	return opts.Change, opts.OpenClose
}

// symbolKinds names SymbolKind values (1-based).
var symbolKinds = [...]string{"", "file", "module", "namespace", "package", "class", "method",
	"property", "field", "constructor", "enum", "interface", "function", "variable", "constant",
	"string", "number", "boolean", "array", "object", "key", "null", "enum member", "struct",
	"event", "operator", "type parameter"}

func symbolKind(k int) string {
	if k > 0 && k < len(symbolKinds) {
		return symbolKinds[k]
	}
	return "symbol"
}
