package tools

import (
	"context"
	"unicode/utf8"

	"github.com/obsidian-mcp/obsidian-mcp/canvas"
	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/note"
)

// canvasLocator names a canvas; a name resolves like a wikilink with its
// extension.
type canvasLocator struct {
	Path string `json:"path,omitempty" jsonschema:"Vault-relative path, e.g. Map.canvas." validate:"omitempty,notepath"`
	Name string `json:"name,omitempty" jsonschema:"Or its name, e.g. Map.canvas." validate:"omitempty,notename"`
}

// canvasFile is the canvas the locator names, or what is wrong with it.
func (l canvasLocator) canvasFile() (note.Locator, error) {
	field, v := "path", l.Path
	if v == "" {
		field, v = "name", l.Name
	}
	if v != "" && !canvas.Is(v) {
		return note.Locator{}, errors.InvalidFields(errors.Field{Field: field, Message: "must name a canvas, ending in .canvas (notes are read with obsidian_read_note)"})
	}
	return note.Locator{Path: l.Path, Name: l.Name}, nil
}

type readCanvasArgs struct {
	canvasLocator
}

// canvasNode is a node as read: the JSON Canvas keys, plus where it sits
// and whether the file it shows exists.
type canvasNode struct {
	ID      string  `json:"id"`
	Type    string  `json:"type" jsonschema:"text, file, link or group"`
	Text    *string `json:"text,omitempty" jsonschema:"a text node's Markdown"`
	File    string  `json:"file,omitempty" jsonschema:"a file node's vault-relative path"`
	Subpath string  `json:"subpath,omitempty" jsonschema:"the heading or block shown, e.g. #Risks"`
	Missing bool    `json:"missing,omitempty" jsonschema:"true when the file node's file is not in the vault"`
	URL     string  `json:"url,omitempty" jsonschema:"a link node's URL"`
	Label   string  `json:"label,omitempty" jsonschema:"a group's label"`
	Group   string  `json:"group,omitempty" jsonschema:"the id of the smallest group holding it"`
	X       float64 `json:"x"`
	Y       float64 `json:"y"`
	Width   float64 `json:"width"`
	Height  float64 `json:"height"`
	Color   string  `json:"color,omitempty" jsonschema:"1-6 (red, orange, yellow, green, cyan, purple) or #RRGGBB"`
	Cut     bool    `json:"cut,omitempty" jsonschema:"true when its text was cut to keep the answer small; obsidian_read_note reads the file whole"`
}

type canvasEdge struct {
	ID       string `json:"id"`
	FromNode string `json:"fromNode"`
	FromSide string `json:"fromSide,omitempty"`
	FromEnd  string `json:"fromEnd,omitempty" jsonschema:"none (default) or arrow"`
	ToNode   string `json:"toNode"`
	ToSide   string `json:"toSide,omitempty"`
	ToEnd    string `json:"toEnd,omitempty" jsonschema:"arrow (default) or none"`
	Label    string `json:"label,omitempty"`
	Color    string `json:"color,omitempty"`
}

type canvasRead struct {
	Path  string       `json:"path" jsonschema:"vault-relative path of the canvas"`
	ETag  string       `json:"etag" jsonschema:"the canvas's version; pass it as if_match to obsidian_edit_canvas"`
	Nodes []canvasNode `json:"nodes"`
	Edges []canvasEdge `json:"edges"`
}

// Bounds of a canvas read: the text it returns, and how many files it
// looks up to say which are missing.
const (
	maxCanvasText  = maxRead
	maxCanvasFiles = 100
)

var readCanvas = spec[readCanvasArgs, canvasRead]{
	name:    "obsidian_read_canvas",
	toolset: "canvas",
	title:   "Read canvas",
	description: "Read a canvas (.canvas, JSON Canvas 1.0): its nodes (text, file, link, group; with the group holding each, and missing: true for a file not in the vault) and edges. " +
		"Change it with obsidian_edit_canvas.",
	hints: hints{readOnly: true, idempotent: true},
	run: func(ctx context.Context, v Vault, a readCanvasArgs) (canvasRead, error) {
		loc, err := a.canvasFile()
		if err != nil {
			return canvasRead{}, err
		}
		c, err := v.Notes.Read(ctx, loc)
		if err != nil {
			return canvasRead{}, err
		}
		cv, err := canvas.Parse([]byte(c.Content))
		if err != nil {
			return canvasRead{}, errors.E(errors.Unsupported, "%s %v", c.Path, err).
				WithHint("Read it as text with obsidian_read_note, or fix it in Obsidian.")
		}
		res := canvasRead{Path: c.Path, ETag: note.ETag([]byte(c.Content)), Nodes: []canvasNode{}, Edges: []canvasEdge{}}
		budget := maxCanvasText
		exists := map[string]bool{}
		groups := cv.Groups()
		for i, o := range cv.Nodes {
			n := canvasNode{ID: o.Str("id"), Type: o.Str("type"), File: o.Str("file"), Subpath: o.Str("subpath"), URL: o.Str("url"),
				Label: o.Str("label"), Group: groups[i], Color: o.Str("color")}
			n.X, _ = o.Number("x")
			n.Y, _ = o.Number("y")
			n.Width, _ = o.Number("width")
			n.Height, _ = o.Number("height")
			if t, ok := o.String("text"); ok {
				if len(t) > budget {
					t, n.Cut = cutUTF8(t, max(budget, 200)), true
				}
				budget = max(0, budget-len(t))
				n.Text = &t
			}
			if n.Type == "file" && n.File != "" {
				found, seen := exists[n.File]
				if !seen && len(exists) < maxCanvasFiles {
					_, err := v.Notes.FileInfo(ctx, note.ByPath(n.File))
					found = errors.From(err) == nil || errors.From(err).Kind != errors.FileNotFound
					exists[n.File] = found
					seen = true
				}
				n.Missing = seen && !found
			}
			res.Nodes = append(res.Nodes, n)
		}
		for _, o := range cv.Edges {
			res.Edges = append(res.Edges, canvasEdge{ID: o.Str("id"), FromNode: o.Str("fromNode"), FromSide: o.Str("fromSide"), FromEnd: o.Str("fromEnd"),
				ToNode: o.Str("toNode"), ToSide: o.Str("toSide"), ToEnd: o.Str("toEnd"), Label: o.Str("label"), Color: o.Str("color")})
		}
		return res, ctx.Err()
	},
}

// cutUTF8 is s cut to at most n bytes, at a character boundary.
func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
