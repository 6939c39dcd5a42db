package main

import (
	"fmt"

	"example.com/shop/cart"
	"example.com/shop/report"
	"example.com/shop/store"
)

func main() {
	var s store.Store
	s.Add(store.NewItem("tea", 300))
	s.Add(store.Item{Name: "cake", Cents: 450})
	fmt.Println(report.Of(cart.From(&s, "tea", "cake")))
}
