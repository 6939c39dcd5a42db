package interactive

import (
	"fmt"
	"slices"
	"strings"

	"github.com/zut-go/zut/agent/app"
	"github.com/zut-go/zut/tui"
)

// askTrust asks, once per repository and digest, whether the code that
// came with it may run: its extensions, MCP servers and language
// servers. They stay off until the user says yes; the answer is kept in
// $ZUT_HOME/trust.json, and a changed manifest asks again.
func (u *ui) askTrust() {
	t := u.app.ProjectTrust()
	if t.Trusted || t.Empty() {
		return
	}
	servers := u.app.UntrustedServers()
	msg := "This folder has code that came with the repository and would run with your permissions:\n" + trustList(t, servers) + "\nTrust them?"
	if t.StoreErr != nil {
		msg += "\n\n(" + t.StoreErr.Error() + ")"
	}
	l := &tui.List{Title: "Trust this folder?", Message: msg, Items: []tui.ListItem{
		{Label: "Trust this folder", Value: "trust", Detail: t.Root},
		{Label: "Not now", Value: "no", Detail: "they stay off; zut --trust runs them once"},
	}}
	u.openOverlay(&listOverlay{List: l, choose: func(u *ui, it tui.ListItem) {
		if it.Value != "trust" {
			u.chat.AddNotice("info", "", "this folder's "+t.Summary()+" stay off")
			return
		}
		if err := u.app.TrustProject(); err != nil {
			u.chat.AddNotice("error", "", err.Error())
			return
		}
		var started []string
		if len(servers) > 0 {
			started = append(started, fmt.Sprintf("%d MCP server%s starting", len(servers), plural(len(servers))))
		}
		if slices.Contains(t.Files, ".zut/lsp.json") {
			started = append(started, "the language servers of .zut/lsp.json start when the lsp tool needs them")
		}
		if slices.Contains(t.Files, ".zut/settings.json") {
			started = append(started, "the allow rules of .zut/settings.json count")
		}
		note := "trusted " + t.Root
		if len(started) > 0 {
			note += ": " + strings.Join(started, "; ")
		}
		u.chat.AddNotice("success", "", note)
		if len(t.Extensions) > 0 {
			u.reloadExt() // it reports the extensions it loaded
		}
	}, onCancel: func(u *ui) {
		u.chat.AddNotice("info", "", "this folder's "+t.Summary()+" stay off")
	}})
}

// trustList is what the trust question lists, one thing a line: each
// extension with its command, each MCP server with its command or URL,
// and the other files that count.
func trustList(t app.Trust, servers []string) string {
	var b strings.Builder
	line := func(s string) { b.WriteString("  • " + s + "\n") }
	for _, e := range t.Extensions {
		line("extension " + e)
	}
	for _, s := range servers {
		line("MCP server " + s + ", from .mcp.json")
	}
	for _, f := range t.Files {
		switch {
		case f == ".mcp.json" && len(servers) > 0:
		case f == ".zut/lsp.json":
			line("language servers configured in .zut/lsp.json")
		case f == ".zut/settings.json":
			line("allow rules in .zut/settings.json")
		default:
			line(f)
		}
	}
	return b.String()
}
