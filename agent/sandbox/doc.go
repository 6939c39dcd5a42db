// Package sandbox confines the processes zut starts for the model (the
// bash tool, the python interpreter, "!cmd" in the UI and, on request,
// extensions, MCP servers and language servers) with the kernel's own
// mechanisms: Landlock for the filesystem and TCP ports, a user namespace
// with mount and network namespaces for read-only subtrees, hidden paths
// and "no network", and a seccomp filter that keeps the confined process
// from undoing any of it. For NetworkProxy (an agent's net.allow) zut
// also serves an HTTP proxy on 127.0.0.1 inside the command's network
// namespace that reaches the allowed hosts only (HostAllowed); the
// Confined that Confine returns owns it, and its Close stops it.
//
// A Policy says what a process may do; Mode turns the three named modes
// (read-only, workspace-write, danger-full-access) into a Policy for a
// project. Sandbox.Confine rewrites an exec.Cmd so that it runs through
// "zut internal sandbox-exec" (Exec), which applies the policy to itself
// and then executes the real command: the confinement is set up in a
// fresh single-purpose process, never between fork and exec in zut's own
// runtime. Where the machine lacks a mechanism the policy needs, Confine
// refuses the command with an *UnavailableError naming it (fail closed).
//
// The package imports nothing of zut; it uses golang.org/x/sys/unix.
package sandbox
