package tools

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/note"
)

// sized is a fake whose files have one size.
type sized struct {
	fakeBackend
	size int64
}

func (s *sized) FileInfo(ctx context.Context, l note.Locator) (note.Info, error) {
	i, err := s.fakeBackend.FileInfo(ctx, l)
	i.Size = s.size
	return i, err
}

func TestReadAttachment(t *testing.T) {
	t.Parallel()
	png := "\x89PNG\r\n\x1a\n\x00binary"
	cases := []struct {
		name, args string
		size       int64
		image      bool
		typ        string
		kind       errors.Kind
		fields     []string
		calls      []string
	}{
		{name: "an image comes as image content", args: `{"path":"Assets/a.png"}`, size: int64(len(png)), image: true, typ: "image/png",
			calls: []string{"FileInfo path=Assets/a.png name=", "Backlinks path=Assets/a.png name=", "Read path=Assets/a.png name="}},
		{name: "a PDF is described, not read", args: `{"path":"doc.PDF"}`, size: 5 << 20, typ: "application/pdf",
			calls: []string{"FileInfo path=doc.PDF name=", "Backlinks path=doc.PDF name="}},
		{name: "an unknown type", args: `{"path":"data.xyz"}`, size: 3, typ: "application/octet-stream"},
		{name: "an SVG is not image content", args: `{"path":"d.svg"}`, size: 3, typ: "image/svg+xml"},
		{name: "an image over the bound is refused", args: `{"path":"big.jpg"}`, size: maxImage + 1, kind: errors.Unsupported},
		{name: "no locator", args: `{}`, kind: errors.InvalidParams, fields: []string{"path", "name"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			fb := &sized{fakeBackend: fakeBackend{content: png}, size: c.size}
			res, err := call(t, findTool(t, "obsidian_read_attachment", fb), c.args)
			if c.kind != "" {
				checkErr(t, err, c.kind, c.fields, "")
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.calls != nil && strings.Join(fb.calls, "|") != strings.Join(c.calls, "|") {
				t.Errorf("calls %q, want %q", fb.calls, c.calls)
			}
			var images []mcp.ImageContent
			for _, ct := range res.Content {
				if im, ok := ct.(mcp.ImageContent); ok {
					images = append(images, im)
				}
			}
			if c.image != (len(images) == 1) || c.image && (images[0].MIMEType != c.typ || images[0].Data != base64.StdEncoding.EncodeToString([]byte(png))) {
				t.Errorf("image content %+v", images)
			}
			b, _ := json.Marshal(res.StructuredContent)
			var got attachment
			if err := json.Unmarshal(b, &got); err != nil || got.Type != c.typ || got.Image != c.image || got.Embeds != 3 || len(got.EmbeddedBy) != 3 {
				t.Errorf("facts %s", b)
			}
			if strings.Contains(string(b), base64.StdEncoding.EncodeToString([]byte(png))) {
				t.Error("the structured result repeats the image")
			}
		})
	}
}
