package app

import (
	"log/slog"
	"strings"
	"testing"
)

func TestLoggerPlainWhenNotATerminal(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	NewLogger(&b, slog.LevelInfo).Info("tool call", "tool", "obsidian_read_note", "outcome", "ok")
	NewLogger(&b, slog.LevelInfo).Debug("hidden at info")
	got := b.String()
	if strings.Contains(got, "\x1b[") || !strings.Contains(got, "tool=obsidian_read_note") || strings.Contains(got, "hidden") {
		t.Errorf("log output = %q; want plain text at info level", got)
	}
}
