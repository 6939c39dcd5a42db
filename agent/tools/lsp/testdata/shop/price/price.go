// Package price sums the prices of items.
package price

import "example.com/shop/store"

// Total is the sum of the items' prices.
func Total(items []store.Item) int {
	n := 0
	for _, it := range items {
		n += it.Cents
	}
	return n
}

// Cheapest returns the cheapest of items.
func Cheapest(items []store.Item) (store.Item, bool) {
	var best store.Item
	for i, it := range items {
		if i == 0 || it.Cents < best.Cents {
			best = it
		}
	}
	return best, len(items) > 0
}
