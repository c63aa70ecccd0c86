//go:build !race

package vaultserver

const raceEnabled = false
