package permissions

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkCheckCommand decides a 1 KB bash command against 50 rules
// (the target is under 50 µs): a script of pipelines, lists, a loop, a
// here-document and substitutions, none of which a rule matches, so that
// every rule is tried on every command.
func BenchmarkCheckCommand(b *testing.B) {
	var rules []Rule
	for i := 0; i < 50; i++ {
		e := []Effect{Deny, Ask, Allow}[i%3]
		rules = append(rules, Rule{Effect: e, Tool: "bash", Pattern: fmt.Sprintf("tool%d sub%d *", i, i), Source: SourceFlag})
	}
	set := NewSet(rules...)
	var sb strings.Builder
	for sb.Len() < 1024 {
		sb.WriteString(`cd "$(git rev-parse --show-toplevel)" && go vet ./... 2>&1 | grep -v '^#' | head -20; `)
		sb.WriteString("for f in $(ls *.go); do gofmt -l \"$f\" || echo \"bad: $f\"; done\n")
		sb.WriteString("cat <<EOF | sed 's/a/b/g' > /dev/null\nline $(date +%s)\nEOF\n")
	}
	cmd := sb.String()[:1024]
	cmd = cmd[:strings.LastIndexByte(cmd, '\n')]
	c := call("bash", map[string]any{"command": cmd})
	if d := set.Check(c); d.Effect != None || d.Reason != "" {
		b.Fatalf("Check = %v %q, want None: every command parsed, none matched", d.Effect, d.Reason)
	}
	b.SetBytes(int64(len(cmd)))
	b.ReportAllocs()
	for b.Loop() {
		set.Check(c)
	}
}
