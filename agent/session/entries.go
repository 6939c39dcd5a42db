package session

// entryList stores entries in fixed-size chunks so that loading a large
// file never copies what it already decoded (a growing slice of big
// structs would, repeatedly) and pointers to entries stay valid.
type entryList struct {
	chunks [][]Entry
	n      int
}

const chunkSize = 1024

// at returns entry i; 0 <= i < len().
func (l *entryList) at(i int32) *Entry {
	return &l.chunks[i/chunkSize][i%chunkSize]
}

func (l *entryList) len() int { return l.n }

// add appends a zero entry and returns it. The first chunk grows like a
// slice, so small sessions stay small; later chunks are allocated whole.
func (l *entryList) add() *Entry {
	c := len(l.chunks) - 1
	if c < 0 || len(l.chunks[c]) == chunkSize {
		size := chunkSize
		if c < 0 {
			size = 8
		}
		l.chunks = append(l.chunks, make([]Entry, 0, size))
		c++
	}
	l.chunks[c] = append(l.chunks[c], Entry{})
	l.n++
	return &l.chunks[c][len(l.chunks[c])-1]
}

// dropLast removes the entry add returned last.
func (l *entryList) dropLast() {
	c := len(l.chunks) - 1
	l.chunks[c][len(l.chunks[c])-1] = Entry{}
	l.chunks[c] = l.chunks[c][:len(l.chunks[c])-1]
	l.n--
}
