//go:build !unix

package stdio

import "io"

// OutputClosed cannot tell here; a failed write still reveals a client
// that went away.
func OutputClosed(io.Writer) bool { return false }
