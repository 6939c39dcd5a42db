package interactive

import "strings"

// sandboxCommand is /sandbox: without an argument it shows the mode in
// force; with a mode's name it puts that mode in force for the commands
// started from then on.
func (u *ui) sandboxCommand(args string) {
	args = strings.TrimSpace(args)
	if args == "" && u.opts.Agent != nil {
		u.chat.AddNotice("info", "", "sandbox: "+u.app.SandboxMode()+": the agent's commands run in the sandbox of its permissions, which /sandbox does not change (docs/zutfiles.md)")
		return
	}
	if args == "" {
		u.chat.AddNotice("info", "", "sandbox: "+u.app.SandboxMode()+"; /sandbox read-only, workspace-write or danger-full-access changes it for the commands started from now on (zut help sandbox)")
		return
	}
	if err := u.app.SetSandboxMode(args); err != nil {
		u.chat.AddNotice("error", "", "/sandbox: "+err.Error())
		return
	}
	u.chat.AddNotice("success", "", "sandbox: "+args+" for the commands started from now on")
	u.updateFooter()
}
