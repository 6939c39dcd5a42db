package greet

// Twice greets two people; the names may hold any text, like "héllo 😀".
func Twice(a, b string) string {
	s := "😀 " + Greet(a)
	return s + " / " + Greet(b)
}
