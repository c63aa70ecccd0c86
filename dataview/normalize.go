package dataview

import (
	"regexp"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// wordRun is a run of [0-9\p{Letter}_-], as Dataview's canonicalisers read.
func wordRun(s string, i int) int {
	j := i
	for j < len(s) {
		r, n := utf8.DecodeRuneInString(s[j:])
		if !(unicode.IsLetter(r) || (r >= '0' && r <= '9') || r == '_' || r == '-') {
			break
		}
		j += n
	}
	return j
}

// jsSpace is JavaScript's \s.
func jsSpace(r rune) bool {
	switch r {
	case ' ', '\t', '\n', '\v', '\f', '\r', 0xA0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF:
		return true
	}
	return r >= 0x2000 && r <= 0x200A
}

// canonicalize walks s as Dataview's canonicalisers do: an emoji kept,
// a word mapped by word, a run of spaces by space, anything else by other.
func canonicalize(s string, word func(string) string, space, other string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		if j := emojiEnd(s, i); j > i {
			b.WriteString(s[i:j])
			i = j
			continue
		}
		if j := wordRun(s, i); j > i {
			b.WriteString(word(s[i:j]))
			i = j
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if jsSpace(r) {
			j := i + n
			for j < len(s) {
				r2, n2 := utf8.DecodeRuneInString(s[j:])
				if !jsSpace(r2) {
					break
				}
				j += n2
			}
			b.WriteString(space)
			i = j
			continue
		}
		b.WriteString(other)
		i += n
	}
	return b.String()
}

// canonicalVarName is a field name as a query can write it:
// "**Project ID**" → "project-id".
func canonicalVarName(name string) string {
	return canonicalize(name, strings.ToLower, "-", "")
}

// normalizeHeaderForLink is a heading as a link names it.
func normalizeHeaderForLink(h string) string {
	s := canonicalize(h, func(w string) string { return w }, " ", " ")
	return strings.Join(strings.FieldsFunc(s, jsSpace), " ")
}

func fileTitle(path string) string {
	if i := strings.LastIndexByte(path, '/'); i >= 0 {
		path = path[i+1:]
	}
	return strings.TrimSuffix(path, ".md")
}

func parentFolder(path string) string {
	if i := strings.LastIndexByte(path, '/'); i >= 0 {
		return path[:i]
	}
	return ""
}

func extension(path string) string {
	if i := strings.LastIndexByte(path, '.'); i >= 0 {
		return path[i+1:]
	}
	return ""
}

// subtags is #a/b/c, #a/b, #a.
func subtags(tag string) []string {
	out := []string{tag}
	for strings.Contains(tag, "/") {
		tag = tag[:strings.LastIndexByte(tag, '/')]
		out = append(out, tag)
	}
	return out
}

var (
	dashedDate = regexp.MustCompile(`(\d{4})-(\d{2})-(\d{2})`)
	plainDate  = regexp.MustCompile(`(\d{4})(\d{2})(\d{2})`)
)

// extractDate finds a YYYY-MM-DD or YYYYMMDD date in a name.
func extractDate(s string, loc *time.Location) (time.Time, bool) {
	m := dashedDate.FindStringSubmatch(s)
	if m == nil {
		m = plainDate.FindStringSubmatch(s)
	}
	if m == nil {
		return time.Time{}, false
	}
	y, mo, d := atoiDigits(m[1]), atoiDigits(m[2]), atoiDigits(m[3])
	// luxon's fromObject with an impossible day is an invalid date,
	// which Dataview keeps as the page's day; here it is no day.
	return dateFromParts(loc, y, mo, d, 0, 0, 0, 0)
}

func atoiDigits(s string) int {
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
	}
	return n
}

var regexSpecial = regexp.MustCompile(`[.*+?^${}()|[\]\\]`)

func escapeRegex(s string) string { return regexSpecial.ReplaceAllString(s, `\$0`) }
