// Package auth is who may do what, decided once: what a client's
// credentials granted travels with its request (Limit), and a Guard reads
// it, beside the server's own settings, for every tool a request names.
// The tool list leaves out what the guard refuses, a call to it is
// refused with the guard's words, and an HTTP face asks the same guard
// whether to answer with a scope challenge (step-up) instead.
//
// Below it in the tree: oauth (tokens, scopes, a resource's metadata),
// bearer (an HTTP face's token check, which calls Limit) and authserver
// (the built-in authorization server and its `oauth` command).
package auth

import "context"

type limitKey struct{}

// Limit marks ctx's requests as a client's that was granted reading
// alone (an OAuth token with vault:read), rule saying so for refusals.
func Limit(ctx context.Context, rule string) context.Context {
	return context.WithValue(ctx, limitKey{}, rule)
}

// limited reports whether ctx's client was granted reading alone, and by
// what rule.
func limited(ctx context.Context) (string, bool) {
	rule, ok := ctx.Value(limitKey{}).(string)
	return rule, ok
}

type clientKey struct{}

// As marks ctx's requests as sent with these credentials, named for a
// person reading the change record: an OAuth client, or the API key.
func As(ctx context.Context, who string) context.Context {
	return context.WithValue(ctx, clientKey{}, who)
}

// Who names the credentials ctx's request came with, or "" (none: a
// local face without a key).
func Who(ctx context.Context) string {
	who, _ := ctx.Value(clientKey{}).(string)
	return who
}

// Guard decides whether a request may call a tool. A tool that writes is
// refused when the server takes no writes (ReadOnly names the setting) or
// the request's client was granted reading alone (Limit); every other
// call is allowed. The zero Guard allows everything.
type Guard struct {
	// Writes answers whether the tool named changes anything; the server
	// that has the tools answers it. Nil: nothing writes.
	Writes func(tool string) bool
	// ReadOnly, when not empty, is the setting that makes the server
	// read-only.
	ReadOnly string
}

// Refusal is why a guard refused a call.
type Refusal struct {
	Tool string
	// Rule is the setting or grant that refuses it.
	Rule string
	// ByGrant is true when the client's grant alone refuses it, so that a
	// token granting more would be allowed (step-up).
	ByGrant bool
}

// Check is nil when ctx's request may call tool, or why not. The
// server's setting is named before the client's grant: no token can lift
// it.
func (g Guard) Check(ctx context.Context, tool string) *Refusal {
	if g.Writes == nil || !g.Writes(tool) {
		return nil
	}
	if g.ReadOnly != "" {
		return &Refusal{Tool: tool, Rule: g.ReadOnly}
	}
	if rule, ok := limited(ctx); ok {
		return &Refusal{Tool: tool, Rule: rule, ByGrant: true}
	}
	return nil
}

// Writing is a Guard's Writes for a server none of whose tools can be
// vouched for as changing nothing (a gateway namespace running another
// server).
func Writing(string) bool { return true }
