package bases

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// DefaultBudget is how many evaluation steps one query may take (a node
// of an expression is one; a list method costs one per item it walks),
// and MaxEvalTime how long it may run, whichever ends first: a base past
// either is answered with the rows it has, marked partial. A tool call's
// own deadline and its cancellation stop it sooner, the same way.
const (
	DefaultBudget = 20_000_000
	MaxEvalTime   = 3 * time.Second
)

// budget counts a query's steps and watches its context.
type budget struct {
	ctx      context.Context
	of       Budget
	left     int64
	until    int64 // steps before the context and the clock are looked at again
	deadline time.Time
}

func newBudget(ctx context.Context, of Budget) *budget {
	if of.Steps <= 0 {
		of.Steps = DefaultBudget
	}
	if of.Time <= 0 {
		of.Time = MaxEvalTime
	}
	return &budget{ctx: ctx, of: of, left: of.Steps, deadline: time.Now().Add(of.Time)}
}

// errStopped is why a query stopped early: cancelled, out of time, or
// out of steps.
type errStopped struct{ why string }

func (e *errStopped) Error() string { return e.why }

// isStopped reports whether err stopped the query (rather than being the
// base's fault).
func isStopped(err error) bool {
	var s *errStopped
	return errors.As(err, &s)
}

// ctxEvery is how many steps go by between looks at the context: cheap
// enough to be free, often enough that a cancel is seen within
// milliseconds.
const ctxEvery = 4096

// spend takes n steps, and says when the query must stop. A nil budget
// never stops (tests that evaluate one expression).
func (b *budget) spend(n int) error {
	if b == nil {
		return nil
	}
	b.left -= int64(n)
	b.until -= int64(n)
	if b.left < 0 {
		return &errStopped{fmt.Sprintf("the evaluation budget of %d steps ran out", b.of.Steps)}
	}
	if b.until <= 0 {
		b.until = ctxEvery
		if err := b.ctx.Err(); err != nil {
			why := "the call was cancelled"
			if errors.Is(err, context.DeadlineExceeded) {
				why = "the call's time ran out"
			}
			return &errStopped{why}
		}
		if time.Now().After(b.deadline) {
			return &errStopped{fmt.Sprintf("the evaluation's time of %v ran out", b.of.Time)}
		}
	}
	return nil
}
