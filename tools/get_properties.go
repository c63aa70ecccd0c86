package tools

import (
	"strings"
	"time"

	"context"

	"github.com/obsidian-mcp/obsidian-mcp/dataview"
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
	// Inline are the note's inline fields (Dataview's key:: value), which
	// Dataview queries read beside the frontmatter.
	Inline []inlineField `json:"inline_fields,omitempty" jsonschema:"the note's inline fields (key:: value, [key:: value], (key:: value)), as Dataview types them"`
	Error  string        `json:"frontmatter_error,omitempty" jsonschema:"why the frontmatter could not be read as YAML, when it could not"`
	ETag   string        `json:"etag" jsonschema:"hash of the note's content"`
}

// inlineField is one inline field of a note.
type inlineField struct {
	Key   string `json:"key" jsonschema:"the key as written"`
	Value any    `json:"value" jsonschema:"the value as Dataview types it: number, text, boolean, date (ISO), duration (ISO 8601), link {path}, list"`
	Line  int    `json:"line" jsonschema:"1-based line"`
	Form  string `json:"form" jsonschema:"line (Key:: value), [] or () (inside a line), or emoji (a task's 📅 date and the like)"`
	Task  bool   `json:"task,omitempty" jsonschema:"true when written on a task: the task's field, not the note's"`
}

var getProperties = spec[getPropertiesArgs, propertiesResult]{
	name:        "obsidian_get_properties",
	toolset:     "read",
	title:       "Get note properties",
	description: "A note's frontmatter as typed values, in order, with its tags, aliases and inline fields (key:: value).",
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
		for _, f := range dataview.ReadInlineFields(c.Content, time.Local) {
			r.Inline = append(r.Inline, inlineField{Key: f.Key, Value: dataview.JSON(f.Value), Line: f.Line, Form: f.Form, Task: f.Task})
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
