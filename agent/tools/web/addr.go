package web

import (
	"fmt"
	"net/netip"
)

// BlockedError is a connection the fetcher refused because the address is
// not a public one (or, without AllowPrivate, the port is not 80 or 443).
type BlockedError struct {
	Host   string     // the host name as written in the URL
	Addr   netip.Addr // the address it resolved to; invalid for a port refusal
	Port   string
	Reason string // "a loopback address", "port 8080 is not 80 or 443" ...
}

func (e *BlockedError) Error() string {
	hint := "the web tools open public addresses only; set web.allow_private (ZUT_WEB_ALLOW_PRIVATE=1) to open intranet pages"
	if !e.Addr.IsValid() {
		return fmt.Sprintf("%s: %s; zut uses the standard web ports only; set web.allow_private (ZUT_WEB_ALLOW_PRIVATE=1) to open other ports", e.Host, e.Reason)
	}
	if e.Host == e.Addr.String() {
		return fmt.Sprintf("%s is %s; %s", e.Host, e.Reason, hint)
	}
	return fmt.Sprintf("%s resolves to %s, %s; %s", e.Host, e.Addr, e.Reason, hint)
}

// HostError is a request to a host that Config.AllowHosts (the agent's
// net.allow) does not list.
type HostError struct {
	Host string
}

func (e *HostError) Error() string {
	return fmt.Sprintf("host %s is not in the agent's net.allow, and the web tools open only the hosts it lists; the agent's net.allow must list %s", e.Host, e.Host)
}
