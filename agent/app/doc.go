// Package app assembles one running zut for any mode: it resolves the
// provider and model, opens the session, starts the extension host,
// discovers skills, builds the tools and the agent, bridges the agent to
// the extensions (bridge.go) and serves the extensions' host requests
// (hostapi.go). It also owns the run's options (options.go, flags.go),
// the settings file (settings.go), the process environment (env.go) and
// the operations both frontends call for slash commands (ops.go).
//
// The app knows no mode. What a mode can show (notes, dialogs, panels,
// widgets, status, editor text ...) is the UI interface it declares in
// ui.go; each mode implements it and describes itself with a Frontend.
package app
