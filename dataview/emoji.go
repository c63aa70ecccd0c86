package dataview

import "unicode/utf8"

// emoji matches one emoji as the emoji-regex package does for the cases
// that occur in field names and identifiers: a pictographic character
// (or a keycap, or a flag of two regional indicators), with its
// variation selector, skin tone and zero-width-joined sequels. Go's
// regexp has no Emoji property, so the ranges are written out.
var emoji = &parser{fn: func(in string, i int) reply {
	j := emojiEnd(in, i)
	if j == i {
		return failure(i, "emoji")
	}
	return success(j, in[i:j])
}}

func isPictographic(r rune) bool {
	switch {
	case r >= 0x1F000 && r <= 0x1FAFF, // symbols, pictographs, emoticons, transport, supplemental
		r >= 0x2600 && r <= 0x27BF, // miscellaneous symbols, dingbats
		r >= 0x2300 && r <= 0x23FF, // technical (⌚ ⏳ ⌛)
		r >= 0x2B00 && r <= 0x2BFF, // arrows (⬛ ⭐)
		r >= 0x2190 && r <= 0x21FF,
		r >= 0x25A0 && r <= 0x25FF,
		r == 0x00A9, r == 0x00AE, r == 0x203C, r == 0x2049, r == 0x2122, r == 0x2139,
		r == 0x3030, r == 0x303D, r == 0x3297, r == 0x3299, r == 0x24C2, r == 0x2934, r == 0x2935:
		return true
	}
	return false
}

func emojiEnd(in string, i int) int {
	r, n := utf8.DecodeRuneInString(in[i:])
	if n == 0 {
		return i
	}
	j := i + n
	switch {
	case r >= 0x1F1E6 && r <= 0x1F1FF: // a flag: two regional indicators
		r2, n2 := utf8.DecodeRuneInString(in[j:])
		if r2 >= 0x1F1E6 && r2 <= 0x1F1FF {
			return j + n2
		}
		return i
	case r == '#' || r == '*' || (r >= '0' && r <= '9'): // keycaps
		k := j
		if r2, n2 := utf8.DecodeRuneInString(in[k:]); r2 == 0xFE0F {
			k += n2
		}
		if r2, n2 := utf8.DecodeRuneInString(in[k:]); r2 == 0x20E3 {
			return k + n2
		}
		return i
	case !isPictographic(r):
		return i
	}
	for {
		r2, n2 := utf8.DecodeRuneInString(in[j:])
		switch {
		case r2 == 0xFE0F || (r2 >= 0x1F3FB && r2 <= 0x1F3FF) || (r2 >= 0xE0020 && r2 <= 0xE007F):
			j += n2
			continue
		case r2 == 0x200D:
			r3, n3 := utf8.DecodeRuneInString(in[j+n2:])
			if isPictographic(r3) {
				j += n2 + n3
				continue
			}
		}
		return j
	}
}
