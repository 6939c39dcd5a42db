//go:build !unix

package provider

import "net"

// stillOpen cannot peek here; a warmed connection the server dropped
// fails its request, which roundTripWarm sends again.
func stillOpen(net.Conn) bool { return true }
