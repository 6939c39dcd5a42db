package permissions

import (
	"slices"
	"sync"
)

// Set is the rules of one run. Decide is safe for concurrent use with Add
// and Remove (a confirmation adds a rule while the agent reads them).
type Set struct {
	mu    sync.Mutex
	rules []Rule
	// ignored are project allow rules left out because the project is
	// not trusted, for /permissions.
	ignored []Rule
}

// NewSet returns a Set holding rules.
func NewSet(rules ...Rule) *Set {
	return &Set{rules: append([]Rule(nil), rules...)}
}

// Decision is what the rules decide about a call.
type Decision struct {
	Effect Effect
	// Rule is the rule that decided (the zero Rule for None).
	Rule Rule
	// Reason says more about a bash command, for the refusal and the
	// user: which of its commands a deny or ask rule matched ("it runs
	// `rm -rf x` through sh -c"), or why zut cannot tell what it runs
	// ("zut cannot tell what `$(echo rm)` runs"), which makes every deny
	// and ask rule for it match and no allow rule. "" otherwise.
	Reason string
}

// Decide returns the effect of the rules on c, and the rule that decided:
// Deny when any deny rule matches, else Ask when an ask rule does, else
// Allow when an allow rule does, else None. Check says why, too.
func (s *Set) Decide(c Call) (Effect, Rule) {
	d := s.Check(c)
	return d.Effect, d.Rule
}

// Check decides c as Decide does. For a command (bash), a deny or ask
// rule matches when it matches any command of the line (CommandLine);
// allow rules allow only when every command is matched by one of them.
// A command zut cannot analyse matches every deny and ask rule of its
// tool and no allow rule with a pattern.
func (s *Set) Check(c Call) Decision {
	if s == nil {
		return Decision{}
	}
	kind, subj := Subject(c)
	var line *CommandLine
	if kind == KindCommand {
		line = ParseCommandLine(subj)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range []Effect{Deny, Ask} {
		for _, r := range s.rules {
			if r.Effect != e {
				continue
			}
			if line == nil {
				if r.matches(c.Tool, kind, subj) {
					return Decision{Effect: e, Rule: r}
				}
				continue
			}
			if !globMatch(r.Tool, c.Tool, false) {
				continue
			}
			if r.Pattern == "" {
				return Decision{Effect: e, Rule: r}
			}
			if ok, why := line.Matches(r.Pattern); ok {
				return Decision{Effect: e, Rule: r, Reason: why}
			}
		}
	}
	var allows []Rule
	var patterns []string
	for _, r := range s.rules {
		if r.Effect != Allow {
			continue
		}
		if line == nil {
			if r.matches(c.Tool, kind, subj) {
				return Decision{Effect: Allow, Rule: r}
			}
			continue
		}
		if !globMatch(r.Tool, c.Tool, false) {
			continue
		}
		if r.Pattern == "" {
			return Decision{Effect: Allow, Rule: r}
		}
		allows = append(allows, r)
		patterns = append(patterns, r.Pattern)
	}
	if line == nil {
		return Decision{}
	}
	if k := line.Allows(patterns); k >= 0 {
		return Decision{Effect: Allow, Rule: allows[k]}
	}
	return Decision{Reason: line.Unknown}
}

// Add adds r unless the same rule is there already.
func (s *Set) Add(r Rule) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, x := range s.rules {
		if x.Same(r) {
			return
		}
	}
	s.rules = append(s.rules, r)
}

// Remove drops r and reports whether it was there.
func (s *Set) Remove(r Rule) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, x := range s.rules {
		if x.Same(r) {
			s.rules = slices.Delete(s.rules, i, i+1)
			return true
		}
	}
	return false
}

// Rules returns the rules in force, deny rules first, then ask, then
// allow, each group in the order the rules were added.
func (s *Set) Rules() []Rule {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	out := append([]Rule(nil), s.rules...)
	slices.SortStableFunc(out, func(a, b Rule) int { return int(b.Effect) - int(a.Effect) })
	return out
}

// Ignored returns the project's allow rules that are not in force because
// the project is not trusted.
func (s *Set) Ignored() []Rule {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Rule(nil), s.ignored...)
}

// Admit puts the ignored project allow rules in force: the user has just
// trusted the project.
func (s *Set) Admit() {
	s.mu.Lock()
	ignored := s.ignored
	s.ignored = nil
	s.mu.Unlock()
	for _, r := range ignored {
		s.Add(r)
	}
}
