//go:build !windows

package shutdown

import (
	"context"
	"errors"
	"time"
)

// requested: signals ask for a stop here (SIGTERM); nothing to watch.
func requested(parent context.Context) (context.Context, context.CancelFunc) {
	return parent, func() {}
}

func ask(int, time.Duration) error {
	return errors.New("no stop event here: send the process SIGTERM")
}
