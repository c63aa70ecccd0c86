package tools

import (
	"strings"

	"context"

	"github.com/obsidian-mcp/obsidian-mcp/metadata"
	"github.com/obsidian-mcp/obsidian-mcp/note"
)

type getPropertiesArgs struct {
	locator
}

type propertiesResult struct {
	Path       string              `json:"path" jsonschema:"vault-relative path of the note"`
	Properties []metadata.Property `json:"properties" jsonschema:"the frontmatter's properties in order, each with its type and typed value"`
	Tags       []string            `json:"tags" jsonschema:"every tag of the note, frontmatter and inline, without #, each once"`
	Aliases    []string            `json:"aliases" jsonschema:"the note's aliases"`
	Error      string              `json:"frontmatter_error,omitempty" jsonschema:"why the frontmatter could not be read as YAML, when it could not"`
	ETag       string              `json:"etag" jsonschema:"hash of the note's content"`
}

var getProperties = spec[getPropertiesArgs, propertiesResult]{
	name:        "obsidian_get_properties",
	toolset:     "read",
	title:       "Get note properties",
	description: "A note's frontmatter as typed values, in order, with its tags and aliases.",
	hints:       hints{readOnly: true, idempotent: true},
	run: func(ctx context.Context, v Vault, a getPropertiesArgs) (propertiesResult, error) {
		c, err := readText(ctx, v, a.note())
		if err != nil {
			return propertiesResult{}, err
		}
		m := metadata.Parse([]byte(c.Content))
		r := propertiesResult{Path: c.Path, Properties: m.Properties, Tags: []string{}, Aliases: m.Aliases, Error: m.FrontmatterError, ETag: note.ETag([]byte(c.Content))}
		if r.Properties == nil {
			r.Properties = []metadata.Property{}
		}
		if r.Aliases == nil {
			r.Aliases = []string{}
		}
		seen := map[string]bool{}
		for _, t := range m.Tags {
			if k := strings.ToLower(t.Name); !seen[k] {
				seen[k] = true
				r.Tags = append(r.Tags, t.Name)
			}
		}
		return r, nil
	},
}
