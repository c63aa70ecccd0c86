package vaultindex

import (
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// maxToken bounds a token's folded length: longer runs (base64 blobs,
// hashes) are not words anyone searches for, and would bloat the index.
const maxToken = 64

// foldBlocks holds, for each block of 256 BMP runes, their folded forms:
// compatibility-decomposed, combining marks dropped, lower-cased ("É" →
// "e", "ﬁ" → "fi", "Ａ" → "a"); "" means the rune folds to its lower
// case. A block is built when one of its runes is first folded: building
// every block at once cost each process 29 ms (the decomposition of
// 48,000 letters) on its first search or prompt look, and a vault's text
// meets few of them.
var (
	foldBlocks [256]atomic.Pointer[[256]string]
	foldMu     sync.Mutex
)

// extraFolds are letters without a decomposition that readers still expect
// to match their base letters.
var extraFolds = map[rune]string{
	'ß': "ss", 'ẞ': "ss", 'æ': "ae", 'Æ': "ae", 'œ': "oe", 'Œ': "oe", 'ø': "o", 'Ø': "o",
	'ł': "l", 'Ł': "l", 'đ': "d", 'Đ': "d", 'ı': "i", 'þ': "th", 'Þ': "th", 'ð': "d", 'Ð': "d",
}

// foldOf is the folded form of the BMP rune r, "" for its lower case.
func foldOf(r rune) string {
	if b := foldBlocks[r>>8].Load(); b != nil {
		return b[r&0xff]
	}
	foldMu.Lock()
	defer foldMu.Unlock()
	b := foldBlocks[r>>8].Load()
	if b == nil {
		b = buildFolds(r &^ 0xff)
		foldBlocks[r>>8].Store(b)
	}
	return b[r&0xff]
}

// buildFolds folds the 256 runes from first.
func buildFolds(first rune) *[256]string {
	var folds [256]string
	for r := max(first, 0x80); r < first+256; r++ {
		if !wordRune(r) {
			continue
		}
		if s, ok := extraFolds[r]; ok {
			folds[r-first] = s
			continue
		}
		d := norm.NFKD.String(string(r))
		var b strings.Builder
		for _, c := range d {
			if unicode.Is(unicode.Mn, c) {
				continue
			}
			b.WriteRune(unicode.ToLower(c))
		}
		if s := b.String(); s != string(unicode.ToLower(r)) {
			folds[r-first] = s
		}
	}
	return &folds
}

func wordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
	}
	// Marks, spacing ones too: the vowel signs of Devanagari, Bengali,
	// Tamil and the other Indic scripts (ि in किताब) are Mc, and a word
	// was cut at each of them.
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Mc, r)
}

// cjk reports whether r belongs to a script written without spaces between
// words, where the index uses character bigrams: Han, Hiragana, Katakana,
// and the marks that stand inside their words although Unicode puts them
// in no script of theirs (cjkMark); and Thai, Lao, Khmer and Myanmar,
// whose words also run together (บันทึกประจำวัน is "diary note" in one
// run: indexed as one word, บันทึก was found by grep and not by search).
// Their vowel signs and tone marks are in their own script, so a run keeps
// them; their punctuation (๚, ។, ။) ends a run as spaces do.
func cjk(r rune) bool {
	switch {
	case r < minUnspaced: // Latin, Greek, Cyrillic, Arabic, Indic…
		return false
	case r <= 0x0EFF: // Thai, Lao
		return wordRune(r) && (unicode.Is(unicode.Thai, r) || unicode.Is(unicode.Lao, r))
	case 0x1000 <= r && r <= 0x109F, 0xA9E0 <= r && r <= 0xA9FF, 0xAA60 <= r && r <= 0xAA7F:
		return wordRune(r) && unicode.Is(unicode.Myanmar, r)
	case 0x1780 <= r && r <= 0x17FF, 0x19E0 <= r && r <= 0x19FF:
		return wordRune(r) && unicode.Is(unicode.Khmer, r)
	case r < 0x2E80: // Georgian, Hangul jamo, Latin extended…
		return false
	}
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r) || cjkMark(r)
}

// minUnspaced is the first rune cjk may report: Thai's block. Below it a
// word rune never starts a run of bigrams, which keeps the test off most
// text's path.
const minUnspaced = 0x0E00

// cjkMark reports whether r is a mark of the Common or Inherited script
// that belongs to the Japanese word it stands in: the long-vowel mark
// (ノート), the iteration and closing marks (人々, 〆切), the ideographic
// zero, the combining and half-width voicing marks, and the half-width
// long-vowel mark. Without them a run such as ノート was cut at ー, and no
// search for the word found it (ノート 21 of 125 notes of Obsidian's Help
// vault in Japanese).
func cjkMark(r rune) bool {
	switch r {
	case 0x30FC, 0x3005, 0x3006, 0x3007, 0x303B, 0x3099, 0x309A, 0xFF70, 0xFF9E, 0xFF9F:
		return true
	}
	return false
}

