package patch

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
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
