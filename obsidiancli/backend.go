package obsidiancli

import (
	"context"
	"log/slog"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/note"
	"github.com/obsidian-mcp/obsidian-mcp/policy"
)

// maxArgContent is the largest escaped content= value sent through argv.
// Windows caps a command line near 32 KB and the CLI was reported unstable
// above ~4 KB per argument (docs/cli.md §4); larger content is written
// to the vault folder directly.
const maxArgContent = 4096

// escaper encodes control characters the way the CLI decodes them. The
// reverse is impossible for a literal backslash (the CLI turns every `\n`,
// `\t`, `\r` into a control character and has no escape for '\'), which is
// why content with a backslash never goes through argv.
var escaper = strings.NewReplacer("\n", `\n`, "\t", `\t`, "\r", `\r`)

// Backend implements the tools' Backend over the CLI, and nothing else:
// what the CLI cannot do (content it cannot carry, another date's daily
// note) fails with an error wrapping note.ErrNeedsFolder, and the router
// (internal/backend), which owns the vault folder, serves it from there.
type Backend struct {
	CLI    *Client
	Logger *slog.Logger
	// Policy is the folder policy in force (nil: none): names resolve
	// among the notes it shows, and answers the app computes over every
	// note are refused while it hides some.
	Policy func(context.Context) *policy.Policy
}

func (b *Backend) policy(ctx context.Context) *policy.Policy {
	if b.Policy == nil {
		return nil
	}
	return b.Policy(ctx)
}

// needsFolder is what the CLI cannot carry: the router serves it from the
// vault folder, or, with none, passes this error on.
func needsFolder(what string) *errors.Error {
	return errors.E(errors.Unsupported, "%s cannot be sent through the Obsidian CLI", what).WithCause(note.ErrNeedsFolder).
		WithHint("Content with a backslash, a NUL byte, or over 4 KB is written to the vault folder directly. Run the server on the machine that holds the vault folder, or send the content in smaller pieces without backslashes.")
}

// argSafe reports whether content survives the trip through argv unchanged.
func argSafe(content string) bool {
	return !strings.ContainsAny(content, "\\\x00") && len(escaper.Replace(content)) <= maxArgContent
}

// Create creates a note and never clobbers or side-copies one.
func (b *Backend) Create(ctx context.Context, req note.CreateRequest) (note.Created, error) {
	target := req.Target()
	if err := note.ValidateWritable(req.TargetField(), target); err != nil {
		return note.Created{}, err
	}
	if !req.Overwrite {
		if err := b.mustNotExist(ctx, target); err != nil {
			return note.Created{}, err
		}
	}
	if !argSafe(req.Content) {
		if req.Template != "" {
			return note.Created{}, errors.E(errors.Unsupported, "a template cannot be combined with this content").
				WithHint("Content with a backslash, a NUL byte or over 4 KB is written to the vault folder directly, which cannot apply a template. Create the note from the template first, then append the content.")
		}
		return note.Created{}, needsFolder("this content")
	}
	args := []string{"path=" + target}
	if req.Content != "" {
		args = append(args, "content="+escaper.Replace(req.Content))
	}
	if req.Template != "" {
		args = append(args, "template="+req.Template)
	}
	if req.Overwrite {
		args = append(args, "overwrite")
	}
	if req.Open {
		args = append(args, "open")
	}
	out, err := b.CLI.Run(ctx, "create", args...)
	if err != nil {
		return note.Created{}, err
	}
	got, overwrote := after(out, "Created: "), false
	if got == "" {
		got, overwrote = after(out, "Overwrote: "), true
	}
	if got == "" {
		return note.Created{}, unexpected("create", out)
	}
	if sideCopy(target, got) {
		// The note appeared between our check and the create, and Obsidian
		// made "Name 1.md" instead of failing. Undo the side copy.
		if _, derr := b.CLI.Run(ctx, "delete", "path="+got, "permanent"); derr != nil {
			b.Logger.Warn("could not remove the side copy Obsidian created", "path", got, "err", derr)
		}
		return note.Created{}, note.Exists(target)
	}
	// Any other difference is Obsidian's spelling of the same path (Unicode
	// normalisation, say): report the path it used.
	return note.Created{Path: got, Overwrote: overwrote, Size: len(req.Content), Opened: req.Open}, nil
}

