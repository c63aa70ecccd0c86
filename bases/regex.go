package bases

import (
	"regexp"
	"strings"

	"github.com/obsidian-mcp/obsidian-mcp/jsregex"
)

// regex is a regular expression literal of the Bases language (/:/g).
// JavaScript's syntax is read by Go's RE2 where they agree; what RE2 does
// not have (lookaround, backreferences) is refused as unsupported rather
// than matched otherwise.
type regex struct {
	src    string
	re     *regexp.Regexp
	global bool // the g flag: replace every match, not the first
}

// newRegex compiles a literal's pattern and flags.
func newRegex(pattern, flags string) (*regex, error) {
	if len(pattern) > maxExprLen {
		return nil, errBound("a regular expression of %d bytes is over the limit of %d", len(pattern), maxExprLen)
	}
	prefix := ""
	for _, f := range flags {
		switch f {
		case 'i', 'm', 's':
			prefix += string(f)
		case 'g':
		case 'u', 'v', 'd', 'y':
			// u and v change nothing RE2 reads differently here; d
			// (indices) and y (sticky) have no use in a formula.
		}
	}
	expr := pattern
	if prefix != "" {
		expr = "(?" + prefix + ")" + pattern
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, unsupported("the regular expression /%s/ is not one this server can match the way JavaScript would (%v)", pattern, err)
	}
	return &regex{src: "/" + pattern + "/" + flags, re: re, global: strings.ContainsRune(flags, 'g')}, nil
}

// replace is JavaScript's s.replace(r, with): every match with the g
// flag, else the first; $1 and $<name> in with are the groups, $$ a
// dollar sign.
func (r *regex) replace(s, with string) string {
	with = jsTemplate(with)
	if r.global {
		return r.re.ReplaceAllString(s, with)
	}
	loc := r.re.FindStringSubmatchIndex(s)
	if loc == nil {
		return s
	}
	var out []byte
	out = append(out, s[:loc[0]]...)
	out = r.re.ExpandString(out, with, s, loc)
	return string(out) + s[loc[1]:]
}

func jsTemplate(with string) string { return jsregex.Template(with) }
