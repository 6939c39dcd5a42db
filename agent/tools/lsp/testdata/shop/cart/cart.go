// Package cart is a shopping cart.
package cart

import (
	"example.com/shop/price"
	"example.com/shop/store"
)

// Cart holds the items chosen.
type Cart struct{ Items []store.Item }

// Put adds an item.
func (c *Cart) Put(it store.Item) { c.Items = append(c.Items, it) }

// Total is what the cart costs.
func (c *Cart) Total() int { return price.Total(c.Items) }

// From fills a cart from a store.
func From(s *store.Store, names ...string) *Cart {
	c := &Cart{}
	for _, n := range names {
		if it, ok := s.Get(n); ok {
			c.Put(it)
		}
	}
	return c
}
