package sweep

import "time"

// budget is a sweep's wall-time allowance (Options.Budget). It is read only
// between runs, to decide whether another seed starts; nothing inside a run
// sees the clock.
type budget struct {
	limit time.Duration
	now   func() time.Time
	start time.Time
}

func newBudget(limit time.Duration, now func() time.Time) budget {
	if now == nil {
		now = time.Now
	}
	return budget{limit: limit, now: now, start: now()}
}

// spent reports whether the allowance is used up; never without one.
func (b budget) spent() bool {
	return b.limit > 0 && b.now().Sub(b.start) >= b.limit
}
