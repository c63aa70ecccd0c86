package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// promptNote is a vault note served as a prompt.
const promptNote = "---\ntags: [mcp-prompt]\ndescription: Summarise a note\n---\nSummarise {{note}} for {{audience}}.\n"

// checkPrompts drives one client through the vault's prompts: listed once
// they are found, filled in, refused without an argument, and a new
// prompt note announced with notifications/prompts/list_changed.
func checkPrompts(t *testing.T, cs *mcp.ClientSession, changed <-chan struct{}, vault string) {
	t.Helper()
	names := func() []string {
		res, err := cs.ListPrompts(t.Context(), nil)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, p := range res.Prompts {
			out = append(out, p.Name)
		}
		return out
	}
	wait := func(what string, want []string) {
		t.Helper()
		deadline := time.After(30 * time.Second)
		for !slices.Equal(names(), want) {
			select {
			case <-changed:
			case <-deadline:
				t.Fatalf("%s: prompts %q, want %q", what, names(), want)
			}
		}
	}
	wait("at start", []string{"Summary"})
	res, err := cs.GetPrompt(t.Context(), &mcp.GetPromptParams{Name: "Summary", Arguments: map[string]string{"note": "[[Plan]]", "audience": "the team"}})
	if err != nil || len(res.Messages) != 1 || res.Description != "Summarise a note" {
		t.Fatalf("get: %+v, %v", res, err)
	}
	if text, ok := res.Messages[0].Content.(*mcp.TextContent); !ok || text.Text != "Summarise [[Plan]] for the team." || res.Messages[0].Role != "user" {
		t.Errorf("message %+v", res.Messages[0])
	}
	_, err = cs.GetPrompt(t.Context(), &mcp.GetPromptParams{Name: "Summary", Arguments: map[string]string{"note": "x"}})
	var rpc *jsonrpc.Error
	if !errors.As(err, &rpc) || rpc.Code != -32602 {
		t.Errorf("a missing argument: %v", err)
	}
	for len(changed) > 0 { // what the first list already showed
		<-changed
	}
	if err := os.WriteFile(filepath.Join(vault, "Prompts", "Standup.md"), []byte("#mcp-prompt\nWhat did I do yesterday?\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	select {
	case <-changed:
	case <-time.After(30 * time.Second):
		t.Fatal("no notifications/prompts/list_changed after a prompt note was added")
	}
	wait("after a note was added", []string{"Standup", "Summary"})
}

func promptVault(t *testing.T) string {
	vault := t.TempDir()
	if err := os.MkdirAll(filepath.Join(vault, "Prompts"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(vault, "Prompts", "Summary.md"), []byte(promptNote), 0o644); err != nil {
		t.Fatal(err)
	}
	return vault
}

func promptClient(changed chan struct{}) *mcp.ClientOptions {
	return &mcp.ClientOptions{PromptListChangedHandler: func(context.Context, *mcp.PromptListChangedRequest) {
		select {
		case changed <- struct{}{}:
		default:
		}
	}}
}

func TestPromptsOverStdio(t *testing.T) {
	t.Parallel()
	vault := promptVault(t)
	changed := make(chan struct{}, 8)
	cs, _ := goSDKWith(t, time.Minute, promptClient(changed), "OBSIDIAN_BACKEND=native", "OBSIDIAN_VAULT_PATH="+vault)
	checkPrompts(t, cs, changed, vault)
}

func TestPromptsOverHTTP(t *testing.T) {
	t.Parallel()
	vault := promptVault(t)
	s := serve(t, nil, "OBSIDIAN_BACKEND=native", "OBSIDIAN_VAULT_PATH="+vault)
	changed := make(chan struct{}, 8)
	client := mcp.NewClient(&mcp.Implementation{Name: "go-sdk-prompts", Version: "1.0.0"}, promptClient(changed))
	cs, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: s.url}, nil)
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, s.stderr)
	}
	checkPrompts(t, cs, changed, vault)
	_ = cs.Close()
	s.stop(t)
}
