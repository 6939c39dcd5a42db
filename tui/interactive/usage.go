package interactive

// restoreUsage sets the footer's context use and cost from the usage the
// session saved with its answers on the current branch, so that a
// resumed conversation shows them before its next request.
func (u *ui) restoreUsage() {
	var cost float64
	ctx := 0
	for _, e := range u.app.Session().Branch() {
		if e.Usage != nil {
			cost += e.Usage.CostUSD
			ctx = e.Usage.Input + e.Usage.CacheRead + e.Usage.CacheWrite
		}
	}
	u.costBase = cost
	u.turn.cost, u.turn.ctxTokens = cost, ctx
}
