package note

import "context"

// Progress receives how far a long operation has come: done of total
// units, and what it is doing. A tool call whose client asked for
// progress (a progressToken) carries one in its context.
type Progress func(done, total int, message string)

type progressKey struct{}

// WithProgress returns ctx carrying p.
func WithProgress(ctx context.Context, p Progress) context.Context {
	return context.WithValue(ctx, progressKey{}, p)
}

// ProgressOf is the Progress ctx carries; a no-op when there is none.
func ProgressOf(ctx context.Context) Progress {
	if p, ok := ctx.Value(progressKey{}).(Progress); ok && p != nil {
		return p
	}
	return func(int, int, string) {}
}
