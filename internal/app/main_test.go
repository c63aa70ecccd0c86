package app

import (
	"context"
	"flag"
	"os"
	"testing"

	"github.com/obsidian-mcp/obsidian-mcp/internal/obsidiantest"
	"github.com/obsidian-mcp/obsidian-mcp/internal/testenv"
)

func TestMain(m *testing.M) {
	// The test binary as a real stdio server (this package's Main), for
	// tests that need one to start, such as doctor --gateway's command
	// namespaces.
	if os.Getenv(stdioServerEnv) != "" {
		os.Exit(Main(context.Background(), os.Args[1:], os.Getenv, Streams{In: os.Stdin, Out: os.Stdout, Err: os.Stderr}, "7.7.7-test"))
	}
	obsidiantest.Main(testenv.Isolated{M: m})
}

const stdioServerEnv = "APP_TEST_STDIO_SERVER"

var update = flag.Bool("update", false, "rewrite golden transcripts and README sections")