// sideCopy reports whether got is the "Name N.ext" Obsidian picks when
// target is taken.
func sideCopy(target, got string) bool {
	ext := path.Ext(target)
	rest, ok := strings.CutPrefix(got, strings.TrimSuffix(target, ext)+" ")
	if !ok {
		return false
	}
	n, ok := strings.CutSuffix(rest, ext)
	if !ok || n == "" {
		return false
	}
	_, err := strconv.ParseUint(n, 10, 32)
	return err == nil
}

// Read returns the note's exact bytes. The CLI's read cannot say whether a
// note ends with a newline (it always prints one), so the note's size
// decides the final newline. (The router reads from the vault folder
// instead when it can.)
func (b *Backend) Read(ctx context.Context, loc note.Locator) (note.Content, error) {
	p, err := b.locate(ctx, loc)
	if err != nil {
		return note.Content{}, err
	}
	if note.IsBinary(p) {
		// The CLI prints a file as text: an image's bytes would not
		// survive the trip.
		return note.Content{}, needsFolder("the bytes of " + p).
			WithHint("Attachments such as images are read from the vault folder. Set --vault-path / OBSIDIAN_VAULT_PATH.")
	}
	var out string
	for attempt := 0; attempt < 2; attempt++ {
		if out, err = b.CLI.RunData(ctx, "read", "path="+p); err != nil {
			return note.Content{}, err
		}
		info, err := b.info(ctx, p)
		if err != nil {
			return note.Content{}, err
		}
		if content, ok := exactContent(out, info.Size); ok {
			return note.Content{Path: p, Content: content}, nil
		}
		// The note may have changed between the two calls: try once more.
	}
	b.Logger.Warn("read: the CLI's output does not match the note's size; returning it without its final newline", "path", p)
	return note.Content{Path: p, Content: strings.TrimSuffix(out, "\n")}, nil
}

// exactContent recovers a note's bytes from the CLI's read output, which is
// the content plus a '\n' when the content lacks a final one, possibly after
// leading blank lines the CLI adds; size is the note's size in bytes. Where
// two readings fit, the one assuming fewer CLI-added lines wins.
func exactContent(out string, size int64) (string, bool) {
	for _, trail := range []int{1, 0} {
		k := len(out) - trail - int(size)
		if k < 0 || strings.Trim(out[:k], "\r\n") != "" {
			continue
		}
		content := out[k : len(out)-trail]
		if trail == 1 && (!strings.HasSuffix(out, "\n") || strings.HasSuffix(content, "\n")) {
			continue
		}
		return content, true
	}
	return "", false
}

// Append adds content at the end of the note.
func (b *Backend) Append(ctx context.Context, loc note.Locator, content string, inline bool) (note.Written, error) {
	return b.edit(ctx, loc, "append", content, inline)
}

// Prepend inserts content after the note's frontmatter.
func (b *Backend) Prepend(ctx context.Context, loc note.Locator, content string, inline bool) (note.Written, error) {
	return b.edit(ctx, loc, "prepend", content, inline)
}

func (b *Backend) edit(ctx context.Context, loc note.Locator, command, content string, inline bool) (note.Written, error) {
	p, err := b.locate(ctx, loc)
	if err != nil {
		return note.Written{}, err
	}
	send := content
	if !inline {
		cur, err := b.Read(ctx, note.ByPath(p))
		if err != nil {
			return note.Written{}, err
		}
		send = asBlock(command, cur.Content, content)
	}
	if !argSafe(send) {
		return note.Written{}, needsFolder("this content")
	}
	// Always inline: the separators that make the text a block of its own
	// are in send (the app's own add only a newline).
	if _, err := b.CLI.Run(ctx, command, "path="+p, "content="+escaper.Replace(send), "inline"); err != nil {
		return note.Written{}, err
	}
	return note.Written{Path: p, Bytes: len(content)}, nil
}

// asBlock is content with the separators that make it a block of its own
// when added to cur by the app's append or prepend, used inline: the rules
// of note.Append and note.Prepend. (The app itself closes frontmatter that
// ends the file without a newline.) The note may change between the read
// and the add; then only the blank line may be wrong, never the text.
func asBlock(command, cur, content string) string {
	if command == "prepend" || command == "daily:prepend" {
		_, _, trail := note.PrependSeparators([]byte(cur), []byte(content), false)
		return content + trail
	}
	return note.AppendSeparator([]byte(cur), []byte(content), false) + content
}

