// Package report prints carts.
package report

import (
	"fmt"

	"example.com/shop/cart"
	"example.com/shop/price"
	"example.com/shop/store"
)

// Line prints one item.
func Line(it store.Item) string { return fmt.Sprintf("%s: %d", it.Name, it.Cents) }

// Of prints a cart.
func Of(c *cart.Cart) string {
	s := ""
	for _, it := range c.Items {
		s += Line(it) + "\n"
	}
	if it, ok := price.Cheapest(c.Items); ok {
		s += "cheapest: " + Line(it) + "\n"
	}
	return s + fmt.Sprintf("total: %d", c.Total())
}
