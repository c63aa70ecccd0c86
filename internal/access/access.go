// Package access carries, with a request, what the client that sent it
// may do, when that is less than the server allows: an OAuth token
// granted vault:read alone makes its requests read-only, refused by the
// same guard as a server started with --read-only. Whoever authenticates
// the client (an HTTP face) says so; the tools' guard reads it, knowing
// nothing of how the client came.
package access

import "context"

type readOnlyKey struct{}

// WithReadOnly marks ctx's requests read-only, rule saying why (for the
// refusal).
func WithReadOnly(ctx context.Context, rule string) context.Context {
	return context.WithValue(ctx, readOnlyKey{}, rule)
}

// ReadOnly reports whether ctx's requests are read-only, and why.
func ReadOnly(ctx context.Context) (rule string, ok bool) {
	rule, ok = ctx.Value(readOnlyKey{}).(string)
	return rule, ok
}
