package tools

import (
	"context"
	"encoding/base64"
	"time"

	"github.com/go-playground/validator/v10"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/note"
)

type readAttachmentArgs struct {
	Path string `json:"path,omitempty" jsonschema:"Vault-relative path." validate:"omitempty,notepath"`
	Name string `json:"name,omitempty" jsonschema:"Or its file name, e.g. a.png." validate:"omitempty,notename"`
}

// checkAcross implements acrossFields: exactly one of path and name.
func (readAttachmentArgs) checkAcross(sl validator.StructLevel) { onePathOrName(sl) }

type attachment struct {
	Path     string    `json:"path" jsonschema:"vault-relative path"`
	Type     string    `json:"type" jsonschema:"MIME type, e.g. image/png; application/octet-stream when unknown"`
	Size     int64     `json:"size" jsonschema:"bytes"`
	Modified time.Time `json:"modified" jsonschema:"last modification time, RFC 3339, UTC"`
	// EmbeddedBy are the files that embed or link it.
	EmbeddedBy []note.LinkRef `json:"embedded_by" jsonschema:"the notes and canvases that embed or link it, each with the line; at most 50"`
	Embeds     int            `json:"embeds" jsonschema:"how many embeds and links in all"`
	Image      bool           `json:"image" jsonschema:"true when the image itself is in the answer, as image content"`
	data       []byte
}

// maxImage bounds an image sent as content: 3.75 MiB is 5 MiB in base64,
// the most a model's API takes in one image.
const maxImage = 3_932_160

// images are the types MCP clients and models show.
var images = map[string]bool{"image/png": true, "image/jpeg": true, "image/gif": true, "image/webp": true}

var readAttachment = spec[readAttachmentArgs, attachment]{
	name:        "obsidian_read_attachment",
	toolset:     "read",
	title:       "Read attachment",
	description: "An attachment's type, size and the notes and canvases embedding it; an image (PNG, JPEG, GIF, WebP; 3.75 MB at most) also as image content.",
	hints:       hints{readOnly: true, idempotent: true},
	raw:         true,
	text: func(a attachment) string {
		s, _ := render(a)
		return s
	},
	media: func(a attachment) []mcp.Content {
		if a.data == nil {
			return nil
		}
		return []mcp.Content{mcp.NewImageContent(base64.StdEncoding.EncodeToString(a.data), a.Type)}
	},
	run: func(ctx context.Context, v Vault, a readAttachmentArgs) (attachment, error) {
		loc := note.Locator{Path: a.Path, Name: a.Name}
		info, err := v.Notes.FileInfo(ctx, loc)
		if err != nil {
			return attachment{}, err
		}
		res := attachment{Path: info.Path, Type: note.MediaType(info.Path), Size: info.Size, Modified: info.Modified, EmbeddedBy: []note.LinkRef{}}
		if res.Type == "" {
			res.Type = "application/octet-stream"
		}
		bl, err := v.Graph.Backlinks(ctx, note.ByPath(info.Path))
		if err != nil {
			return attachment{}, err
		}
		res.Embeds = len(bl.Backlinks)
		res.EmbeddedBy = bl.Backlinks[:min(len(bl.Backlinks), 50)]
		if !images[res.Type] {
			return res, nil
		}
		if info.Size > maxImage {
			return attachment{}, errors.E(errors.Unsupported, "%s is %.1f MB, over the 3.75 MB an image in an answer may take; nothing was sent", info.Path, float64(info.Size)/(1<<20)).
				WithHint("Ask the user to look at it in Obsidian, or to save a smaller copy; obsidian_file_info gives its facts.")
		}
		c, err := v.Notes.Read(ctx, note.ByPath(info.Path))
		if err != nil {
			return attachment{}, err
		}
		if len(c.Content) > maxImage {
			return attachment{}, errors.E(errors.Unsupported, "%s grew to %d bytes while it was read, over the 3.75 MB an image in an answer may take", info.Path, len(c.Content))
		}
		res.data, res.Image = []byte(c.Content), true
		return res, nil
	},
}
