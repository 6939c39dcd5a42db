// Package ext is the Go SDK for writing zut extensions. An extension is a
// program that speaks extension protocol v2 over its stdin and stdout; this
// package does the handshake, registration and dispatch so that an author
// writes handlers only.
package ext
