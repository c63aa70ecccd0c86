// Package jsregex reads JavaScript regular expressions with Go's RE2
// where the two agree, and refuses what RE2 cannot match the same way
// (look-around, back-references) with an error that says so, rather
// than matching something else. The Bases and Dataview engines take
// their users' patterns through it.
package jsregex

import (
	"fmt"
	"regexp"
	"strings"
)

// MaxLen bounds a pattern's text.
const MaxLen = 16 << 10

// Unsupported is a pattern JavaScript accepts and this server cannot
// match as JavaScript would.
type Unsupported struct{ Pattern, Why string }

func (e *Unsupported) Error() string {
	return fmt.Sprintf("the regular expression /%s/ uses %s, which JavaScript has and this server's engine (RE2) does not; rewrite it without", e.Pattern, e.Why)
}

// Compile reads pattern with the flags i, m, s (g, u, v, d and y change
// nothing a match here depends on).
func Compile(pattern, flags string) (*regexp.Regexp, error) {
	if len(pattern) > MaxLen {
		return nil, fmt.Errorf("a regular expression of %d bytes is over the limit of %d", len(pattern), MaxLen)
	}
	if why := jsOnly(pattern); why != "" {
		return nil, &Unsupported{pattern, why}
	}
	prefix := ""
	for _, f := range flags {
		if f == 'i' || f == 'm' || f == 's' {
			prefix += string(f)
		}
	}
	expr := pattern
	if prefix != "" {
		expr = "(?" + prefix + ")" + pattern
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, fmt.Errorf("the regular expression /%s/ is not valid: %v", pattern, err)
	}
	return re, nil
}

// jsOnly names the JavaScript-only syntax in a pattern, if any.
func jsOnly(p string) string {
	inClass := false
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case c == '\\' && i+1 < len(p):
			if n := p[i+1]; !inClass && n >= '1' && n <= '9' {
				return "a back-reference (\\" + string(n) + ")"
			} else if !inClass && n == 'k' && i+2 < len(p) && p[i+2] == '<' {
				return "a named back-reference (\\k<…>)"
			}
			i++
		case c == '[':
			inClass = true
		case c == ']':
			inClass = false
		case !inClass && c == '(' && strings.HasPrefix(p[i:], "(?="):
			return "a look-ahead ((?=…))"
		case !inClass && c == '(' && strings.HasPrefix(p[i:], "(?!"):
			return "a negative look-ahead ((?!…))"
		case !inClass && c == '(' && strings.HasPrefix(p[i:], "(?<="):
			return "a look-behind ((?<=…))"
		case !inClass && c == '(' && strings.HasPrefix(p[i:], "(?<!"):
			return "a negative look-behind ((?<!…))"
		}
	}
	return ""
}

// Template is a JavaScript replacement ($1, $<name>, $&, $$) in Go's
// syntax (${1}, ${name}, ${0}, $$): Go reads $1x as the group named "1x".
func Template(with string) string {
	var b strings.Builder
	for i := 0; i < len(with); i++ {
		c := with[i]
		if c != '$' || i+1 == len(with) {
			b.WriteByte(c)
			continue
		}
		switch n := with[i+1]; {
		case n == '$':
			b.WriteString("$$")
			i++
		case n == '&':
			b.WriteString("${0}")
			i++
		case n >= '0' && n <= '9':
			j := i + 1
			for j < len(with) && j < i+3 && with[j] >= '0' && with[j] <= '9' {
				j++
			}
			b.WriteString("${" + with[i+1:j] + "}")
			i = j - 1
		case n == '<':
			if end := strings.IndexByte(with[i:], '>'); end > 0 {
				b.WriteString("${" + with[i+2:i+end] + "}")
				i += end
				continue
			}
			b.WriteString("$$")
		default:
			b.WriteString("$$") // a lone $ stands for itself
		}
	}
	return b.String()
}
