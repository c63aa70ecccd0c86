package auth

import (
	"context"
	"testing"
)

// TestGuard: a tool that writes is refused by the server's setting before
// the client's grant (no token lifts the setting), by the grant when the
// server takes writes (a step-up would help), and allowed otherwise; a
// tool that reads is always allowed.
func TestGuard(t *testing.T) {
	t.Parallel()
	writes := func(tool string) bool { return tool == "write" }
	limited := Limit(context.Background(), "reads only")
	cases := []struct {
		name    string
		guard   Guard
		ctx     context.Context
		tool    string
		refused bool
		rule    string
		byGrant bool
	}{
		{"a read, read-only server", Guard{Writes: writes, ReadOnly: "--read-only"}, limited, "read", false, "", false},
		{"a write, read-only server", Guard{Writes: writes, ReadOnly: "--read-only"}, context.Background(), "write", true, "--read-only", false},
		{"a write, read-only server, limited client", Guard{Writes: writes, ReadOnly: "--read-only"}, limited, "write", true, "--read-only", false},
		{"a write, limited client", Guard{Writes: writes}, limited, "write", true, "reads only", true},
		{"a write, free client", Guard{Writes: writes}, context.Background(), "write", false, "", false},
		{"a read, limited client", Guard{Writes: writes}, limited, "read", false, "", false},
		{"another server's tool, limited client", Guard{Writes: Writing}, limited, "anything", true, "reads only", true},
		{"the zero guard", Guard{}, limited, "write", false, "", false},
	}
	for _, c := range cases {
		no := c.guard.Check(c.ctx, c.tool)
		if (no != nil) != c.refused {
			t.Errorf("%s: refused %v, want %v", c.name, no != nil, c.refused)
			continue
		}
		if no != nil && (no.Tool != c.tool || no.Rule != c.rule || no.ByGrant != c.byGrant) {
			t.Errorf("%s: %+v, want tool %s, rule %q, by grant %v", c.name, *no, c.tool, c.rule, c.byGrant)
		}
	}
}
