package app

import (
	"context"
	"errors"
	"flag"
	"fmt"

	"github.com/obsidian-mcp/obsidian-mcp/internal/bridge"
	"github.com/obsidian-mcp/obsidian-mcp/internal/transport/stdio"
	"github.com/obsidian-mcp/obsidian-mcp/internal/vaultserver"
)

// mainBridge is Main for `obsidian-mcp bridge`.
func mainBridge(ctx context.Context, args []string, getenv func(string) string, std Streams, version string) int {
	c, err := bridge.ParseConfig(args, getenv)
	switch {
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprint(std.Out, bridge.Usage())
		return 0
	case err != nil:
		return configError(std.Err, "obsidian-mcp bridge", err, "`obsidian-mcp doctor --bridge` checks the connection")
	case c.ShowVersion:
		fmt.Fprintf(std.Out, "obsidian-mcp %s\n", version)
		return 0
	}
	logger := NewLogger(std.Err, c.LogLevel)
	for _, w := range c.Warnings {
		logger.Warn("setting ignored: " + w)
	}
	if err := bridge.Run(ctx, c, std.In, std.Out, logger, vaultserver.Name, version, bridge.DefaultBackoff, func() bool { return stdio.OutputClosed(std.Out) }); err != nil {
		if errors.Is(err, context.Canceled) {
			logger.Info("stopped by signal")
			return 0
		}
		logger.Error("bridge stopped", "err", err)
		return 1
	}
	return 0
}
