package app

import (
	"fmt"
	"strings"

	"github.com/zut-go/zut/provider"
)

// EnvVar is an environment variable zut reads, for zut help env.
type EnvVar struct {
	Name string // a name, or a prefix ending in '_' with a <NAME> part
	What string
}

// EnvVars are the variables zut reads besides the providers' keys and
// base URLs (provider.BuiltinProviders lists those). A test checks that
// every variable the code reads is here or in the catalog.
var EnvVars = []EnvVar{
	{"ZUT_HOME", "zut's state directory (default $XDG_STATE_HOME/zut, else ~/.local/state/zut)"},
	{"XDG_STATE_HOME", "where ZUT_HOME defaults to, when set"},
	{"HOME", "your home directory: ~ in paths, ~/.agents/skills"},
	{"LOCALAPPDATA", "on Windows, where ZUT_HOME defaults to"},
	{"ZUT_OPT_<NAME>", "the value of an extension option NAME (upper case, - and . as _)"},
	{"ZUTCORE_RPC_TOKEN", "a token RPC mode's hello must carry"},
	{"TERM", "the terminal type: dumb gives plain lines; 256color, kitty, screen, tmux, linux are recognised"},
	{"COLORTERM", "truecolor or 24bit: 24-bit colour"},
	{"NO_COLOR", "set (non-empty): no colours, bold and underline stay"},
	{"TMUX", "inside tmux: links print their URL, lines rewrap on resize"},
	{"TERM_PROGRAM", "iTerm.app, WezTerm, vscode, ghostty ...: links are OSC 8 hyperlinks"},
	{"VTE_VERSION", "GNOME Terminal and other VTE terminals (5000 and up): hyperlinks"},
	{"KITTY_WINDOW_ID", "kitty: hyperlinks"},
	{"WT_SESSION", "Windows Terminal: hyperlinks"},
	{"KONSOLE_VERSION", "Konsole: hyperlinks"},
	{"XTERM_VERSION", "xterm, which does not rewrap lines on resize"},
	{"VISUAL", "the editor Ctrl+G opens (first choice)"},
	{"EDITOR", "the editor Ctrl+G opens when VISUAL is not set"},
	{"SHELL", "the shell !command runs in (default sh)"},
	{"WAYLAND_DISPLAY", "use wl-copy and wl-paste for /copy and Ctrl+V"},
	{"DISPLAY", "use xclip for /copy and Ctrl+V"},
	{"PATH", "where zut finds rg, git, bash, the clipboard tools and extensions' programs"},
	{"ZUT_PRECONNECT", "0: do not open the connection to the model's API at start, before the first request"},
	{"ZUT_PASS_KEYS", "1: let provider API keys through to bash, python and extensions (setting pass_keys)"},
	{"SSH_AUTH_SOCK", "the SSH agent's socket, hidden from sandboxed commands"},
	{"XDG_RUNTIME_DIR", "where the D-Bus, systemd, Docker and Podman sockets hidden from sandboxed commands live"},
	{"DOCKER_HOST", "a unix:// Docker socket, hidden from sandboxed commands"},
	{"ZUT_SANDBOX_POLICY", "zut's own: the policy zut internal sandbox-exec applies (set by zut; never set it yourself)"},
	{"ZUT_SANDBOX_PROXY_FD", "zut's own: the socket over which zut internal sandbox-exec hands zut the proxy of an agent's net.allow (set by zut; never set it yourself)"},
	{"ZUT_WEB_SEARCH", "the web_search backend: duckduckgo (default), searxng, brave or tavily"},
	{"ZUT_SEARXNG_URL", "a SearXNG instance for web_search (its settings.yml must allow the json format)"},
	{"BRAVE_API_KEY", "a Brave Search API key for web_search"},
	{"TAVILY_API_KEY", "a Tavily API key for web_search"},
	{"ZUT_WEB_ALLOW_PRIVATE", "1: let web_open fetch loopback and private addresses (setting web.allow_private)"},
	{"ZUT_TELEGRAM_TOKEN", "the bot token zut telegram setup saves (docs/telegram.md)"},
	{"ZUT_TELEGRAM_API_URL", "another Bot API server for zut telegram (a local telegram-bot-api)"},
	{"ZUT_DEMO_DELAY_MS", "the demo model's pause between text pieces (zut --demo; default 10, 0 for none)"},
	{"MCP_TIMEOUT", "milliseconds an MCP server may take to start, when its startup_timeout_sec does not say (default 30 s; 10 s in print and JSON modes)"},
	{"MCP_TOOL_TIMEOUT", "milliseconds an MCP tool call may take, when the server's tool_timeout_sec does not say (default 10 min)"},
	{"MCP_CONFORMANCE_SCENARIO", "set by the MCP conformance suite for zut mcp conformance-client: the scenario"},
	{"MCP_CONFORMANCE_CONTEXT", "set by the MCP conformance suite for zut mcp conformance-client: its JSON context"},
	{"GIT_SSH_COMMAND", "kept for zut ext install's git clone (else ssh runs with BatchMode=yes)"},
	{"ZUT_ZUTFILE_GIT_BASE", "where owner/repo agents are cloned from instead of https://github.com (tests: a file:// directory of bare repositories)"},
}

// EnvHelp is the text of zut help env: EnvVars, then each provider's key
// and base URL variables.
func EnvHelp() string {
	var b strings.Builder
	b.WriteString("Environment variables zut reads:\n\n")
	for _, v := range EnvVars {
		fmt.Fprintf(&b, "  %-20s %s\n", v.Name, v.What)
	}
	b.WriteString("\nNetwork bounds of model requests (config.json takes the same under the key shown):\n\n")
	for _, l := range provider.LimitSettings {
		fmt.Fprintf(&b, "  %-23s %-19s default %s\n", l.Env, l.Key, l.Default)
	}
	b.WriteString("\nSubscription sign-ins (zut help auth; the defaults are the providers' own, unconfirmed by public API docs):\n\n")
	for _, v := range provider.OAuthVars {
		fmt.Fprintf(&b, "  %-33s %s\n", v.Name, v.What)
	}
	b.WriteString("\nModel providers (a flag beats a variable, a variable beats auth.json):\n\n")
	for _, p := range provider.BuiltinProviders() {
		keys := strings.Join(p.KeyEnv, ", ")
		if keys == "" {
			keys = "(no key)"
			if _, ok := provider.LookupOAuth(p.Name, nil); ok {
				keys = "(a sign-in: zut auth login " + p.Name + ")"
			}
		}
		bases := strings.Join(p.BaseURLEnv, ", ")
		if bases == "" {
			bases = "--base-url only"
		}
		fmt.Fprintf(&b, "  %-17s key %s; base URL %s\n", p.Name, keys, bases)
	}
	b.WriteString("\nmodels.json may name more: api_key_env and base_url_env of a provider (docs/providers.md).\n")
	return b.String()
}
