//go:build race

package vaultserver

// raceEnabled: the race detector makes encoding/json ten times slower, so
// the largest payloads shrink under it; the plain test run keeps them whole.
const raceEnabled = true
