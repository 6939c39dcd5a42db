// Command widthgen writes the cell-width and grapheme-break tables of
// package uniwidth from the Unicode Character Database files that Debian's
// unicode-data package installs under /usr/share/unicode.
//
// Usage:
//
//	widthgen [-data /usr/share/unicode] [-o tables_width.go]
//
// It is run by go generate in tui/internal/uniwidth; the output is
// committed so that builds never need the data files.
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"go/format"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

const maxRune = 0x10FFFF

// Grapheme properties, in the order of the prop constants of package
// uniwidth. Extended_Pictographic is folded in as one more value because
// it never overlaps the Grapheme_Cluster_Break values other than Other.
var propNames = []string{
	"Other", "CR", "LF", "Control", "Extend", "ZWJ", "Regional_Indicator",
	"Prepend", "SpacingMark", "L", "V", "T", "LV", "LVT", "Extended_Pictographic",
}

func main() {
	data := flag.String("data", "/usr/share/unicode", "directory of the Unicode Character Database")
	out := flag.String("o", "tables_width.go", "output file")
	flag.Parse()
	if err := run(*data, *out); err != nil {
		fmt.Fprintln(os.Stderr, "widthgen:", err)
		os.Exit(1)
	}
}

func run(dir, out string) error {
	t, err := derive(dir)
	if err != nil {
		return err
	}
	src, err := t.source()
	if err != nil {
		return err
	}
	return os.WriteFile(out, src, 0o644)
}

// tables holds one width and one grapheme property per code point.
type tables struct {
	version string
	width   []uint8
	prop    []uint8
}

// derive reads the data files and applies the terminal width rules:
// East Asian Wide and Fullwidth are 2, emoji presentation is 2, combining
// and other invisible characters are 0, everything else is 1.
func derive(dir string) (*tables, error) {
	t := &tables{width: make([]uint8, maxRune+1), prop: make([]uint8, maxRune+1)}
	for i := range t.width {
		t.width[i] = 1
	}
	version, err := readVersion(filepath.Join(dir, "ReadMe.txt"))
	if err != nil {
		return nil, err
	}
	t.version = version

	eaw := filepath.Join(dir, "extracted", "DerivedEastAsianWidth.txt")
	if _, err := os.Stat(eaw); err != nil {
		eaw = filepath.Join(dir, "EastAsianWidth.txt")
	}
	err = parse(eaw, true, func(lo, hi rune, v string) {
		if v == "W" || v == "F" || v == "Wide" || v == "Fullwidth" {
			fill(t.width, lo, hi, 2)
		}
	})
	if err != nil {
		return nil, err
	}
	err = parse(filepath.Join(dir, "emoji", "emoji-data.txt"), false, func(lo, hi rune, v string) {
		switch v {
		case "Emoji_Presentation":
			fill(t.width, lo, hi, 2)
		case "Extended_Pictographic":
			fill(t.prop, lo, hi, uint8(len(propNames)-1))
		}
	})
	if err != nil {
		return nil, err
	}
	err = parse(filepath.Join(dir, "extracted", "DerivedGeneralCategory.txt"), false, func(lo, hi rune, v string) {
		switch v {
		case "Mn", "Me", "Cf", "Cc", "Zl", "Zp":
			fill(t.width, lo, hi, 0)
		}
	})
	if err != nil {
		return nil, err
	}
	// Visible format characters: the soft hyphen and the prepended
	// concatenation marks are drawn by terminals.
	t.width[0xAD] = 1
	err = parse(filepath.Join(dir, "PropList.txt"), false, func(lo, hi rune, v string) {
		if v == "Prepended_Concatenation_Mark" {
			fill(t.width, lo, hi, 1)
		}
	})
	if err != nil {
		return nil, err
	}
	var overlap error
	err = parse(filepath.Join(dir, "auxiliary", "GraphemeBreakProperty.txt"), false, func(lo, hi rune, v string) {
		for i, name := range propNames {
			if name != v {
				continue
			}
			for r := lo; r <= hi; r++ {
				if t.prop[r] != 0 && overlap == nil {
					overlap = fmt.Errorf("U+%04X: %s overlaps Extended_Pictographic", r, v)
				}
			}
			fill(t.prop, lo, hi, uint8(i))
		}
		// Hangul medial vowels and final consonants join the leading
		// consonant in one cell pair.
		if v == "V" || v == "T" {
			fill(t.width, lo, hi, 0)
		}
	})
	if err != nil {
		return nil, err
	}
	if overlap != nil {
		return nil, fmt.Errorf("derive grapheme properties: %w", overlap)
	}
	return t, nil
}

func fill(a []uint8, lo, hi rune, v uint8) {
	for r := lo; r <= hi; r++ {
		a[r] = v
	}
}

