package bases

import (
	"context"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/evalbudget"
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
type budget = evalbudget.Meter

func newBudget(ctx context.Context, of Budget) *budget {
	return evalbudget.New(ctx, of, Budget{Steps: DefaultBudget, Time: MaxEvalTime})
}

// isStopped reports whether err stopped the query (rather than being the
// base's fault).
func isStopped(err error) bool { return evalbudget.IsStopped(err) }
