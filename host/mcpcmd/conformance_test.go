package mcpcmd

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestConformanceSuite runs the official MCP conformance suite
// (@modelcontextprotocol/conformance, the version .ci/run installs) in
// client mode against zut's client: every client scenario must pass.
// ZUT_MCP_CONFORMANCE names the npm prefix it is installed in, with the
// node (22 or later) the suite needs in node_modules/node/bin; .ci/run
// sets it for this test alone. The test binary is the client the suite
// runs: re-executed with ZUT_MCPCMD_CONFORMANCE_CLIENT=1, it is
// `zut mcp conformance-client`.
func TestConformanceSuite(t *testing.T) {
	dir := os.Getenv("ZUT_MCP_CONFORMANCE")
	if dir == "" {
		t.Skip("ZUT_MCP_CONFORMANCE is not set; .ci/run installs the suite and sets it")
	}
	node := filepath.Join(dir, "node_modules", "node", "bin", "node")
	suite := filepath.Join(dir, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js")
	for _, p := range []string{node, suite} {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("the conformance suite is not installed under %s: %v", dir, err)
		}
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	list, err := exec.Command(node, suite, "list").CombinedOutput()
	if err != nil {
		t.Fatalf("conformance list: %v\n%s", err, list)
	}
	scenarios := clientScenarios(string(list))
	// The suite's 0.1.16 has 26 client scenarios; a version with fewer
	// means the wrong one is installed.
	if len(scenarios) < 26 {
		t.Fatalf("conformance list gives %d client scenarios, want 26:\n%s", len(scenarios), list)
	}
	start := time.Now()
	failed := 0
	for _, sc := range scenarios {
		t.Run(sc, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, node, suite, "client", "--command", exe, "--scenario", sc)
			cmd.Env = append(os.Environ(), "ZUT_MCPCMD_CONFORMANCE_CLIENT=1")
			out, err := cmd.CombinedOutput()
			verdict := "PASS"
			if err != nil {
				verdict = "FAIL"
				failed++
				t.Errorf("scenario %s: %v\n%s", sc, err, tail(string(out), 60))
			}
			fmt.Printf("conformance: %s %s\n", verdict, sc)
		})
	}
	fmt.Printf("conformance: %d/%d client scenarios passed in %v\n", len(scenarios)-failed, len(scenarios), time.Since(start).Round(time.Second))
}

// clientScenarios reads the client scenarios of `conformance list`.
func clientScenarios(list string) []string {
	var out []string
	in := false
	for _, line := range strings.Split(list, "\n") {
		switch {
		case strings.HasPrefix(line, "Client scenarios"):
			in = true
		case strings.HasSuffix(strings.TrimSpace(line), ":"):
			in = false
		case in && strings.HasPrefix(strings.TrimSpace(line), "- "):
			f := strings.Fields(strings.TrimPrefix(strings.TrimSpace(line), "- "))
			if len(f) > 0 {
				out = append(out, f[0])
			}
		}
	}
	return out
}

func tail(s string, lines int) string {
	l := strings.Split(s, "\n")
	if len(l) > lines {
		l = l[len(l)-lines:]
	}
	return strings.Join(l, "\n")
}

// conformanceClient is the re-executed test binary as the suite's client:
// its last argument is the server's URL.
func conformanceClient() int {
	env := Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv, Version: "test"}
	args := os.Args[1:]
	if len(args) > 1 {
		args = args[len(args)-1:]
	}
	if err := Run(context.Background(), append([]string{"conformance-client"}, args...), env); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}
