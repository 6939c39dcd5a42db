// Package store keeps the items for sale.
package store

// Item is one thing for sale.
type Item struct {
	Name  string
	Cents int
}

// NewItem returns an Item.
func NewItem(name string, cents int) Item { return Item{Name: name, Cents: cents} }

// Store holds items by name.
type Store struct{ items map[string]Item }

// Add puts it in the store.
func (s *Store) Add(it Item) {
	if s.items == nil {
		s.items = map[string]Item{}
	}
	s.items[it.Name] = it
}

// Get returns the item called name.
func (s *Store) Get(name string) (Item, bool) {
	it, ok := s.items[name]
	return it, ok
}
