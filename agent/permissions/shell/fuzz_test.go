package shell

import (
	"strings"
	"testing"
)

// FuzzParse: Commands never panics, returns within its bounds, and says
// the same of the same line twice; a command that cannot be analysed
// says why, and a line that does not parse says where.
func FuzzParse(f *testing.F) {
	for _, s := range parses {
		f.Add(s)
	}
	f.Add(nested(6))
	f.Add("eval " + strings.Repeat("'eval ", 3) + "rm x" + strings.Repeat("'", 3))
	f.Fuzz(func(t *testing.T, src string) {
		cmds, err := Commands(src)
		again, err2 := Commands(src)
		if len(cmds) != len(again) || (err == nil) != (err2 == nil) {
			t.Fatalf("Commands(%q) differs from one call to the next", src)
		}
		if len(cmds) > maxCommands {
			t.Fatalf("Commands(%q) = %d commands, over %d", src, len(cmds), maxCommands)
		}
		if e, ok := err.(*Error); err != nil && (!ok || e.Pos < 0 || e.Pos > len(src) || e.Msg == "") {
			t.Fatalf("Commands(%q) error = %#v, want an *Error inside the line", src, err)
		}
		for _, c := range cmds {
			if c.Name != "" && c.String() == "" {
				t.Fatalf("Commands(%q): %#v is written as nothing", src, c)
			}
			if c.Unknown != "" && !strings.HasPrefix(c.Unknown, "zut cannot tell what ") {
				t.Fatalf("Commands(%q): %#v: the reason does not say what zut cannot tell", src, c)
			}
		}
	})
}
