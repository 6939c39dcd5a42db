package app

import (
	"context"
	"encoding/json"

	"github.com/zut-go/zut/agent/tools"
	"github.com/zut-go/zut/provider"
)

// lazyTool is a built-in tool offered before it is made: what the model
// is told is constant data its package exports (ToolName ...),
// and the tool is made by the first call of anything else (Run, Preview
// ...). A turn that does not call the tool runs no code of its package,
// and so does not bring that code into memory.
//
// The tools differ in the optional interfaces they implement, and the
// agent branches on them (a tool without Validate has its arguments
// checked against its schema, one without Mutates counts as read-only):
// lazyTool implements Preview; lazyMutator adds Mutates, lazyChecked
// Mutates, Describe and Validate, lazyConcurrent Describe, Validate and
// Concurrent; lazyPlain, for a tool without Preview, has none of them.
// TestLazyTools holds each to the tool it stands for.
type lazyTool struct {
	name, description, schema string
	// make returns the tool; it is called for every call, and keeps what
	// it makes itself.
	make func() tools.Tool
}

func (l *lazyTool) Definition() provider.Tool {
	return provider.Tool{Name: l.name, Description: l.description, Schema: json.RawMessage(l.schema)}
}

func (l *lazyTool) Run(ctx context.Context, args json.RawMessage, progress func(string)) tools.Result {
	return l.make().Run(ctx, args, progress)
}

func (l *lazyTool) Preview(args json.RawMessage) string {
	if p, ok := l.make().(tools.Previewer); ok {
		return p.Preview(args)
	}
	return ""
}

// lazyMutator is a lazyTool whose tool says which calls change things.
type lazyMutator struct{ *lazyTool }

func (l lazyMutator) Mutates(args json.RawMessage) bool { return mutates(l.make(), args) }

// lazyChecked is a lazyTool whose tool also validates and describes its
// calls (python).
type lazyChecked struct{ *lazyTool }

func (l lazyChecked) Mutates(args json.RawMessage) bool { return mutates(l.make(), args) }

func (l lazyChecked) Describe(args json.RawMessage) string {
	if d, ok := l.make().(tools.Describer); ok {
		return d.Describe(args)
	}
	return ""
}

func (l lazyChecked) Validate(args json.RawMessage) error {
	if v, ok := l.make().(tools.Validator); ok {
		return v.Validate(args)
	}
	return nil
}

func mutates(t tools.Tool, args json.RawMessage) bool {
	m, ok := t.(tools.Mutator)
	return !ok || m.Mutates(args)
}

// lazyPlain is a lazyTool for a tool with none of the optional
// interfaces (subagent_status, subagent_stop, subagent_resume).
type lazyPlain struct{ l *lazyTool }

func (p lazyPlain) Definition() provider.Tool { return p.l.Definition() }

func (p lazyPlain) Run(ctx context.Context, args json.RawMessage, progress func(string)) tools.Result {
	return p.l.Run(ctx, args, progress)
}

// lazyConcurrent is a lazyTool whose tool describes and validates its
// calls and may run beside others (subagent_spawn).
type lazyConcurrent struct{ *lazyTool }

func (l lazyConcurrent) Describe(args json.RawMessage) string {
	if d, ok := l.make().(tools.Describer); ok {
		return d.Describe(args)
	}
	return ""
}

func (l lazyConcurrent) Validate(args json.RawMessage) error {
	if v, ok := l.make().(tools.Validator); ok {
		return v.Validate(args)
	}
	return nil
}

func (l lazyConcurrent) Concurrent(args json.RawMessage) bool {
	c, ok := l.make().(tools.Concurrent)
	return ok && c.Concurrent(args)
}
