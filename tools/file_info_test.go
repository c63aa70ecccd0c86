package tools

import (
	"context"
	"testing"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
)

func TestFileInfo(t *testing.T) {
	t.Parallel()
	cases := []toolCase{
		{name: "info", args: `{"path":"a.md"}`, wantCall: "FileInfo path=a.md name=",
			wantData: `{"success":true,"data":{"path":"a.md","name":"a","extension":"md","size":42,"created":"2026-11-21T10:00:00Z","modified":"2026-11-21T10:00:00Z"}}`},
		{name: "timeout", args: `{"path":"a.md"}`, err: errors.E(errors.Timeout, "timed out").WithCause(context.DeadlineExceeded), wantCall: "FileInfo path=a.md name=", wantKind: errors.Timeout},
		{name: "plain error is internal", args: `{"path":"a.md"}`, err: errors.New("boom"), wantCall: "FileInfo path=a.md name=", wantKind: errors.Internal, wantMsg: "boom"},
	}
	runCases(t, "obsidian_file_info", append(cases, withCall(locatorCases(""), "FileInfo path=a.md name=")...))
}
