package session

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"github.com/zut-go/zut/provider"
)

// FormatVersion is the version of the file format this package writes and
// the highest it reads.
const FormatVersion = 1

// MaxStateSize is the largest extension state AppendState persists (C19).
const MaxStateSize = 256 << 10

// Type is the kind of an entry.
type Type string

// Entry types. TypeSession is the header on line 1; every other line is one
// of the rest. Entries of unknown types (from a newer zut) are kept in the
// tree and otherwise ignored.
const (
	TypeSession     Type = "session"      // header: Version, ID, CWD, Time, ZutVersion, Title
	TypeMessage     Type = "message"      // Message, with Provider, Model, Usage, Stop when known
	TypeExtState    Type = "ext_state"    // Extension, State (a JSON null clears it)
	TypeCompaction  Type = "compaction"   // Summary, FirstKeptID, TokensBefore, TokensAfter
	TypeTitle       Type = "title"        // Title
	TypeModelChange Type = "model_change" // Provider, Model
	TypeBranch      Type = "branch"       // starts a branch (Fork; Append one for a label); Label optional
	TypeCustom      Type = "custom"       // Extension, CustomType, Data
	TypePlan        Type = "plan"         // Plan (work.go)
	TypeGoal        Type = "goal"         // Goal
	TypeSchedule    Type = "schedule"     // Schedule
	TypeSubagent    Type = "subagent"     // Subagent
)

// Entry is one line of a session file. ID, ParentID and Time are set by the
// Session when the entry is appended; which other fields are used depends
// on Type (see the Type constants). An entry at the very start of the
// conversation has the session ID as its ParentID.
//
// Entries returned by a Session share their Message, State and Data with
// the Session; treat them as read-only.
type Entry struct {
	Type     Type      `json:"type"`
	Version  int       `json:"version,omitempty"`
	ID       string    `json:"id"`
	ParentID string    `json:"parent_id,omitempty"`
	Time     time.Time `json:"time"`

	CWD        string `json:"cwd,omitempty"`
	ZutVersion string `json:"zut_version,omitempty"`
	Title      string `json:"title,omitempty"`

	Message  *provider.Message   `json:"message,omitempty"`
	Provider string              `json:"provider,omitempty"`
	Model    string              `json:"model,omitempty"`
	Usage    *provider.Usage     `json:"usage,omitempty"`
	Stop     provider.StopReason `json:"stop,omitempty"`

	Extension  string          `json:"extension,omitempty"`
	State      json.RawMessage `json:"state,omitempty"`
	CustomType string          `json:"custom_type,omitempty"`
	Data       json.RawMessage `json:"data,omitempty"`

	Summary      string `json:"summary,omitempty"`
	FirstKeptID  string `json:"first_kept_id,omitempty"`
	TokensBefore int    `json:"tokens_before,omitempty"`
	TokensAfter  int    `json:"tokens_after,omitempty"`

	Label string `json:"label,omitempty"`

	Plan     *Checklist    `json:"plan,omitempty"`
	Goal     *Goal         `json:"goal,omitempty"`
	Schedule *ScheduleOp   `json:"schedule,omitempty"`
	Subagent *SubagentLink `json:"subagent,omitempty"`
}

// Meta is what is recorded beside a message: who produced it and at what
// cost. Every field is optional.
type Meta struct {
	Provider string
	Model    string
	Usage    *provider.Usage
	Stop     provider.StopReason
}

// check reports what is wrong with an entry a caller wants to append.
func (e *Entry) check() error {
	switch e.Type {
	case TypeMessage:
		if e.Message == nil {
			return fmt.Errorf("message entry without a message")
		}
	case TypeExtState:
		if e.Extension == "" {
			return fmt.Errorf("ext_state entry without an extension name")
		}
		if len(e.State) > MaxStateSize {
			return fmt.Errorf("state of extension %q is %d bytes, over the %d KiB limit; it was not saved", e.Extension, len(e.State), MaxStateSize>>10)
		}
		if len(e.State) > 0 && !json.Valid(e.State) {
			return fmt.Errorf("state of extension %q is not valid JSON; it was not saved", e.Extension)
		}
	case TypeCustom:
		if e.Extension == "" || e.CustomType == "" {
			return fmt.Errorf("custom entry needs an extension name and a custom type")
		}
		if len(e.Data) > 0 && !json.Valid(e.Data) {
			return fmt.Errorf("custom data of extension %q is not valid JSON", e.Extension)
		}
	case TypeCompaction, TypeTitle, TypeModelChange, TypeBranch:
	case TypePlan, TypeGoal, TypeSchedule, TypeSubagent:
		return e.checkWork()
	case TypeSession:
		return fmt.Errorf("the session header cannot be appended")
	case "":
		return fmt.Errorf("entry without a type")
	default:
		return fmt.Errorf("unknown entry type %q", e.Type)
	}
	return nil
}

// encode renders e as one line ending in a newline. HTML characters are
// not escaped so that code in messages stays readable in the file.
func encode(buf *bytes.Buffer, e *Entry) error {
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	return enc.Encode(e) // Encode compacts embedded raw JSON and appends '\n'
}

// isNull reports whether raw is absent or the JSON literal null.
func isNull(raw json.RawMessage) bool {
	return len(raw) == 0 || string(raw) == "null"
}
