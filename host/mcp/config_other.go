//go:build !unix

package mcp

const openNonblock = 0
