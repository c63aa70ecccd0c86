//go:build !unix

package app

import "io"

// outputClosed cannot tell here; a failed write still reveals a client
// that went away.
func outputClosed(io.Writer) bool { return false }
