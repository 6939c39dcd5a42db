package permissions

import (
	"testing"

	"github.com/zut-go/zut/agent/permissions/shell"
)

// FuzzCommandLine: a line the parser cannot read, or holding a command it
// cannot analyse, matches every deny pattern and no allow pattern.
func FuzzCommandLine(f *testing.F) {
	for _, v := range verdicts {
		f.Add(v.cmd)
	}
	f.Fuzz(func(t *testing.T, text string) {
		l := ParseCommandLine(text)
		cmds, err := shell.Commands(l.Text)
		unknown := err != nil
		for _, c := range cmds {
			unknown = unknown || c.Unknown != ""
		}
		if unknown != (l.Unknown != "") {
			t.Fatalf("ParseCommandLine(%q).Unknown = %q, but the parser says error %v, commands %+v", text, l.Unknown, err, cmds)
		}
		if !unknown {
			return
		}
		if ok, why := l.Matches("no-such-command-zz *"); !ok || why == "" {
			t.Fatalf("ParseCommandLine(%q).Matches(deny) = %v, %q, want true and why", text, ok, why)
		}
		if k := l.Allows([]string{"*", "* *"}); k >= 0 {
			t.Fatalf("ParseCommandLine(%q).Allows(*) = %d, want -1 for a line zut cannot analyse", text, k)
		}
	})
}
