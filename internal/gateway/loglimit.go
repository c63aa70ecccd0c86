package gateway

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// logLimit keeps what a server writes from flooding the gateway's log: a
// server that prints megabytes of junk would otherwise become hundreds of
// megabytes of log lines. Lines pass at a steady rate with a burst; those
// over it are counted, and the count is logged with the next line that
// passes.
type logLimit struct {
	lim *rate.Limiter

	mu      sync.Mutex
	dropped int
}

// Default pace of a server's lines in the log: a burst of 50, then 10 a
// second.
const (
	logBurst = 50
	logRate  = 10
)

func newLogLimit() *logLimit {
	return &logLimit{lim: rate.NewLimiter(rate.Limit(logRate), logBurst)}
}

// log logs msg with args at level, unless the server has used its share;
// then it only counts.
func (l *logLimit) log(logger *slog.Logger, level slog.Level, msg string, args ...any) {
	if !l.lim.AllowN(time.Now(), 1) {
		l.mu.Lock()
		l.dropped++
		l.mu.Unlock()
		return
	}
	l.flush(logger)
	logger.Log(context.Background(), level, msg, args...)
}

// flush logs how many lines were left out since the last line logged: with
// the next line that passes, and when the process ends.
func (l *logLimit) flush(logger *slog.Logger) {
	l.mu.Lock()
	dropped := l.dropped
	l.dropped = 0
	l.mu.Unlock()
	if dropped > 0 {
		logger.Warn("the server wrote more than the log takes; lines were left out", "left_out", dropped, "pace", "10 lines a second after a burst of 50")
	}
}
