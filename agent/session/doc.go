// Package session keeps conversations on disk: one append-only JSON Lines
// file per conversation, holding a tree of entries so that one file carries
// every branch the user forked. It owns the file format, the branch model
// and its identity for the extension protocol, compaction bookkeeping,
// crash-safe appends and the single-writer lock.
//
// A Session is opened with Create, CreateFile, Open, Continue or Resume
// (on disk) or NewMemory (for --no-session); both kinds have the same
// methods. All methods of a Session are safe for concurrent use by the
// goroutines of one process; writers are serialised and each entry reaches
// the file in one write. The caller closes the Session with Close, which
// releases the file lock.
//
// The format and the model are described for users in docs/sessions.md.
package session
