package vaultindex

import (
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/snowballstem"
	"github.com/blevesearch/snowballstem/english"
	"github.com/blevesearch/snowballstem/russian"
)

// A query word also matches the words of the vault that share its stem
// ("headings" finds "heading", "formats" finds "format"), as a person
// asking in a sentence does not pick the form a note uses. The index keeps
// words as written (phrases, prefixes and snippets need them); stems are
// worked out at query time, for the few vocabulary terms that begin as the
// query word's stem does, so the index costs nothing more to build or keep.
// The stemmers are the Snowball project's (through bleve's generated Go
// code): English for Latin script, the language of most vaults and of
// technical words in others, Russian for Cyrillic. A stemmer of the wrong
// language on a word mostly leaves it as it is, so a French note is still
// found by its exact words.

// stemWeight is how much a vocabulary term sharing the query word's stem
// counts, of an exact match: nearly as much, as it is the same word.
const stemWeight = 0.9

// minStem is the shortest word that is stemmed: shorter ones conflate
// unrelated words ("as", "is").
const minStem = 3

// stem returns w's stem, and false when w is not stemmed (too short, or a
// script without a stemmer here).
func stem(w string) (string, bool) {
	if utf8.RuneCountInString(w) < minStem {
		return "", false
	}
	r, _ := utf8.DecodeRuneInString(w)
	var fn func(*snowballstem.Env) bool
	switch {
	case r < utf8.RuneSelf || unicode.Is(unicode.Latin, r):
		fn = english.Stem
	case unicode.Is(unicode.Cyrillic, r):
		fn = russian.Stem
	default:
		return "", false
	}
	env := snowballstem.NewEnv(w)
	fn(env)
	return env.Current(), true
}

// stemPrefix is what every word with stem s begins with, as far as the
// vocabulary scan needs it: the stem less its last rune, since a stemmer
// may rewrite the end ("happy" and "happiness" stem to "happi").
func stemPrefix(s string) string {
	_, size := utf8.DecodeLastRuneInString(s)
	if utf8.RuneCountInString(s) <= minStem {
		return s
	}
	return s[:len(s)-size]
}
