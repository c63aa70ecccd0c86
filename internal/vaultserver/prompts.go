package vaultserver

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"github.com/obsidian-mcp/obsidian-mcp/note"
	"github.com/obsidian-mcp/obsidian-mcp/prompts"
	"github.com/obsidian-mcp/obsidian-mcp/tools"
)

// maxPrompts bounds the notes served as prompts.
const maxPrompts = 200

// promptSet serves the vault's prompt notes (prompts.Tag) as MCP prompts
// on every core of the vault. With the vault folder it looks again every
// so often (a stat per note): when the list changes (a note tagged,
// untagged, renamed, or its description or arguments changed), each
// core's clients get notifications/prompts/list_changed. Over the app
// alone it looks when a client lists them, never behind the user's back:
// a CLI call may launch Obsidian. A prompt's text is read when it is
// asked for, so an edit to it needs no notice.
type promptSet struct {
	vault  tools.Vault
	logger *slog.Logger
	every  time.Duration
	// folder reports whether the vault folder answers.
	folder func() bool

	// looked is closed once the first look is over (found or failed).
	looked     chan struct{}
	lookedOnce sync.Once

	mu      sync.Mutex
	servers []*server.MCPServer
	current []server.ServerPrompt
	hash    string
	start   sync.Once
	stop    context.CancelFunc
	stopped chan struct{}
}

// attach serves the prompts on s.
func (ps *promptSet) attach(s *server.MCPServer) {
	ps.mu.Lock()
	ps.servers = append(ps.servers, s)
	if len(ps.current) > 0 {
		s.SetPrompts(ps.current...)
	}
	ps.mu.Unlock()
}

// begin starts looking for the prompts, once, whichever core asks first.
// A core calls it once its first answer (initialize's) is out: the look
// reads every note's tags, and so builds the search index, which on two
// cores slowed the answer to initialize when it ran beside it.
func (ps *promptSet) begin() {
	ps.start.Do(func() {
		ctx, cancel := context.WithCancel(context.Background())
		stopped := make(chan struct{})
		ps.mu.Lock()
		ps.stop, ps.stopped = cancel, stopped
		ps.mu.Unlock()
		go ps.loop(ctx, stopped)
	})
}

// close stops looking.
func (ps *promptSet) close() {
	ps.mu.Lock()
	stop, stopped := ps.stop, ps.stopped
	ps.mu.Unlock()
	if stop != nil {
		stop()
		<-stopped
	}
}

// firstLookWait bounds how long a prompts/list waits for the first look
// at the vault: a small vault's is over in milliseconds, a restart's in a
// fraction of a second; a first build of a very large vault answers with
// what is known, and list_changed follows.
const firstLookWait = 5 * time.Second

// firstLook is closed once the first look is over.
func (ps *promptSet) firstLook() chan struct{} {
	ps.lookedOnce.Do(func() { ps.looked = make(chan struct{}) })
	return ps.looked
}

func (ps *promptSet) loop(ctx context.Context, stopped chan struct{}) {
	defer close(stopped)
	first := ps.firstLook()
	for {
		if ps.folder() {
			if err := ps.refresh(ctx); err != nil && ctx.Err() == nil {
				ps.logger.Debug("the vault's prompt notes could not be listed", "err", err)
			}
		}
		select {
		case <-first:
		default:
			close(first)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(ps.every):
		}
	}
}

// listing looks for the prompts as a client lists them, when no folder
// is looked at in the background.
func (ps *promptSet) listing(ctx context.Context) {
	if ps.folder() {
		// The first list holds the prompt notes: it answered before the
		// first look was over, without them, for about a second.
		ps.begin()
		t := time.NewTimer(firstLookWait)
		defer t.Stop()
		select {
		case <-ps.firstLook():
		case <-ctx.Done():
		case <-t.C:
		}
		return
	}
	if err := ps.refresh(ctx); err != nil && ctx.Err() == nil {
		ps.logger.Warn("prompts/list: the vault's prompt notes could not be listed", "err", err)
	}
}

// refresh lists the prompt notes and, when the list changed, serves it.
func (ps *promptSet) refresh(ctx context.Context) error {
	paths, err := ps.vault.Meta.Tagged(ctx, prompts.Tag)
	if err != nil {
		return err
	}
	var found []prompts.Prompt
	for _, p := range paths[:min(len(paths), maxPrompts)] {
		c, err := ps.vault.Notes.Read(ctx, note.ByPath(p))
		if err != nil {
			continue // gone, hidden or unreadable since it was listed
		}
		if pr, ok := prompts.FromNote(c.Path, []byte(c.Content)); ok {
			found = append(found, pr)
		}
	}
	found = prompts.Named(found)
	hash := listHash(found)
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if hash == ps.hash || ctx.Err() != nil {
		return ctx.Err()
	}
	ps.hash = hash
	ps.current = make([]server.ServerPrompt, 0, len(found))
	for _, p := range found {
		ps.current = append(ps.current, ps.serve(p))
	}
	for _, s := range ps.servers {
		s.SetPrompts(ps.current...) // notifies the clients of s
	}
	ps.logger.Info("vault prompts", "count", len(found))
	return nil
}

// serve is the MCP prompt of p: its text is read again when asked for.
func (ps *promptSet) serve(p prompts.Prompt) server.ServerPrompt {
	opts := []mcp.PromptOption{mcp.WithPromptDescription(p.Description)}
	for _, a := range p.Args {
		opts = append(opts, mcp.WithArgument(a.Name, mcp.ArgumentDescription(a.Description), mcp.RequiredArgument()))
	}
	return server.ServerPrompt{
		Prompt: mcp.NewPrompt(p.Name, opts...),
		Handler: func(ctx context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			c, err := ps.vault.Notes.Read(ctx, note.ByPath(p.Path))
			if err != nil {
				return nil, err
			}
			now, ok := prompts.FromNote(c.Path, []byte(c.Content))
			if !ok {
				return nil, errors.E(errors.FileNotFound, "%s is no longer tagged #%s", p.Path, prompts.Tag).
					WithHint("List the prompts again: the list has changed.")
			}
			now.Name = p.Name
			text, err := now.Fill(req.Params.Arguments, time.Now())
			if err != nil {
				var fields []errors.Field
				for _, a := range now.Args {
					if _, ok := req.Params.Arguments[a.Name]; !ok {
						fields = append(fields, errors.Field{Field: "arguments." + a.Name, Message: "is required: " + strings.TrimSpace(a.Description+" (a {{"+a.Name+"}} of the prompt note)")})
					}
				}
				return nil, errors.InvalidFields(fields...)
			}
			return mcp.NewGetPromptResult(now.Description, []mcp.PromptMessage{
				mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent(text)),
			}), nil
		},
	}
}

// listHash identifies what prompts/list shows of the prompts, "" for
// none.
func listHash(ps []prompts.Prompt) string {
	if len(ps) == 0 {
		return ""
	}
	h := sha256.New()
	for _, p := range ps {
		fmt.Fprintf(h, "%q %q %q\n", p.Name, p.Path, p.Description)
		for _, a := range p.Args {
			fmt.Fprintf(h, "\t%q %q\n", a.Name, a.Description)
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}
