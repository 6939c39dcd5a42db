// Package bot runs zut conversations over a chat protocol, independent of
// the protocol: a Runner gives every chat a conversation with its own
// Agent (zut's app, built by a hook), turns chat messages into prompts,
// answers commands (/new, /stop, /status, /model, /compact, /sessions,
// /resume and extension commands), streams progress into one edited
// message, sends the final answer, asks for confirmations with buttons and
// sends files back. A Mirror shows a conversation that another host (the
// terminal UI) runs, and hands what the user writes back to that host.
//
// The protocol is a Transport (package bot/telegram implements Telegram);
// the app is an Agent. Neither is imported: both are interfaces declared
// here.
package bot
