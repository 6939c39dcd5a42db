package mcp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os/exec"
)

// ConnectOptions are what Connect needs besides the server's
// configuration.
type ConnectOptions struct {
	ClientOptions
	Home    string // $ZUT_HOME: logs/ and mcp-auth/
	Project string // the project directory: a stdio server's default working directory
	// Env is the environment a stdio server starts with (its "env" is
	// added to it); nil means zut's own. zut passes its environment
	// without provider keys (provider.ChildEnv).
	Env []string
	// WrapCommand, when set, may rewrite a stdio server's command before
	// it starts (the app's OS sandbox); an error keeps it from starting.
	WrapCommand func(*exec.Cmd) error

	// AuthPrompt shows the URL that authorizes zut for a remote server;
	// OpenBrowser (see the function of that name) tries to open it. With
	// neither, a server that needs OAuth fails with a message saying how
	// to authorize it.
	AuthPrompt  AuthPrompt
	OpenBrowser func(ctx context.Context, url string)
}

// Connect starts the server of cfg (a child process, or an HTTP session)
// and performs the initialize handshake; ctx bounds the start. For an
// "http" server whose URL refuses the Streamable HTTP initialize with 400,
// 404 or 405, the older HTTP+SSE transport is tried at the same URL
// (transports: backwards compatibility). The Client must be closed.
func Connect(ctx context.Context, cfg ServerConfig, opts ConnectOptions) (*Client, error) {
	if cfg.Err != nil {
		return nil, cfg.Err
	}
	log, lerr := openLog(opts.Home, cfg.Name)
	if lerr != nil && cfg.Transport == "stdio" {
		return nil, fmt.Errorf("start mcp server %q: %w", cfg.Name, lerr)
	}
	c, err := connect(ctx, cfg, opts, log)
	if err != nil {
		log.printf("start failed: %v", err)
		log.close()
		return nil, err
	}
	c.ownsLog = true
	return c, nil
}

func connect(ctx context.Context, cfg ServerConfig, opts ConnectOptions, log *logFile) (*Client, error) {
	switch cfg.Transport {
	case "stdio":
		c := newClient(cfg.Name, nil, log, opts.ClientOptions)
		t, err := startStdio(cfg, opts.Project, opts.Env, opts.WrapCommand, log, c)
		if err != nil {
			return nil, err
		}
		c.t = t
		return c, c.handshake(ctx)
	case "http", "sse":
	default:
		return nil, fmt.Errorf("mcp server %q: unknown transport %q", cfg.Name, cfg.Transport)
	}
	auth := newAuthorizer(cfg, opts.Home, opts.AuthPrompt, opts.OpenBrowser, log)
	c := newClient(cfg.Name, nil, log, opts.ClientOptions)
	if cfg.Transport == "http" {
		b, err := newHTTPBase(cfg, log, c, auth)
		if err != nil {
			return nil, err
		}
		c.t = newStreamable(b)
		err = c.handshake(ctx)
		var he *HTTPError
		if err == nil || !errors.As(err, &he) || he.Status != http.StatusBadRequest && he.Status != http.StatusNotFound && he.Status != http.StatusMethodNotAllowed {
			return c, err
		}
		log.printf("Streamable HTTP initialize refused (%v); trying the HTTP+SSE transport", he)
		c = newClient(cfg.Name, nil, log, opts.ClientOptions)
	}
	b, err := newHTTPBase(cfg, log, c, auth)
	if err != nil {
		return nil, err
	}
	t, err := connectLegacy(ctx, b)
	if err != nil {
		return nil, fmt.Errorf("connect to mcp server %q at %s: %w", cfg.Name, cfg.URL, err)
	}
	c.t = t
	return c, c.handshake(ctx)
}

// handshake initializes c, closing it when that fails.
func (c *Client) handshake(ctx context.Context) error {
	if err := c.initialize(ctx); err != nil {
		c.Close()
		var stopped *StoppedError
		if errors.As(err, &stopped) {
			return fmt.Errorf("start mcp server %q: %v before answering initialize; its log is %s", c.name, stopped.Err, c.log.path)
		}
		return err
	}
	return nil
}