// Edit replaces the note's content with change(content). The CLI has no
// command that changes part of a note by a function of its bytes, so this
// reads, applies, checks that the note is unchanged, and overwrites, for
// content the CLI carries losslessly. (The router uses the engine's
// compare-and-swap on the vault folder instead when it can.)
func (b *Backend) Edit(ctx context.Context, loc note.Locator, ifMatch string, change note.Change) (note.Edited, error) {
	p, err := b.locate(ctx, loc)
	if err != nil {
		return note.Edited{}, err
	}
	change = note.IfMatch(p, ifMatch, change)
	for attempt := 0; attempt < 3; attempt++ {
		cur, err := b.Read(ctx, note.ByPath(p))
		if err != nil {
			return note.Edited{}, err
		}
		next, err := change([]byte(cur.Content))
		if err != nil {
			return note.Edited{}, err
		}
		if string(next) == cur.Content {
			return note.Edited{Path: p, ETag: note.ETag(next)}, nil
		}
		if !argSafe(string(next)) {
			return note.Edited{}, needsFolder("the edited note").
				WithHint("Without the vault folder a note is edited by sending it whole through the CLI, which cannot carry a backslash, a NUL byte or over 4 KB. Run the server on the machine that holds the vault folder.")
		}
		// The app offers no compare-and-swap: check just before writing.
		again, err := b.Read(ctx, note.ByPath(p))
		if err != nil {
			return note.Edited{}, err
		}
		if again.Content != cur.Content {
			continue
		}
		if _, err := b.CLI.Run(ctx, "create", "path="+p, "content="+escaper.Replace(string(next)), "overwrite"); err != nil {
			return note.Edited{}, err
		}
		return note.Edited{Path: p, ETag: note.ETag(next), Changed: true}, nil
	}
	return note.Edited{}, note.Busy(p)
}

// Delete moves the note to the trash, or deletes it when permanent.
func (b *Backend) Delete(ctx context.Context, loc note.Locator, permanent bool) (note.Deleted, error) {
	p, err := b.locate(ctx, loc)
	if err != nil {
		return note.Deleted{}, err
	}
	args := []string{"path=" + p}
	if permanent {
		args = append(args, "permanent")
	}
	if _, err := b.CLI.Run(ctx, "delete", args...); err != nil {
		return note.Deleted{}, err
	}
	return note.Deleted{Path: p, Permanent: permanent}, nil
}

// Move moves the note to a folder or full path; Obsidian updates links.
func (b *Backend) Move(ctx context.Context, loc note.Locator, to string) (note.Moved, error) {
	if err := note.ValidateDestination(to); err != nil {
		return note.Moved{}, err
	}
	p, err := b.locate(ctx, loc)
	if err != nil {
		return note.Moved{}, err
	}
	dest := note.MoveTarget(p, to)
	if err := note.ValidateWritable("to", dest); err != nil {
		return note.Moved{}, err
	}
	return b.relocate(ctx, p, dest, "move", "to="+dest)
}

// Rename renames the note in its folder, keeping its extension.
func (b *Backend) Rename(ctx context.Context, loc note.Locator, newName string) (note.Moved, error) {
	if err := note.ValidateNewName(newName); err != nil {
		return note.Moved{}, err
	}
	p, err := b.locate(ctx, loc)
	if err != nil {
		return note.Moved{}, err
	}
	dest := note.RenameTarget(p, newName)
	if err := note.ValidateWritable("new_name", dest); err != nil {
		return note.Moved{}, err
	}
	return b.relocate(ctx, p, dest, "rename", "name="+path.Base(dest))
}

func (b *Backend) relocate(ctx context.Context, from, to, command, arg string) (note.Moved, error) {
	if to == from {
		// Nothing to do; answering success keeps the tool idempotent. The
		// note must still exist.
		if _, err := b.info(ctx, from); err != nil {
			return note.Moved{}, err
		}
		return note.Moved{From: from, To: to}, nil
	}
	// A case-only change names the same file on case-insensitive systems.
	if !strings.EqualFold(from, to) {
		if err := b.mustNotExist(ctx, to); err != nil {
			return note.Moved{}, err
		}
	}
	out, err := b.CLI.Run(ctx, command, "path="+from, arg)
	if err != nil {
		return note.Moved{}, err
	}
	if _, got, ok := strings.Cut(firstLine(out), " -> "); ok && got != "" {
		to = got
	}
	return note.Moved{From: from, To: to}, nil
}

