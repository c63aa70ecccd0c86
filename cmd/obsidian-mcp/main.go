// Command obsidian-mcp is a Model Context Protocol server for Obsidian vaults.
// See the README for installation and configuration.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/obsidian-mcp/obsidian-mcp/internal/app"
	"github.com/obsidian-mcp/obsidian-mcp/internal/shutdown"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// Windows has no signal for another program to send: a named event.
	ctx, unwatch := shutdown.Requested(ctx)
	defer unwatch()
	// A client that closes its end makes writes to stdout fail. Go would
	// kill the process with SIGPIPE on the spot, leaving running CLI
	// processes behind; with SIGPIPE delivered to a channel instead, the
	// write returns EPIPE and the server cancels its calls and exits.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	// stdout carries JSON-RPC and nothing else: keep the real one for the
	// protocol and point os.Stdout at stderr, so a stray print cannot
	// corrupt the stream.
	rpcOut := os.Stdout
	os.Stdout = os.Stderr
	code := app.Main(ctx, os.Args[1:], os.Getenv, app.Streams{In: os.Stdin, Out: rpcOut, Err: os.Stderr}, version)
	unwatch()
	stop()
	os.Exit(code)
}
