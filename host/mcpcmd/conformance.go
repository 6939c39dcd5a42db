package mcpcmd

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/zut-go/zut/host/mcp"
)

// runConformance is `zut mcp conformance-client URL`, the client the
// official MCP conformance suite drives (`conformance client --command
// "zut mcp conformance-client" --scenario NAME`; .ci/run runs it). It is
// not listed in the usage: it exists for the suite. The suite names the
// scenario in MCP_CONFORMANCE_SCENARIO and passes what a user would have
// configured (pre-registered clients, keys, tokens) as JSON in
// MCP_CONFORMANCE_CONTEXT; both are turned into a server configuration
// as a user would write it, and the rest is zut's own client: connect
// (with OAuth when the server asks for it), list the tools, call each,
// answer elicitations by accepting the defaults, close.
//
// The browser of the authorization code flow is an HTTP client that
// follows the authorization endpoint's redirect back to zut's loopback
// listener, as a user who approves at once would.
func runConformance(ctx context.Context, args []string, env Env) error {
	if len(args) != 1 {
		return &UsageError{Msg: "usage: zut mcp conformance-client URL (run by the MCP conformance suite)"}
	}
	scenario := env.Getenv("MCP_CONFORMANCE_SCENARIO")
	cfg := mcp.ServerConfig{Name: "conformance", Transport: "http", URL: args[0], Enabled: true}
	if raw := env.Getenv("MCP_CONFORMANCE_CONTEXT"); raw != "" {
		o, err := conformanceOAuth([]byte(raw))
		if err != nil {
			return err
		}
		cfg.OAuth = o
	}
	if cfg.OAuth == nil {
		cfg.OAuth = &mcp.OAuthConfig{}
	}
	// The suite checks that a client uses a URL-based client id when the
	// authorization server supports Client ID Metadata Documents; this is
	// the document the suite's server expects.
	cfg.OAuth.ClientMetadataURL = "https://conformance-test.local/client-metadata.json"

	home, err := os.MkdirTemp("", "zut-conformance-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(home)
	browser := &http.Client{Timeout: 30 * time.Second}
	opts := mcp.ConnectOptions{Home: home,
		ClientOptions: mcp.ClientOptions{Info: mcp.Implementation{Name: "zut", Version: env.Version},
			Elicitation: func(ctx context.Context, server string, req mcp.ElicitRequest) (mcp.ElicitResult, error) {
				return mcp.ElicitResult{Action: "accept", Content: req.Defaults()}, nil
			}},
		AuthPrompt: func(server, authURL string) {
			fmt.Fprintf(env.Stderr, "authorize at %s\n", authURL)
		},
		OpenBrowser: func(ctx context.Context, authURL string) {
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
			if err != nil {
				return
			}
			resp, err := browser.Do(req)
			if err != nil {
				fmt.Fprintf(env.Stderr, "browser: %v\n", err)
				return
			}
			_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
			resp.Body.Close()
		}}
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	c, err := mcp.Connect(ctx, cfg, opts)
	if err != nil {
		return fmt.Errorf("conformance %s: %w", scenario, err)
	}
	defer c.Close()
	tools, err := c.Tools(ctx)
	if err != nil {
		return fmt.Errorf("conformance %s: %w", scenario, err)
	}
	for _, t := range tools {
		args := json.RawMessage(`{}`)
		if t.Name == "add_numbers" {
			args = json.RawMessage(`{"a":5,"b":3}`)
		}
		res, err := c.CallTool(ctx, t.Name, args, nil)
		if err != nil {
			return fmt.Errorf("conformance %s: call %s: %w", scenario, t.Name, err)
		}
		var text []string
		for _, b := range res.Content {
			text = append(text, b.Text)
		}
		fmt.Fprintf(env.Stdout, "%s: %s\n", t.Name, strings.Join(text, " "))
	}
	return nil
}

// conformanceOAuth turns the suite's context into the "oauth" key a user
// would write for the server.
func conformanceOAuth(raw []byte) (*mcp.OAuthConfig, error) {
	var x struct {
		ClientID         string `json:"client_id"`
		ClientSecret     string `json:"client_secret"`
		PrivateKeyPEM    string `json:"private_key_pem"`
		SigningAlgorithm string `json:"signing_algorithm"`
		IDPClientID      string `json:"idp_client_id"`
		IDPIDToken       string `json:"idp_id_token"`
		IDPIssuer        string `json:"idp_issuer"`
		IDPTokenEndpoint string `json:"idp_token_endpoint"`
		Name             string `json:"name"`
	}
	if err := json.Unmarshal(raw, &x); err != nil {
		return nil, fmt.Errorf("read MCP_CONFORMANCE_CONTEXT: %v", err)
	}
	if x.ClientID == "" {
		return nil, nil
	}
	o := &mcp.OAuthConfig{ClientID: x.ClientID, ClientSecret: x.ClientSecret}
	switch {
	case x.IDPIDToken != "":
		o.Grant = mcp.GrantCrossApp
		o.IDP = &mcp.IDPConfig{TokenEndpoint: x.IDPTokenEndpoint, Issuer: x.IDPIssuer, ClientID: x.IDPClientID, IDToken: x.IDPIDToken}
	case x.PrivateKeyPEM != "":
		o.Grant = mcp.GrantClientCredentials
		o.PrivateKey, o.SigningAlgorithm = x.PrivateKeyPEM, x.SigningAlgorithm
	case strings.HasPrefix(x.Name, "auth/client-credentials"):
		o.Grant = mcp.GrantClientCredentials
	}
	return o, nil
}
