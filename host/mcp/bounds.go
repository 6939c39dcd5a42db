package mcp

// The bounds on what a server can put before the model (docs/mcp.md,
// "Bounds"): a server is someone else's program, and what it lists or
// answers goes into every request to the model.
const (
	// MaxToolsPerServer is how many tools of one server are offered to
	// the model; the rest are left out with a note giving their number
	// (zut mcp list shows them all).
	MaxToolsPerServer = 256
	// maxDescription bounds a tool's, prompt's or argument's description
	// and an elicitation's message, in bytes; a longer one is cut.
	maxDescription = 2 << 10
	// MaxSchema bounds a tool's inputSchema, in bytes of JSON; a tool
	// with a larger one is skipped with a note.
	MaxSchema = 64 << 10
	// MaxResultText bounds the text of one tool result given to the
	// model, in bytes; the whole result is saved to a file the model can
	// read, and the note says where.
	MaxResultText = 64 << 10
)
