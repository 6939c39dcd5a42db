package lsp

import "time"

// Details is the structured result of one lsp call, for the UI (it is
// never sent to the model). Only the fields of the action are set.
// Positions are 1-based, columns counted in characters; paths are shown
// as the model sees them (relative to the working directory when inside
// it), except FileEdit.Path.
type Details struct {
	Action string `json:"action"`
	Server string `json:"server,omitempty"`
	// Path, Line and Column are the position the call was about.
	Path   string `json:"path,omitempty"`
	Line   int    `json:"line,omitempty"`
	Column int    `json:"column,omitempty"`

	Diagnostics []Diagnostic   `json:"diagnostics,omitempty"`
	Locations   []Location     `json:"locations,omitempty"`
	Hover       string         `json:"hover,omitempty"`
	Symbols     []Symbol       `json:"symbols,omitempty"`
	Edits       []FileEdit     `json:"edits,omitempty"`
	Applied     bool           `json:"applied,omitempty"`
	Servers     []ServerStatus `json:"servers,omitempty"`
}

// Diagnostic is one problem a server reported.
type Diagnostic struct {
	Path      string `json:"path"`
	Line      int    `json:"line"`
	Column    int    `json:"column"`
	EndLine   int    `json:"endLine"`
	EndColumn int    `json:"endColumn"`
	// Severity is "error", "warning", "info" or "hint".
	Severity string `json:"severity"`
	Source   string `json:"source,omitempty"`
	Code     string `json:"code,omitempty"`
	Message  string `json:"message"`
	// Text is the source line, trimmed.
	Text string `json:"text,omitempty"`
}

// Location is a place a definition or reference was found.
type Location struct {
	Path      string `json:"path"`
	Line      int    `json:"line"`
	Column    int    `json:"column"`
	EndLine   int    `json:"endLine"`
	EndColumn int    `json:"endColumn"`
	Text      string `json:"text,omitempty"`
}

// Symbol is a symbol of a document (with Depth in the outline) or of the
// workspace.
type Symbol struct {
	Name      string `json:"name"`
	Kind      string `json:"kind"`
	Detail    string `json:"detail,omitempty"`
	Container string `json:"container,omitempty"`
	Path      string `json:"path"`
	Line      int    `json:"line"`
	Column    int    `json:"column"`
	Depth     int    `json:"depth,omitempty"`
}

// FileEdit is the change a rename makes to one file.
type FileEdit struct {
	// Path is the absolute path of the file.
	Path string `json:"path"`
	// Changes are the edits, in file order, placed in the old text.
	Changes []TextChange `json:"changes"`
	// Old is the content the edits were computed against; New is the
	// content after them. A host applying the edits should refuse a file
	// whose content is no longer Old.
	Old string `json:"-"`
	New string `json:"-"`
}

// TextChange is one edit: the text from Line:Column up to EndLine:EndColumn
// (exclusive) of the old text, OldText, is replaced by NewText.
type TextChange struct {
	Line      int    `json:"line"`
	Column    int    `json:"column"`
	EndLine   int    `json:"endLine"`
	EndColumn int    `json:"endColumn"`
	OldText   string `json:"oldText"`
	NewText   string `json:"newText"`
}

// ServerStatus is one known server and its running instances.
type ServerStatus struct {
	Name       string   `json:"name"`
	Command    string   `json:"command"`
	Extensions []string `json:"extensions"`
	// Source is "built-in", "host" or the lsp.json that configured it.
	Source string `json:"source"`
	// Available reports whether Command was found; Executable is where,
	// Problem why not.
	Available  bool       `json:"available"`
	Executable string     `json:"executable,omitempty"`
	Problem    string     `json:"problem,omitempty"`
	Disabled   bool       `json:"disabled,omitempty"`
	Instances  []Instance `json:"instances,omitempty"`
	LastError  string     `json:"lastError,omitempty"`
}

// Instance is one server process, for one workspace root.
type Instance struct {
	Root string `json:"root"`
	// State is "starting", "running", "failed" or "stopped".
	State     string    `json:"state"`
	PID       int       `json:"pid,omitempty"`
	Since     time.Time `json:"since,omitzero"`
	Info      string    `json:"info,omitempty"`
	OpenFiles int       `json:"openFiles"`
	Progress  string    `json:"progress,omitempty"`
	Log       string    `json:"log,omitempty"`
	LastError string    `json:"lastError,omitempty"`
}
