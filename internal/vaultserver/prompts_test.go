package vaultserver

import (
	"context"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/obsidian-mcp/obsidian-mcp/note"
	"github.com/obsidian-mcp/obsidian-mcp/prompts"
	"github.com/obsidian-mcp/obsidian-mcp/tools"
)

// taggedOnly is vault metadata that reports each look for tagged notes.
type taggedOnly struct{ looked chan string }

func (m taggedOnly) Tags(context.Context) ([]note.TagCount, error)           { return nil, nil }
func (m taggedOnly) Properties(context.Context) ([]note.PropertyStat, error) { return nil, nil }
func (m taggedOnly) Tagged(_ context.Context, tag string) ([]string, error) {
	m.looked <- tag
	return nil, nil
}

// TestPromptsLookOnlyOnceBegun: serving the prompts on a core starts no
// look at the vault (it reads every note's tags, and so builds the search
// index, which slowed the answer to initialize beside it); begin does,
// once, however many cores ask.
func TestPromptsLookOnlyOnceBegun(t *testing.T) {
	meta := taggedOnly{looked: make(chan string, 16)}
	ps := &promptSet{vault: tools.Vault{Meta: meta}, logger: slog.New(slog.DiscardHandler), every: time.Hour, folder: func() bool { return true }}
	ps.attach(server.NewMCPServer("t", "1"))
	ps.mu.Lock()
	started := ps.stop != nil
	ps.mu.Unlock()
	if started {
		t.Fatal("attaching a core started the look for prompts")
	}
	ps.begin()
	ps.begin() // a second core
	select {
	case tag := <-meta.looked:
		if tag != prompts.Tag {
			t.Errorf("looked for #%s", tag)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("begin did not look for prompt notes within 30 s")
	}
	ps.close()
	if n := len(meta.looked); n != 0 {
		t.Errorf("%d more looks: begin started more than one loop", n)
	}
}

// gatedTagged is vault metadata whose look for tagged notes waits to be
// let go, and says when it is entered and when it is over.
type gatedTagged struct {
	taggedOnly
	entered, release chan struct{}
	seq              *atomic.Int32
	over             *atomic.Int32
}

func (m gatedTagged) Tagged(context.Context, string) ([]string, error) {
	close(m.entered)
	<-m.release
	m.over.Store(m.seq.Add(1))
	return nil, nil
}

// TestFirstPromptsListWaitsForTheFirstLook: a prompts/list sent right
// after initialize is answered once the first look at the vault is over,
// so that it holds the prompt notes (it answered at once, without them,
// for about a second after connecting).
func TestFirstPromptsListWaitsForTheFirstLook(t *testing.T) {
	var seq, over atomic.Int32
	meta := gatedTagged{entered: make(chan struct{}), release: make(chan struct{}), seq: &seq, over: &over}
	ps := &promptSet{vault: tools.Vault{Meta: meta}, logger: slog.New(slog.DiscardHandler), every: time.Hour, folder: func() bool { return true }}
	defer ps.close()
	listed := make(chan int32, 1)
	go func() {
		ps.listing(context.Background())
		listed <- seq.Add(1)
	}()
	select {
	case <-meta.entered:
	case <-time.After(30 * time.Second):
		t.Fatal("the first look did not begin within 30 s")
	}
	close(meta.release)
	select {
	case at := <-listed:
		if at < over.Load() || over.Load() == 0 {
			t.Errorf("prompts/list answered (step %d) before the first look was over (step %d)", at, over.Load())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("prompts/list did not answer within 30 s")
	}
}