// cjkFold is r as a CJK run is indexed: lower-cased, and a half-width
// katakana or mark as its full-width form (ｶ → カ, ﾞ → the combining
// voicing mark, which cjkRun joins to the kana before it).
func cjkFold(r rune) rune {
	if 0xFF61 <= r && r <= 0xFF9F {
		if s := norm.NFKC.String(string(r)); utf8.RuneCountInString(s) == 1 {
			r, _ = utf8.DecodeRuneInString(s)
		}
	}
	return unicode.ToLower(r)
}

// appendFold appends r's folded form to b.
func appendFold(b []byte, r rune) []byte {
	switch {
	case r < 0x80:
		if 'A' <= r && r <= 'Z' {
			r += 'a' - 'A'
		}
		return append(b, byte(r))
	case r < 0x10000:
		if s := foldOf(r); s != "" {
			return append(b, s...)
		}
	}
	return utf8.AppendRune(b, unicode.ToLower(r))
}

// Fold returns s folded as the index folds words: case and diacritics
// removed, compatibility forms unified. It is how filters compare text.
func Fold(s string) string {
	b := make([]byte, 0, len(s))
	for _, r := range s {
		b = appendFold(b, r)
	}
	return string(b)
}

// token is one token found in a text.
type token struct {
	term       []byte // folded; valid until the next token
	start, end int    // byte offsets in the text
	// cjk marks a token from a CJK run: a bigram, or a single character
	// when the run has only one. Runs also yield their characters as
	// unigrams with uni set, which take no position.
	cjk, uni bool
}

// tokenize calls emit for each token of s, in order. Words are runs of
// letters, digits and marks; CJK runs become overlapping character bigrams
// (and, with unigrams, each character too), since those scripts put no
// spaces between words.
func tokenize(s string, unigrams bool, emit func(t *token)) {
	var t token
	buf := make([]byte, 0, 64)
	i := 0
	for i < len(s) {
		r, size := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(s[i:])
		}
		if !wordRune(r) {
			i += size
			continue
		}
		if r >= minUnspaced && cjk(r) {
			i = cjkRun(s, i, unigrams, &t, emit)
			continue
		}
		start := i
		buf = buf[:0]
		for i < len(s) {
			if c := s[i]; c < utf8.RuneSelf {
				// ASCII, most of most notes: no decoding, no tables.
				switch {
				case 'a' <= c && c <= 'z' || '0' <= c && c <= '9':
					buf = append(buf, c)
				case 'A' <= c && c <= 'Z':
					buf = append(buf, c+'a'-'A')
				default:
					goto done
				}
				i++
				continue
			}
			r, size = utf8.DecodeRuneInString(s[i:])
			if !wordRune(r) || r >= minUnspaced && cjk(r) {
				break
			}
			buf = appendFold(buf, r)
			i += size
		}
	done:
		if len(buf) == 0 || len(buf) > maxToken {
			continue
		}
		t = token{term: buf, start: start, end: i}
		emit(&t)
	}
}

// cjkRun tokenizes the CJK run starting at i and returns where it ends.
func cjkRun(s string, i int, unigrams bool, t *token, emit func(*token)) int {
	type ch struct {
		r          rune
		start, end int
	}
	var run []ch
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if !cjk(r) {
			break
		}
		r = cjkFold(r)
		if (r == 0x3099 || r == 0x309A) && len(run) > 0 {
			// A voicing mark written apart (half-width, or decomposed)
			// joins the kana before it: カ + ゛ is ガ.
			last := &run[len(run)-1]
			if c := norm.NFC.String(string(last.r) + string(r)); utf8.RuneCountInString(c) == 1 {
				last.r, _ = utf8.DecodeRuneInString(c)
			}
			last.end = i + size
			i += size
			continue
		}
		run = append(run, ch{r, i, i + size})
		i += size
	}
	if len(run) == 0 {
		// A lone voicing mark: no character to index.
		return i
	}
	var buf [8]byte
	if len(run) == 1 {
		*t = token{term: utf8.AppendRune(buf[:0], run[0].r), start: run[0].start, end: run[0].end, cjk: true}
		emit(t)
		return i
	}
	for k := 0; k+1 < len(run); k++ {
		b := utf8.AppendRune(buf[:0], run[k].r)
		b = utf8.AppendRune(b, run[k+1].r)
		*t = token{term: b, start: run[k].start, end: run[k+1].end, cjk: true}
		emit(t)
	}
	if unigrams {
		for _, c := range run {
			*t = token{term: utf8.AppendRune(buf[:0], c.r), start: c.start, end: c.end, cjk: true, uni: true}
			emit(t)
		}
	}
	return i
}

// terms returns s's position-taking tokens (no CJK unigrams), folded, in
// order: the words a phrase is matched against.
func terms(s string) []string {
	var out []string
	tokenize(s, false, func(t *token) { out = append(out, string(t.term)) })
	return out
}
