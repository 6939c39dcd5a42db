// Package proto holds the wire types of zut's two line protocols: extension
// protocol v2 (host <-> extension frames) and headless RPC mode (client <->
// zut). It owns the frame structs, their JSON names, and a bounded line codec.
// It imports nothing else from zut.
package proto
