package sandbox

import "net/netip"

// ranges are the address ranges that are not public unicast addresses
// and that netip has no predicate for.
type ranges struct {
	cgnat       netip.Prefix // carrier-grade NAT (and Alibaba's metadata)
	thisNetwork netip.Prefix
	ietf        netip.Prefix
	testNet1    netip.Prefix
	benchmark   netip.Prefix
	testNet2    netip.Prefix
	testNet3    netip.Prefix
	reserved4   netip.Prefix // and the broadcast address
	global6     netip.Prefix
	doc6        netip.Prefix
	teredo      netip.Prefix
	sixToFour   netip.Prefix
}

// special returns the ranges, parsed on first use (not by an initialiser
// at every start).
func special() *ranges {
	return specialLazy.get(func() *ranges {
		return &ranges{
			cgnat:       netip.MustParsePrefix("100.64.0.0/10"),
			thisNetwork: netip.MustParsePrefix("0.0.0.0/8"),
			ietf:        netip.MustParsePrefix("192.0.0.0/24"),
			testNet1:    netip.MustParsePrefix("192.0.2.0/24"),
			benchmark:   netip.MustParsePrefix("198.18.0.0/15"),
			testNet2:    netip.MustParsePrefix("198.51.100.0/24"),
			testNet3:    netip.MustParsePrefix("203.0.113.0/24"),
			reserved4:   netip.MustParsePrefix("240.0.0.0/4"),
			global6:     netip.MustParsePrefix("2000::/3"),
			doc6:        netip.MustParsePrefix("2001:db8::/32"),
			teredo:      netip.MustParsePrefix("2001::/32"),
			sixToFour:   netip.MustParsePrefix("2002::/16"),
		}
	})
}

var specialLazy lazy[*ranges]

// NonPublic says why a is not a public unicast address, "" when it is.
// An IPv4-mapped IPv6 address is judged as the IPv4 address it holds, and
// a 6to4 address as the IPv4 address it embeds.
func NonPublic(a netip.Addr) string {
	a = a.Unmap()
	switch {
	case !a.IsValid():
		return "not an address"
	case a.IsLoopback():
		return "a loopback address"
	case a.IsUnspecified():
		return "the unspecified address"
	case a.IsPrivate():
		return "a private address"
	case a.IsLinkLocalUnicast():
		if a == netip.AddrFrom4([4]byte{169, 254, 169, 254}) {
			return "the cloud metadata address"
		}
		return "a link-local address"
	case a.IsMulticast(), a.IsLinkLocalMulticast(), a.IsInterfaceLocalMulticast():
		return "a multicast address"
	}
	r := special()
	if a.Is4() {
		switch {
		case r.cgnat.Contains(a):
			return "a carrier-grade NAT address"
		case r.thisNetwork.Contains(a), r.ietf.Contains(a), r.benchmark.Contains(a), r.reserved4.Contains(a):
			return "a reserved address"
		case r.testNet1.Contains(a), r.testNet2.Contains(a), r.testNet3.Contains(a):
			return "a documentation address"
		}
		return ""
	}
	switch {
	case !r.global6.Contains(a):
		return "a reserved address" // IPv4-compatible, NAT64, discard, site-local ...
	case r.doc6.Contains(a):
		return "a documentation address"
	case r.teredo.Contains(a):
		return "a Teredo tunnel address"
	case r.sixToFour.Contains(a):
		b := a.As16()
		if why := NonPublic(netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]})); why != "" {
			return "a 6to4 address of " + why
		}
	}
	return ""
}
