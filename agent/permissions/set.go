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

// Decide returns the effect of the rules on c, and the rule that decided:
// Deny when any deny rule matches, else Ask when an ask rule does, else
// Allow when an allow rule does, else None.
func (s *Set) Decide(c Call) (Effect, Rule) {
	if s == nil {
		return None, Rule{}
	}
	kind, subj := Subject(c)
	s.mu.Lock()
	defer s.mu.Unlock()
	best, bestRule := None, Rule{}
	for _, r := range s.rules {
		if r.Effect > best && r.matches(c.Tool, kind, subj) {
			best, bestRule = r.Effect, r
		}
	}
	return best, bestRule
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
