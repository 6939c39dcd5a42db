// Package highlight colours source code for the terminal: a small
// tokenizer per language (keywords, strings, comments, numbers, types and
// functions) that works line by line with a state carried between lines,
// so a streaming code block is coloured as it arrives. Its API is Lookup,
// Language.Line, Highlight and LanguageFor.
package highlight
