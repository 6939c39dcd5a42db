// Package cmdline parses the command lines of zut ext's subcommands
// (host/extcmd, and zut ext init and zut ext test beside it), whose flags
// may follow their operands: "zut ext test ./hello --json".
package cmdline

import "flag"

// Parse parses args with fs, allowing flags after the operands, and
// returns the operands in order. "--" ends the flags: every word after it
// is an operand (so does a flag's value "--", as in --only --). An error is fs.Parse's (flag.ErrHelp for -h), returned
// at the first flag fs refuses.
func Parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var operands []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		// fs.Parse consumes the "--" that ends its flags: the word before
		// the rest tells.
		if n := len(args) - len(rest); n > 0 && args[n-1] == "--" {
			return append(operands, rest...), nil
		}
		if len(rest) == 0 {
			return operands, nil
		}
		operands = append(operands, rest[0])
		args = rest[1:]
	}
}
