package provider

import "strings"

// Nearest returns the name of names closest to s when it is close enough
// to be a typo (at most one edit for short names, two from six letters),
// or a name s is a prefix of; "" otherwise.
func Nearest(s string, names []string) string {
	best, bestD := "", 1<<30
	limit := 1
	if len(s) >= 6 {
		limit = 2
	}
	for _, n := range names {
		d := editDistance(strings.ToLower(s), strings.ToLower(n))
		if len(s) >= 3 && strings.HasPrefix(n, s) {
			d = min(d, 1)
		}
		// Ties go to the name of s's length (a swap rather than a
		// dropped letter: --modle is --model, not --mode).
		if d < bestD || d == bestD && absDiff(len(n), len(s)) < absDiff(len(best), len(s)) {
			best, bestD = n, d
		}
	}
	if bestD > limit || bestD == 0 && best == s {
		return ""
	}
	return best
}

// editDistance is the Levenshtein distance of a and b, with a swap of two
// neighbours counting as one edit.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}

func absDiff(a, b int) int {
	if a > b {
		return a - b
	}
	return b - a
}
