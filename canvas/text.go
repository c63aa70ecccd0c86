package canvas

import (
	"bytes"
	"strings"
)

// Text is what a canvas says, as Markdown, for search and links: each
// text node's text, each file node as an embed (![[path#subpath]]), each
// link node's URL and each group's label, separated by blank lines. lineOf
// maps each 1-based line of text to the line of the canvas file that holds
// its node (Obsidian writes one node per line). A file that is not a
// canvas has no text.
func Text(data []byte) (text []byte, lineOf []int) {
	c, err := Parse(data)
	if err != nil {
		return nil, nil
	}
	var b bytes.Buffer
	lineOf = []int{0} // lines are 1-based
	lines := idLines(data)
	for _, n := range c.Nodes {
		var s string
		switch n.Str("type") {
		case "text":
			s = n.Str("text")
		case "file":
			s = "![[" + n.Str("file") + n.Str("subpath") + "]]"
		case "link":
			s = n.Str("url")
		case "group":
			s = n.Str("label")
		}
		if strings.TrimSpace(s) == "" {
			continue
		}
		at, ok := lines[string(n.Raw("id"))]
		if !ok {
			at = 1
		}
		for _, line := range strings.Split(s, "\n") {
			b.WriteString(line)
			b.WriteByte('\n')
			lineOf = append(lineOf, at)
		}
		b.WriteByte('\n')
		lineOf = append(lineOf, at)
	}
	return b.Bytes(), lineOf
}

// idLines maps each raw id (its JSON string, quotes included) to the
// 1-based line of data where "id": first gives it, in one pass over data
// (looking each node's id up from the start made a 20,000-node canvas
// take a minute to index).
func idLines(data []byte) map[string]int {
	out := map[string]int{}
	line := 1
	key := []byte(`"id"`)
	for i := 0; i < len(data); i++ {
		switch {
		case data[i] == '\n':
			line++
		case data[i] == '"' && bytes.HasPrefix(data[i:], key):
			j := i + len(key)
			for j < len(data) && (data[j] == ' ' || data[j] == '\t') {
				j++
			}
			if j >= len(data) || data[j] != ':' {
				continue
			}
			j++
			for j < len(data) && (data[j] == ' ' || data[j] == '\t') {
				j++
			}
			if j >= len(data) || data[j] != '"' {
				continue
			}
			k := j + 1
			for k < len(data) && data[k] != '"' && data[k] != '\n' {
				if data[k] == '\\' {
					k++
				}
				k++
			}
			if k < len(data) && data[k] == '"' {
				if _, seen := out[string(data[j:k+1])]; !seen {
					out[string(data[j:k+1])] = line
				}
				i = k
			}
		}
	}
	return out
}

// Retarget rewrites a canvas for moved files: file nodes showing a moved
// file (old path → new path) show it at its new path, and the links in
// text nodes are rewritten by relink (links.Move.Retarget for this
// canvas). It returns the canvas unchanged and 0 when nothing changed.
func Retarget(data []byte, moved map[string]string, relink func(text []byte) ([]byte, int)) ([]byte, int) {
	c, err := Parse(data)
	if err != nil {
		return data, 0
	}
	n := 0
	for i := range c.Nodes {
		o := &c.Nodes[i]
		switch o.Str("type") {
		case "file":
			if to, ok := moved[o.Str("file")]; ok {
				o.Set("file", to)
				n++
			}
		case "text":
			if out, k := relink([]byte(o.Str("text"))); k > 0 {
				o.Set("text", string(out))
				n += k
			}
		}
	}
	if n == 0 {
		return data, 0
	}
	return c.Marshal(), n
}
