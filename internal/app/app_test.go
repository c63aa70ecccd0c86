package app

import (
	"log/slog"
	"runtime/debug"
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

// TestBuildRevision: meta.git_sha is never empty: the commit, else the
// module version, else "unknown".
func TestBuildRevision(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		bi   *debug.BuildInfo
		ok   bool
		want string
	}{
		{&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0123456789abcdef0123"}}}, true, "0123456789ab"},
		{&debug.BuildInfo{Main: debug.Module{Version: "v1.4.0"}}, true, "v1.4.0"},
		{&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, true, "unknown"},
		{nil, false, "unknown"},
	} {
		if got := buildRevision(tc.bi, tc.ok); got != tc.want {
			t.Errorf("buildRevision(%+v) = %q, want %q", tc.bi, got, tc.want)
		}
	}
}
