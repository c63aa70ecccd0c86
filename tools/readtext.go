package tools

import (
	"context"
	"strings"
	"unicode/utf8"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/note"
)

// readText reads a note for a tool that treats it as text: reading,
// outlining, counting or editing it. A file that is not text (an image, a
// PDF) is refused, pointing at obsidian_read_attachment: read as a note, a
// JPEG came back as 10 KB of mojibake, and an edit would have written it
// back mangled. A Markdown note is always text to Obsidian, whatever its
// bytes, and is read as it is.
func readText(ctx context.Context, v Vault, loc note.Locator) (note.Content, error) {
	c, err := v.Notes.Read(ctx, loc)
	if err != nil || note.IsMarkdown(c.Path) || utf8.ValidString(c.Content) && !strings.ContainsRune(c.Content, 0) {
		return c, err
	}
	return note.Content{}, errors.E(errors.InvalidParams, "%s is not a note or a text file: its bytes are not text", c.Path).
		WithHint("Read an image, PDF or other attachment with obsidian_read_attachment; obsidian_file_info gives its type and size.")
}
