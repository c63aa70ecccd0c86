// Package evalbudget bounds an evaluator's work: a count of steps, a
// time, and the caller's context, whichever ends first. The Bases and
// Dataview engines spend from one Meter per query, so that no vault file
// or query can keep the server busy past what a call may take.
package evalbudget

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Limits is what one query may spend; zero fields take the caller's
// defaults.
type Limits struct {
	Steps int64
	Time  time.Duration
}

// Meter counts a query's steps and watches its context.
type Meter struct {
	ctx      context.Context
	of       Limits
	left     int64
	until    int64 // steps before the context and the clock are looked at again
	deadline time.Time
}

// New starts a meter; zero limits take def.
func New(ctx context.Context, of, def Limits) *Meter {
	if of.Steps <= 0 {
		of.Steps = def.Steps
	}
	if of.Time <= 0 {
		of.Time = def.Time
	}
	return &Meter{ctx: ctx, of: of, left: of.Steps, deadline: time.Now().Add(of.Time)}
}

// Stopped is why a query stopped early: cancelled, out of time, or out
// of steps.
type Stopped struct{ Why string }

func (e *Stopped) Error() string { return e.Why }

// IsStopped reports whether err stopped the query (rather than being the
// query's own fault).
func IsStopped(err error) bool {
	if err == nil { // asked of every evaluation: As would allocate its target
		return false
	}
	var s *Stopped
	return errors.As(err, &s)
}

// ctxEvery is how many steps go by between looks at the context: cheap
// enough to be free, often enough that a cancel is seen within
// milliseconds.
const ctxEvery = 4096

// Spend takes n steps, and says when the query must stop. A nil meter
// never stops (tests that evaluate one expression).
func (b *Meter) Spend(n int) error {
	if b == nil {
		return nil
	}
	b.left -= int64(n)
	b.until -= int64(n)
	if b.left < 0 {
		return &Stopped{fmt.Sprintf("the evaluation budget of %d steps ran out", b.of.Steps)}
	}
	if b.until <= 0 {
		b.until = ctxEvery
		if err := b.ctx.Err(); err != nil {
			why := "the call was cancelled"
			if errors.Is(err, context.DeadlineExceeded) {
				why = "the call's time ran out"
			}
			return &Stopped{why}
		}
		if time.Now().After(b.deadline) {
			return &Stopped{fmt.Sprintf("the evaluation's time of %v ran out", b.of.Time)}
		}
	}
	return nil
}
