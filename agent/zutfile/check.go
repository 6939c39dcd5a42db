package zutfile

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// CheckEnv is what Check compares the requirements with: the running
// zut, the machine and the model chosen for the run.
type CheckEnv struct {
	// ZutVersion is the running zut's version ("0.1.0").
	ZutVersion string
	// GOOS and GOARCH are the machine's (runtime.GOOS, runtime.GOARCH).
	GOOS, GOARCH string
	// LookPath finds a program on PATH (exec.LookPath); nil skips the
	// binaries.
	LookPath func(string) (string, error)
	// Model names the chosen model for messages ("anthropic/claude-x").
	Model string
	// ContextWindow is the model's context window in tokens; 0 when zut
	// does not know it (min_context is then not checked).
	ContextWindow int
	// Capabilities are the model's ("tools", "vision", "reasoning"); nil
	// when zut does not know them (then they are not checked).
	Capabilities []string
}

// Check lists the requirements of m that env does not meet, one message
// each, saying what is needed and what there is; none when all are met.
func (m *Manifest) Check(env CheckEnv) []string {
	var out []string
	if r := m.Requires.Zut; r != "" {
		need, err := parseVersion(r)
		have, herr := parseVersion(env.ZutVersion)
		switch {
		case err != nil:
			out = append(out, fmt.Sprintf("requires zut %s, which is not a version", r))
		case herr != nil:
			out = append(out, fmt.Sprintf("requires zut %s; this zut's version %q cannot be compared", r, env.ZutVersion))
		case compareVersions(have, need) < 0:
			out = append(out, fmt.Sprintf("requires zut %s or later; this is zut %s: install a newer zut", strings.TrimPrefix(strings.TrimSpace(r), ">="), env.ZutVersion))
		}
	}
	if len(m.Requires.OS) > 0 && !contains(m.Requires.OS, env.GOOS) {
		out = append(out, fmt.Sprintf("runs on %s only; this machine is %s", strings.Join(m.Requires.OS, ", "), env.GOOS))
	}
	if len(m.Requires.Arch) > 0 && !contains(m.Requires.Arch, env.GOARCH) {
		out = append(out, fmt.Sprintf("runs on %s only; this machine is %s", strings.Join(m.Requires.Arch, ", "), env.GOARCH))
	}
	if env.LookPath != nil {
		for _, b := range m.Requires.Binaries {
			if _, err := env.LookPath(b); err != nil {
				out = append(out, fmt.Sprintf("needs the program %s on PATH: install it", b))
			}
		}
	}
	model := env.Model
	if model == "" {
		model = "the model"
	}
	if n := m.Model.MinContext; n > 0 && env.ContextWindow > 0 && env.ContextWindow < n {
		out = append(out, fmt.Sprintf("needs a context window of %d tokens; %s has %d: choose a larger model with --model", n, model, env.ContextWindow))
	}
	if env.Capabilities != nil {
		for _, c := range m.Model.Capabilities {
			if contains(knownCapabilities, c) && !contains(env.Capabilities, c) {
				out = append(out, fmt.Sprintf("needs a model with %s; %s has none: choose another with --model", c, model))
			}
		}
	}
	return out
}

// parseVersion reads "0.4.0", "v0.4", ">=0.4.0" (the only comparison:
// the lowest version) into its numbers; a suffix such as "-dev" after
// the numbers is ignored.
func parseVersion(s string) ([]int, error) {
	s = strings.TrimSpace(s)
	s = strings.TrimSpace(strings.TrimPrefix(s, ">="))
	s = strings.TrimPrefix(s, "v")
	if i := strings.IndexAny(s, "-+ "); i >= 0 {
		s = s[:i]
	}
	if s == "" {
		return nil, errors.New("no version")
	}
	parts := strings.Split(s, ".")
	if len(parts) > 3 {
		return nil, errors.New("more than three numbers")
	}
	var out []int
	for _, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 || p[0] == '+' {
			return nil, fmt.Errorf("%q is not a number", p)
		}
		out = append(out, n)
	}
	for len(out) < 3 {
		out = append(out, 0)
	}
	return out, nil
}

func compareVersions(a, b []int) int {
	for i := range a {
		if a[i] != b[i] {
			if a[i] < b[i] {
				return -1
			}
			return 1
		}
	}
	return 0
}
