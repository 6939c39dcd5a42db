// Package agent runs the conversation: model turns, tool calls, the system
// prompt, skills, confirmation and sessions. It talks to models through
// package provider and to extensions through the Extensions interface it
// declares, which the main package implements.
package agent
