// Package ansi is the bottom layer of zut's renderer: styled text for
// terminals. It owns colours and colour profiles, styles and styled spans
// and how they are written as escape sequences, themes (roles, the built-in
// dark and light themes, theme files), display widths of text (grapheme
// clusters, East Asian width, emoji, escape sequences), sanitising text
// from outside, wrapping and cutting lines and spans, and boxes. It
// imports nothing of zut but the width tables.
package ansi
