// Command hello is an example zut extension with slash commands: /hello
// asks the model for a greeting, /echo shows a note without calling the
// model, and /cwd, registered once the host has said where the project
// is, shows the project directory.
package main

import "github.com/zut-go/zut/ext"

func main() {
	e := ext.New("hello", "1.0.0")
	e.Command("hello", "ask the model for a one-line greeting (/hello [name])", func(args string) ext.Response {
		if args == "" {
			return ext.Prompt("Greet me in one short sentence.")
		}
		return ext.Prompt("Greet " + args + " in one short sentence.")
	})
	e.Command("echo", "show text as a note, without calling the model", func(args string) ext.Response {
		if args == "" {
			return ext.ErrorResponse("/echo needs some text, for example: /echo hello")
		}
		return ext.Display(args)
	})
	// Registrations made in OnHello are announced before ready, so /cwd
	// is there from the start.
	e.OnHello(func(h ext.HostInfo) {
		if h.CWD == "" {
			return
		}
		e.Command("cwd", "show the project directory", func(string) ext.Response {
			return ext.Display("project: " + h.CWD)
		})
	})
	e.Run()
}