func readVersion(path string) (string, error) {
	b, err := os.ReadFile(path) //zut:open test support: the test's own files
	if err != nil {
		return "", fmt.Errorf("read Unicode version: %w (install the unicode-data package)", err)
	}
	const marker = "for Version "
	i := bytes.Index(b, []byte(marker))
	if i < 0 {
		return "", fmt.Errorf("read Unicode version: no %q in %s", marker, path)
	}
	rest := b[i+len(marker):]
	j := bytes.IndexAny(rest, " \n")
	if j < 0 {
		return "", fmt.Errorf("read Unicode version: malformed %s", path)
	}
	return string(rest[:j]), nil
}

// parse calls f for every "lo..hi ; value" line of a UCD file, and, when
// missing is set, first for every "@missing" default so that explicit
// lines override the defaults.
func parse(path string, missing bool, f func(lo, hi rune, v string)) error {
	file, err := os.Open(path) //zut:open test support: the test's own files
	if err != nil {
		return fmt.Errorf("parse %s: %w (install the unicode-data package)", path, err)
	}
	defer file.Close()
	var lines []string
	sc := bufio.NewScanner(file)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("parse %s: %w", path, err)
	}
	if missing {
		for _, line := range lines {
			if rest, ok := strings.CutPrefix(line, "# @missing: "); ok {
				if err := parseLine(rest, f); err != nil {
					return fmt.Errorf("parse %s: %w", path, err)
				}
			}
		}
	}
	for n, line := range lines {
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		if strings.TrimSpace(line) == "" {
			continue
		}
		if err := parseLine(line, f); err != nil {
			return fmt.Errorf("parse %s:%d: %w", path, n+1, err)
		}
	}
	return nil
}

func parseLine(line string, f func(lo, hi rune, v string)) error {
	if i := strings.IndexByte(line, '#'); i >= 0 {
		line = line[:i]
	}
	fields := strings.Split(line, ";")
	if len(fields) < 2 {
		return fmt.Errorf("malformed line %q", line)
	}
	span := strings.TrimSpace(fields[0])
	loS, hiS, ok := strings.Cut(span, "..")
	if !ok {
		hiS = loS
	}
	lo, err := strconv.ParseUint(loS, 16, 32)
	if err != nil {
		return fmt.Errorf("malformed code point %q", loS)
	}
	hi, err := strconv.ParseUint(hiS, 16, 32)
	if err != nil || hi < lo || hi > maxRune {
		return fmt.Errorf("malformed range %q", span)
	}
	f(rune(lo), rune(hi), strings.TrimSpace(fields[1]))
	return nil
}

// source renders the tables as Go source.
func (t *tables) source() ([]byte, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "// Code generated by widthgen from the Unicode %s data files; DO NOT EDIT.\n\n", t.version)
	fmt.Fprintf(&b, "package uniwidth\n\n")
	fmt.Fprintf(&b, "// UnicodeVersion is the version of the data the tables were generated from.\n")
	fmt.Fprintf(&b, "const UnicodeVersion = %q\n\n", t.version)
	t.writeTrie(&b)
	src, err := format.Source(b.Bytes())
	if err != nil {
		return nil, fmt.Errorf("format generated source: %w", err)
	}
	return src, nil
}

// writeTrie renders the same data as a two-stage lookup: stage1 maps each
// block of 128 code points to a block of stage2, whose bytes hold
// width<<4 | property. Identical blocks are shared.
func (t *tables) writeTrie(b *bytes.Buffer) {
	const block = 128
	var blocks [][]byte
	index := map[string]int{}
	var stage1 []int
	for lo := 0; lo <= maxRune; lo += block {
		var cur []byte
		for r := lo; r < lo+block; r++ {
			cur = append(cur, t.width[r]<<4|t.prop[r])
		}
		k := string(cur)
		i, ok := index[k]
		if !ok {
			i = len(blocks)
			index[k] = i
			blocks = append(blocks, cur)
		}
		stage1 = append(stage1, i)
	}
	fmt.Fprintf(b, "// trieBlock is the number of code points per stage2 block.\n")
	fmt.Fprintf(b, "const trieBlock = %d\n\n", block)
	fmt.Fprintf(b, "// stage1 maps code point / trieBlock to a block of stage2.\n")
	fmt.Fprintf(b, "var stage1 = [...]uint16{")
	for i, v := range stage1 {
		if i%16 == 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(b, "%d,", v)
	}
	fmt.Fprintf(b, "\n}\n\n")
	fmt.Fprintf(b, "// stage2 holds width<<4 | property for each code point of each block.\n")
	fmt.Fprintf(b, "var stage2 = [...]uint8{")
	for _, blk := range blocks {
		for i, v := range blk {
			if i%32 == 0 {
				b.WriteString("\n")
			}
			fmt.Fprintf(b, "%#02x,", v)
		}
	}
	fmt.Fprintf(b, "\n}\n")
}
