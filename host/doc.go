// Package host runs zut's extensions: it discovers manifests, spawns each
// extension as a subprocess, performs the protocol v2 handshake, keeps the
// command and tool registries, correlates requests with replies, and owns
// every extension process until it is shut down.
package host
