// Package conformance holds the one test suite every backend must pass:
// a table of scenarios (every tool, every error kind, adversarial content,
// attempts to leave the vault, link rewriting) run against the native
// engine, the CLI backend over the fake obsidian, and the auto router
// serving from the folder while the app is down. It has no code of its
// own outside its tests.
package conformance
