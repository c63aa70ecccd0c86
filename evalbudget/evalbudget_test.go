package evalbudget

import (
	"context"
	"strings"
	"testing"
	"time"
)

func TestMeter(t *testing.T) {
	def := Limits{Steps: 10_000, Time: time.Minute}
	m := New(context.Background(), Limits{Steps: 100}, def)
	if err := m.Spend(100); err != nil {
		t.Fatalf("within the budget: %v", err)
	}
	if err := m.Spend(1); !IsStopped(err) || !strings.Contains(err.Error(), "budget of 100 steps") {
		t.Errorf("over the budget: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	m = New(ctx, Limits{}, def)
	cancel()
	if err := m.Spend(ctxEvery); !IsStopped(err) || !strings.Contains(err.Error(), "cancelled") {
		t.Errorf("cancelled: %v", err)
	}
	var nilMeter *Meter
	if err := nilMeter.Spend(1 << 30); err != nil {
		t.Errorf("a nil meter stopped: %v", err)
	}
}
