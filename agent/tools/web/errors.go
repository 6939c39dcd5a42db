package web

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/url"
	"path"
	"strings"
	"syscall"
	"time"

	"github.com/zut-go/zut/agent/tools"
)

// fetchError words a failed request for the model: what happened to which
// URL, and what to do about it.
func fetchError(tool, target string, err error, timeout time.Duration) string {
	var ue *url.Error
	where := target
	if errors.As(err, &ue) && ue.URL != "" && ue.URL != target {
		hop := ue.URL
		if base, err := url.Parse(target); err == nil {
			if ref, err := url.Parse(hop); err == nil {
				hop = base.ResolveReference(ref).String()
			}
		}
		where = target + ": redirected to " + hop
	}
	return fmt.Sprintf("%s: %s: %s", tool, where, describe(err, timeout))
}

// describe names the cause of a failed request.
func describe(err error, timeout time.Duration) string {
	var blocked *BlockedError
	var notListed *HostError
	var dns *net.DNSError
	var certErr *tls.CertificateVerificationError
	var hostErr x509.HostnameError
	var authErr x509.UnknownAuthorityError
	var invalidErr x509.CertificateInvalidError
	var recordErr tls.RecordHeaderError
	var netErr net.Error
	switch {
	case errors.As(err, &notListed):
		return "refused: " + notListed.Error()
	case errors.As(err, &blocked):
		return "refused: " + blocked.Error()
	case errors.Is(err, context.Canceled):
		return "aborted"
	case errors.As(err, &dns):
		switch {
		case dns.IsNotFound:
			return fmt.Sprintf("host %s not found (DNS); check the spelling of the URL", dns.Name)
		case dns.IsTimeout:
			return fmt.Sprintf("the DNS lookup of %s timed out; check the network, or try again", dns.Name)
		}
		return fmt.Sprintf("DNS lookup of %s failed: %s", dns.Name, dns.Err)
	case errors.Is(err, context.DeadlineExceeded) || errors.As(err, &netErr) && netErr.Timeout():
		return fmt.Sprintf("no complete answer within %s (the server is too slow or does not answer); try again later or another source", timeout)
	case errors.As(err, &hostErr):
		return fmt.Sprintf("the TLS certificate is not valid for this host (%v); zut does not open sites with bad certificates", hostErr)
	case errors.As(err, &authErr):
		return "the TLS certificate is signed by an unknown authority; zut does not open sites with bad certificates"
	case errors.As(err, &invalidErr):
		return fmt.Sprintf("the TLS certificate is not valid (%v); zut does not open sites with bad certificates", invalidErr)
	case errors.As(err, &certErr):
		return fmt.Sprintf("the TLS certificate is not valid (%v); zut does not open sites with bad certificates", certErr.Err)
	case errors.As(err, &recordErr):
		return "the server does not speak TLS here; try the http:// URL"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused: nothing listens there"
	case errors.Is(err, syscall.ECONNRESET):
		return "the connection was reset by the server"
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	if strings.Contains(err.Error(), "server gave HTTP response to HTTPS client") {
		return "the server speaks plain HTTP, not HTTPS; try the http:// URL"
	}
	return err.Error()
}

// cannotShow is a document web_open does not show: a PDF, an image, an
// archive or other binary data.
type cannotShow struct {
	url, kind, mediaType string
	size                 string
}

func (c *cannotShow) Error() string {
	name := "file"
	if u, err := url.Parse(c.url); err == nil && path.Base(u.Path) != "/" && path.Base(u.Path) != "." {
		name = path.Base(u.Path)
	}
	next := "then a tool made for it"
	switch c.kind {
	case kindPDF:
		next = "then read it with pdftotext " + name + " -"
	case kindImage:
		next = "then look at it with the read tool, which shows PNG, JPEG, GIF and WebP images"
	case kindArchive:
		next = "then unpack it with bash"
	}
	return fmt.Sprintf("cannot show %s: it is %s (%s, %s); web_open shows HTML and text only. To read it, download it with bash (curl -L -o %s '%s'), %s",
		c.url, c.kind, c.mediaType, c.size, name, c.url, next)
}

// sizeText describes a body's size from what was read and the header.
func sizeText(read int, truncated bool, length int64) string {
	switch {
	case length >= 0:
		return tools.FormatSize(length)
	case truncated:
		return "over " + tools.FormatSize(int64(read))
	}
	return tools.FormatSize(int64(read))
}
