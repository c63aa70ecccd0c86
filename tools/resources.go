package tools

import (
	"context"
	"encoding/base64"
	"net/url"
	"path"
	"strconv"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/note"
)

// NotePrefix starts every note's resource URI: obsidian-mcp://note/ and
// the note's vault path, each segment percent-encoded. The scheme is ours:
// obsidian:// belongs to the app, whose handler would try to act on it.
const NotePrefix = "obsidian-mcp://note/"

// resourcePage is how many notes one resources/list page holds.
const resourcePage = 100

// NoteURI is the resource URI of the note at p.
func NoteURI(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return NotePrefix + strings.Join(segs, "/")
}

// NoteResources offers the vault's notes as MCP resources, so that a
// client can attach one: a template for reading any note by path, and the
// listing (resources/list), which mcp-go can only serve from a fixed set
// and which the server fills in with List.
type NoteResources struct {
	Template server.ServerResourceTemplate
	v        Vault
}

// Resources returns the note resources over v.
func Resources(v Vault) NoteResources {
	tpl := mcp.NewResourceTemplate(NotePrefix+"{+path}", "note",
		mcp.WithTemplateTitle("Obsidian note"),
		mcp.WithTemplateDescription("A note of the vault by its vault-relative path, e.g. "+NoteURI("Projects/Plan.md")+": its exact Markdown, frontmatter included."),
		mcp.WithTemplateMIMEType("text/markdown"))
	r := NoteResources{v: v}
	r.Template = server.ServerResourceTemplate{Template: tpl, Handler: r.read}
	return r
}

func (r NoteResources) read(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
	rest, ok := strings.CutPrefix(req.Params.URI, NotePrefix)
	p, err := url.PathUnescape(rest)
	if !ok || err != nil || note.CheckPath(p) != "" {
		return nil, errors.InvalidFields(errors.Field{Field: "uri",
			Message: "must be " + NotePrefix + " and a note's vault-relative path with its extension, each folder percent-encoded, e.g. " + NoteURI("Projects/My plan.md")}).
			With("uri", req.Params.URI)
	}
	c, err := r.v.Notes.Read(ctx, note.ByPath(p))
	if err != nil {
		e := errors.From(err)
		if e.Kind == errors.FileNotFound {
			return nil, MissingResource(ctx, req.Params.URI, e.Message)
		}
		return nil, e
	}
	return []mcp.ResourceContents{mcp.TextResourceContents{URI: NoteURI(c.Path), MIMEType: "text/markdown", Text: c.Content}}, nil
}

// MissingResource is the error for a resources/read of a resource that
// does not exist: MCP's code for it (-32002, or -32602 from revision
// 2026-07-28 on, as SEP-2164 moved it), and the URI in data on every
// revision.
func MissingResource(ctx context.Context, uri, message string) *errors.Error {
	e := errors.E(errors.ResourceNotFound, "%s", message).With("uri", uri)
	if mcp.IsModernProtocol(server.RequestProtocolVersion(ctx)) {
		e = e.WithCode(mcp.INVALID_PARAMS)
	}
	return e
}

// List is one page of resources/list: the vault's Markdown notes by path,
// resourcePage at a time. The cursor is standard base64, as mcp-go checks
// before the server sees it.
func (r NoteResources) List(ctx context.Context, cursor string) ([]mcp.Resource, string, error) {
	off := 0
	if cursor != "" {
		raw, err := base64.StdEncoding.DecodeString(cursor)
		n, perr := strconv.Atoi(strings.TrimPrefix(string(raw), "notes:"))
		if err != nil || perr != nil || !strings.HasPrefix(string(raw), "notes:") || n < 0 {
			return nil, "", errors.InvalidFields(errors.Field{Field: "cursor", Message: "is not a cursor of resources/list; pass nextCursor unchanged"})
		}
		off = n
	}
	l, err := r.v.Files.List(ctx, note.ListRequest{Recursive: true, Ext: "md", Offset: off, Limit: resourcePage})
	if err != nil {
		return nil, "", err
	}
	out := make([]mcp.Resource, 0, len(l.Entries))
	for _, e := range l.Entries {
		res := mcp.NewResource(NoteURI(e.Path), e.Path, mcp.WithMIMEType("text/markdown"))
		res.Title = note.Stem(path.Base(e.Path))
		if e.Size > 0 {
			size := e.Size
			res.Size = &size
		}
		out = append(out, res)
	}
	next := ""
	if off+len(out) < l.Total {
		next = base64.StdEncoding.EncodeToString([]byte("notes:" + strconv.Itoa(off+len(out))))
	}
	return out, next, nil
}
