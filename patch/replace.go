package patch

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/links"
	"github.com/obsidian-mcp/obsidian-mcp/metadata"
	"github.com/obsidian-mcp/obsidian-mcp/note"
)

// Replaced is the outcome of ReplaceText.
type Replaced struct {
	Content []byte
	// Lines are the 1-based lines where the replaced matches started.
	Lines []int
}

// ReplaceText replaces find with repl in content: exact text, or an RE2
// regular expression whose repl may use $1 and ${name}. Without all, find
// must match exactly once; several matches are refused with their lines,
// so that the caller widens find or says all. Exact text written with
// "\n" also matches a note with CRLF line ends (repl then gets them too).
// Field errors name the replace tool's arguments: find, all.
func ReplaceText(content []byte, find, repl string, regex, all bool) (Replaced, error) {
	if find == "" {
		return Replaced{}, errors.InvalidFields(errors.Field{Field: "find", Message: "must not be empty"})
	}
	var re *regexp.Regexp
	if regex {
		var err error
		if re, err = regexp.Compile(find); err != nil {
			return Replaced{}, errors.InvalidFields(errors.Field{Field: "find", Message: "is not a valid RE2 regular expression: " + strings.TrimPrefix(err.Error(), "error parsing regexp: ")})
		}
	} else {
		if !bytes.Contains(content, []byte(find)) && strings.Contains(find, "\n") && note.Newline(content) == "\r\n" {
			crlf := strings.NewReplacer("\r\n", "\r\n", "\n", "\r\n")
			find, repl = crlf.Replace(find), crlf.Replace(repl)
		}
		re = regexp.MustCompile(regexp.QuoteMeta(find))
	}
	matches := re.FindAllSubmatchIndex(content, -1)
	lines := metadata.LinesOf(content)
	at := make([]int, len(matches))
	for i, m := range matches {
		at[i] = lines.Of(m[0])
	}
	switch {
	case len(matches) == 0:
		return Replaced{}, errors.InvalidFields(errors.Field{Field: "find", Message: "does not occur in the note; read it again and copy the text exactly (spaces, line breaks and case count)"})
	case len(matches) > 1 && !all:
		return Replaced{}, errors.InvalidFields(errors.Field{Field: "all", Message: fmt.Sprintf("find matches %d times (lines %s); add surrounding text to find to make it unique, or set all to replace every match", len(matches), joinInts(at, 20))})
	}
	var out []byte
	last := 0
	for _, m := range matches {
		out = append(out, content[last:m[0]]...)
		if regex {
			out = re.Expand(out, []byte(repl), content, m)
		} else {
			out = append(out, repl...)
		}
		last = m[1]
	}
	out = append(out, content[last:]...)
	return Replaced{Content: out, Lines: at}, nil
}

// joinInts lists up to max numbers, then how many more.
func joinInts(ns []int, max int) string {
	var b strings.Builder
	for i, n := range ns {
		if i == max {
			fmt.Fprintf(&b, " and %d more", len(ns)-max)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprint(&b, n)
	}
	return b.String()
}

// Scope says where a replace across notes may match: in the body's text
// always; inside fenced code blocks and in the frontmatter only when
// asked, as a vault-wide replace must not rewrite code or properties by
// accident.
type Scope struct {
	Code, Frontmatter bool
}

// Pattern is find as a regular expression: RE2 when regex, else the exact
// text. Errors name the field find.
func Pattern(find string, regex bool) (*regexp.Regexp, error) {
	if find == "" {
		return nil, errors.InvalidFields(errors.Field{Field: "find", Message: "must not be empty"})
	}
	if !regex {
		return regexp.MustCompile(regexp.QuoteMeta(find)), nil
	}
	re, err := regexp.Compile(find)
	if err != nil {
		return nil, errors.InvalidFields(errors.Field{Field: "find", Message: "is not a valid RE2 regular expression: " + strings.TrimPrefix(err.Error(), "error parsing regexp: ")})
	}
	return re, nil
}

// ReplaceIn replaces every match of re in content that lies wholly where
// s allows; with regex, repl may use $1 and ${name}. A note without such a
// match comes back as it is, with no lines.
func ReplaceIn(content []byte, re *regexp.Regexp, repl string, regex bool, s Scope) Replaced {
	spans := inScope(content, s)
	lines := metadata.LinesOf(content)
	var out []byte
	var at []int
	last := 0
	for _, m := range re.FindAllSubmatchIndex(content, -1) {
		if !slices.ContainsFunc(spans, func(sp [2]int) bool { return sp[0] <= m[0] && m[1] <= sp[1] }) {
			continue
		}
		out = append(out, content[last:m[0]]...)
		if regex {
			out = re.Expand(out, []byte(repl), content, m)
		} else {
			out = append(out, repl...)
		}
		last = m[1]
		at = append(at, lines.Of(m[0]))
	}
	if at == nil {
		return Replaced{Content: content}
	}
	return Replaced{Content: append(out, content[last:]...), Lines: at}
}

// inScope are the spans of content a replace in scope s may touch.
func inScope(content []byte, s Scope) [][2]int {
	bom := len(note.BOM(content))
	text := content[bom:]
	fmEnd := note.FrontmatterEnd(text)
	var out [][2]int
	if s.Frontmatter && fmEnd > 0 {
		out = append(out, [2]int{bom, bom + fmEnd})
	}
	if s.Code {
		return append(out, [2]int{bom + fmEnd, len(content)})
	}
	for _, span := range links.Prose(text) {
		if from := max(span[0], fmEnd); from < span[1] {
			out = append(out, [2]int{bom + from, bom + span[1]})
		}
	}
	return out
}
