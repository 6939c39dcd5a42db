// Package cmdline parses the command lines of zut ext's subcommands
// (host/extcmd, and zut ext init and zut ext test beside it), whose flags
// may follow their operands: "zut ext test ./hello --json".
package cmdline

import "flag"

// Parse parses args with fs, allowing flags after the operands, and
// returns the operands in order. "--" ends the flags: every word after it
// is an operand. An error is fs.Parse's (flag.ErrHelp for -h), returned
// at the first flag fs refuses.
func Parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var operands []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return operands, nil
		}
		if args[0] == "--" {
			return append(operands, args[1:]...), nil
		}
		operands = append(operands, args[0])
		args = args[1:]
	}
}
