package tools

import (
	"bytes"
	"encoding/json"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
)

// render is a result's text block: its data written as YAML, which says
// the same as the structured content's JSON in fewer tokens (no quotes or
// braces, a note's lines as lines rather than one escaped string) and
// reads as text. A client that shows the model only the text block (Claude
// Desktop, ChatGPT) loses nothing; one that shows the structured content
// (Claude Code) gets the JSON. Fields keep their order.
func render(v any) (string, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", errors.E(errors.Internal, "encoding the result: %v", err)
	}
	// JSON is YAML: decoding it gives the document with its key order.
	var doc yaml.Node
	if err := yaml.Unmarshal(buf.Bytes(), &doc); err != nil {
		return "", errors.E(errors.Internal, "rendering the result: %v", err)
	}
	blockStyle(&doc, true)
	var out strings.Builder
	ye := yaml.NewEncoder(&out)
	ye.SetIndent(2)
	if err := ye.Encode(&doc); err != nil {
		return "", errors.E(errors.Internal, "rendering the result: %v", err)
	}
	if err := ye.Close(); err != nil {
		return "", errors.E(errors.Internal, "rendering the result: %v", err)
	}
	return strings.TrimSuffix(out.String(), "\n"), nil
}

// blockStyle drops the quoting JSON gave every node, so that the encoder
// quotes only a string that would otherwise read as something else
// ("true", "12"), and writes a collection of scalars on one line ({path:
// a.md, line: 3}, [a, b]) and the others as blocks: a list of entries is
// one line per entry. A string of several lines stays a block, as lines,
// and the answer itself is a block: one line per field.
func blockStyle(n *yaml.Node, top bool) {
	n.Style = 0
	flat := !top && (n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode)
	for _, c := range n.Content {
		blockStyle(c, n.Kind == yaml.DocumentNode)
		if c.Kind != yaml.ScalarNode || strings.Contains(c.Value, "\n") {
			flat = false
		}
	}
	if flat && len(n.Content) > 0 {
		n.Style = yaml.FlowStyle
	}
}
