package shell

import (
	"flag"
	"fmt"
	"strings"
	"testing"

	"github.com/zut-go/zut/agent/internal/golden"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// parses are the lines of testdata/commands.golden: each with the
// commands it runs.
var parses = []string{
	"ls",
	"  ls  -la   /tmp  ",
	"echo hi; rm -rf x",
	"a && b || c & d",
	"a | b |& c",
	"a\nb\n\nc",
	"! a",
	"time -p a",
	`'a b' "c d" e\ f`,
	`"a$HOME" 'b$HOME' $'c\td' $"e"`,
	`$'\x72\x6d' $'\u00e9' $'\101' $'\cA' $'\q'`,
	`"a\"b" "a\b" "\$x" "\` + "`" + `"`,
	"r\\\nm x",
	"echo a#b # comment",
	"X=1 Y=$(a) cmd",
	"X=1",
	"a[1]=x b+=y cmd",
	"arr=(a $(b) c) cmd",
	"local arr=(a b)",
	"/bin/rm -f x",
	"echo $(a $(b)) `c` <(d) >(e)",
	"echo \"$(a \"b\")\"",
	"echo ${x:-$(a)} ${y#*/} ${#z} ${arr[@]}",
	"echo $((1 + $(a))) $[2]",
	"((i++)); (( j = i * 2 ))",
	"((a); (b))",
	"$((a); b)",
	"(a; b) > out",
	"{ a; b; } 2>&1 >/dev/null",
	"if a; then b; elif c; then d; else e; fi",
	"while a; do b; done; until c; do d; done",
	"for x in a b $(c); do d $x; done",
	"for x; do a; done",
	"for ((i = 0; i < 3; i++)); do a; done",
	"for x in a b\ndo\n  c\ndone",
	"select x in a b; do c; done",
	"case $x in a) b;; c|d) e;& (f) g;;& *) ;; esac",
	"case x in\n  a)\n    b\n    ;;\nesac",
	"f() { a; }; function g { b; }; function h() ( c )",
	"[[ -n $x && $(a) =~ ^(b|c)$ ]] && d",
	"coproc a",
	"a > f; b >> f; c >| f; d < f; e <> f; g &> f; h &>> f; i 2>&1; j >&2; k 3<&0; l >&-",
	"a >/dev/null 2>/dev/null &>/dev/null",
	"{fd}>f a",
	"a 2> >(b)",
	"cat <<EOF\nx $(a) `b`\nEOF\nc",
	"cat <<'EOF'\nx $(a)\nEOF",
	"cat <<-\"EOF\"\n\tx\n\tEOF\nd",
	"cat <<A <<B\na\nA\nb\nB",
	"a <<< \"$(b)\"",
	"sh <<EOF\nrm x\nEOF",
	"bash -c 'a; b' && sh -ec \"c\" && zsh -c 'd \"$1\"' _ e",
	"sh -c",
	"sh script.sh",
	"sh < script.sh",
	"echo a | bash",
	"bash -c \"$X\"",
	"eval 'a; b' c",
	"eval \"$x\"",
	"trap 'a' EXIT; trap - INT; trap -p",
	"source f; . g",
	"alias a=b; alias",
	"env -i A=1 B=2 a x; env; env -u X -C /tmp b",
	"env -S 'a b'",
	"command -v a; command a; builtin b; exec c; exec > log",
	"nice -n 5 a; nice -5 b; nohup c; timeout -k 1 5s d; stdbuf -oL e; setsid -f f; ionice -c 3 g; chroot /x h",
	"sudo -u root -E A=1 a; sudo -l; sudo -i; doas -u x b",
	"xargs -0 -n1 a; xargs -I{} b {}; xargs; find . | xargs -P4 c",
	"find . -name '*.go' -exec a {} \\; -execdir b {} +",
	"busybox a x; watch -n1 'b; c'; watch -x d",
	"nohup nice timeout 5 env sudo a",
	"timeout --bogus 5 a",
	"$X a; ${Y} b; \"$Z\" c; $(d) e; `f` g",
	"a* x; [ -f x ]; {a,b} c; ~/bin/d",
	"echo (",
	"echo \"x",
	"echo 'x",
	"echo $(a",
	"echo ${a",
	"echo `a",
	"if a; then b",
	"a | | b",
	"a &&",
	"fi",
	";;",
	"a > ",
	"case x in a) b",
	"\"a\"\"b\"c",
	"a\\",
}

func TestCommandsGolden(t *testing.T) {
	var b strings.Builder
	for _, src := range parses {
		fmt.Fprintf(&b, "== %q\n", src)
		cmds, err := Commands(src)
		for _, c := range cmds {
			fmt.Fprintf(&b, "%s", c)
			if len(c.Via) > 0 {
				fmt.Fprintf(&b, "  via %s", strings.Join(c.Via, ", "))
			}
			if len(c.Redirects) > 0 {
				fmt.Fprintf(&b, "  redirects %q", c.Redirects)
			}
			if c.Writes {
				b.WriteString("  writes")
			}
			if c.Unknown != "" {
				fmt.Fprintf(&b, "\n  unknown: %s", c.Unknown)
			}
			b.WriteByte('\n')
		}
		if err != nil {
			fmt.Fprintf(&b, "error: %v\n", err)
		}
	}
	golden.Check(t, "commands.golden", b.String(), *update)
}

// TestCommandsFields checks the fields of a few commands one by one.
func TestCommandsFields(t *testing.T) {
	tests := []struct {
		src  string
		want []Command
	}{
		{"/bin/rm -rf 'a b'", []Command{{Name: "/bin/rm", Args: []string{"-rf", "a b"}}}},
		{"X=1 a >f", []Command{{Name: "a", Assign: []string{"X=1"}, Redirects: []string{">f"}, Writes: true}}},
		{"sudo xargs a", []Command{
			{Name: "sudo", Args: []string{"xargs", "a"}},
			{Name: "xargs", Args: []string{"a"}, Via: []string{"sudo"}},
			{Name: "a", Via: []string{"sudo", "xargs"}, More: true},
		}},
		{"env A=1 b", []Command{{Name: "env", Args: []string{"A=1", "b"}}, {Name: "b", Assign: []string{"A=1"}, Via: []string{"env"}}}},
	}
	for _, tc := range tests {
		got, err := Commands(tc.src)
		if err != nil || fmt.Sprintf("%#v", got) != fmt.Sprintf("%#v", tc.want) {
			t.Errorf("Commands(%q) = %#v, %v, want %#v", tc.src, got, err, tc.want)
		}
	}
}

func TestBase(t *testing.T) {
	for in, want := range map[string]string{"rm": "rm", "/bin/rm": "rm", "./x/y": "y", "/": "/", "a/": "a/", "": ""} {
		if got := (Command{Name: in}).Base(); got != want {
			t.Errorf("Command{Name: %q}.Base() = %q, want %q", in, got, want)
		}
	}
}

// TestCommandsBounds feeds lines past the limits: each is unanalysable,
// quickly.
func TestCommandsBounds(t *testing.T) {
	tests := []struct {
		name, src string
	}{
		{"too long", strings.Repeat("a", MaxSource+1)},
		{"deep subshells", strings.Repeat("( ", 10000) + "a" + strings.Repeat(" )", 10000)},
		{"deep substitutions", strings.Repeat("$(", 10000) + "a" + strings.Repeat(")", 10000)},
		{"deep parameters", strings.Repeat("${x:-", 10000) + strings.Repeat("}", 10000)},
		{"deep eval", strings.Repeat("eval ", 20) + "rm x"},
		{"deep sh -c", nested(12)},
		{"many commands", strings.Repeat("a;", maxCommands+10)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cmds, err := Commands(tc.src)
			unknown := err != nil
			for _, c := range cmds {
				unknown = unknown || c.Unknown != ""
			}
			if !unknown {
				t.Errorf("Commands(%.40q...) = %d commands, none unanalysable, error %v", tc.src, len(cmds), err)
			}
		})
	}
}

// nested is n levels of sh -c around rm, quoted in turn with ' and ".
func nested(n int) string {
	s := "rm x"
	for i := 0; i < n; i++ {
		if i%2 == 0 {
			s = "sh -c '" + s + "'"
		} else {
			s = `sh -c "` + s + `"`
		}
	}
	return s
}