// Open shows the note in the Obsidian window.
func (b *Backend) Open(ctx context.Context, loc note.Locator, newTab bool) (note.Opened, error) {
	p, err := b.locate(ctx, loc)
	if err != nil {
		return note.Opened{}, err
	}
	args := []string{"path=" + p}
	if newTab {
		args = append(args, "newtab")
	}
	if _, err := b.CLI.Run(ctx, "open", args...); err != nil {
		return note.Opened{}, err
	}
	return note.Opened{Path: p, NewTab: newTab}, nil
}

// FileInfo describes the note's file.
func (b *Backend) FileInfo(ctx context.Context, loc note.Locator) (note.Info, error) {
	p, err := b.locate(ctx, loc)
	if err != nil {
		return note.Info{}, err
	}
	return b.info(ctx, p)
}

func (b *Backend) info(ctx context.Context, p string) (note.Info, error) {
	out, err := b.CLI.Run(ctx, "file", "path="+p)
	if err != nil {
		return note.Info{}, err
	}
	return parseInfo(out)
}

// parseInfo reads `file`'s key<TAB>value lines; times are epoch milliseconds.
func parseInfo(out string) (note.Info, error) {
	var info note.Info
	seen := 0
	for _, line := range strings.Split(out, "\n") {
		k, v, ok := strings.Cut(strings.TrimSuffix(line, "\r"), "\t")
		if !ok {
			continue
		}
		var err error
		switch k {
		case "path":
			info.Path = v
		case "name":
			info.Name = v
		case "extension":
			info.Extension = v
		case "size":
			info.Size, err = strconv.ParseInt(v, 10, 64)
		case "created":
			info.Created, err = epochMillis(v)
		case "modified":
			info.Modified, err = epochMillis(v)
		default:
			continue
		}
		if err != nil {
			return note.Info{}, unexpected("file", out)
		}
		seen++
	}
	if info.Path == "" || seen < 6 {
		return note.Info{}, unexpected("file", out)
	}
	return info, nil
}

func epochMillis(v string) (time.Time, error) {
	ms, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return time.Time{}, err
	}
	return time.UnixMilli(ms).UTC(), nil
}

// locate turns a locator into an exact path. Names are resolved here, from
// the vault's file list, because the CLI's own file= silently picks one of
// several matching notes.
func (b *Backend) locate(ctx context.Context, loc note.Locator) (string, error) {
	if loc.Path != "" {
		return loc.Path, nil
	}
	out, err := b.CLI.Run(ctx, "files")
	if err != nil {
		return "", err
	}
	var files []string
	for _, line := range strings.Split(out, "\n") {
		if line = strings.TrimSuffix(line, "\r"); line != "" {
			files = append(files, line)
		}
	}
	return note.Resolve(loc.Name, b.policy(ctx).Files(files))
}

func (b *Backend) mustNotExist(ctx context.Context, p string) error {
	_, err := b.info(ctx, p)
	switch e := errors.From(err); {
	case err == nil:
		return note.Exists(p)
	case e.Kind == errors.FileNotFound:
		return nil
	default:
		return err
	}
}

func unexpected(command, out string) *errors.Error {
	return errors.E(errors.CLIError, "obsidian %s gave an answer this server does not understand: %q", command, quote(firstLine(out))).
		WithHint("This Obsidian version may be newer than this server supports; check for an obsidian-mcp update.")
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return strings.TrimSuffix(line, "\r")
}

// after returns the rest of the first line when it starts with prefix.
func after(out, prefix string) string {
	rest, ok := strings.CutPrefix(firstLine(out), prefix)
	if !ok {
		return ""
	}
	return rest
}

// VaultPath is where the app says its vault folder is. It may be a folder
// this machine cannot open (the app may run on another file system, as
// from WSL); the router tries.
func (b *Backend) VaultPath(ctx context.Context) (string, error) {
	out, err := b.CLI.Run(ctx, "vault", "info=path")
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(out), nil
}
