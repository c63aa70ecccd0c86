//go:build !linux || fallback

package atomicfile

import "os"

// HasLeases: no leases here (see lease_linux.go).
const HasLeases = false

// takeLease: only Linux offers leases (see lease_linux.go). Elsewhere
// updates fall back on watching a file's size and time; docs/data-safety.md
// says what that leaves open.
func takeLease(*os.File) leaseState { return noLease }

func leaseBroken(*os.File) bool { return true }

func dropLease(*os.File) {}
