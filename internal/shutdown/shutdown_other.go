//go:build !windows

package shutdown

import "context"

// requested: signals ask for a stop here (SIGTERM); nothing to watch.
func requested(parent context.Context) (context.Context, context.CancelFunc) {
	return parent, func() {}
}
