package sim

import (
	"fmt"
	"vsrsim/vsr"
)

// Expectation is a progress check a run makes over a window of ticks,
// observing only what a user of the cluster would see: replies reaching
// clients, and a new view becoming normal. A miss is a liveness verdict.
type Expectation struct {
	Kind     ExpectKind
	From, To uint64 // the window, both ends included
	Min      uint64 // served: the least number of replies
	Max      uint64 // view changes at most: the most completed in the window
	Where    string // where it was written, e.g. "f.vsr:12", for the evidence
}

// ExpectKind is what an expectation counts.
type ExpectKind uint8

const (
	// ExpectServed counts client replies delivered in the window.
	ExpectServed ExpectKind = iota + 1
	// ExpectViewChange counts view changes completed in the window: a replica
	// turning normal in a view above every view any replica was normal in.
	ExpectViewChange
	// ExpectViewChangesAtMost bounds the view changes completed in the
	// window, counted as ExpectViewChange counts them: a view that must hold.
	ExpectViewChangesAtMost
)

func (e Expectation) String() string {
	switch e.Kind {
	case ExpectServed:
		return fmt.Sprintf("expect served %d %d >= %d", e.From, e.To, e.Min)
	case ExpectViewChangesAtMost:
		return fmt.Sprintf("expect view-changes %d %d <= %d", e.From, e.To, e.Max)
	}
	return fmt.Sprintf("expect view-change %d %d", e.From, e.To)
}

func (e Expectation) validate(total uint64) error {
	if e.Kind != ExpectServed && e.Kind != ExpectViewChange && e.Kind != ExpectViewChangesAtMost {
		return fmt.Errorf("%s: unknown expectation", e.Where)
	}
	if e.From > e.To {
		return fmt.Errorf("%s: window %d..%d ends before it starts", e.Where, e.From, e.To)
	}
	if e.To > total {
		return fmt.Errorf("%s: window ends at %d, after the run's last tick %d", e.Where, e.To, total)
	}
	return nil
}

// expectState judges a run's expectations as it goes.
type expectState struct {
	list       []Expectation
	before     []uint64 // served: replies delivered before the window
	seen       []uint64 // view-change: completions inside the window
	normalView uint64
	miss       string
}

func (c *Cluster) initExpect() {
	x := &c.expect
	x.list = c.cfg.Expect
	if len(x.list) == 0 {
		return
	}
	x.before = make([]uint64, len(x.list))
	x.seen = make([]uint64, len(x.list))
	c.Watch(func(e *vsr.Event) {
		if e.Kind != vsr.EvStatus || e.StatusChanged().Status != vsr.StatusNormal || e.View <= x.normalView {
			return
		}
		x.normalView = e.View
		for i, ex := range x.list {
			if ex.Kind != ExpectServed && c.now >= ex.From && c.now <= ex.To {
				x.seen[i]++
			}
		}
	})
}

// tickExpect runs at the end of every tick: it notes the replies before each
// window and judges each window that ends now.
func (c *Cluster) tickExpect() {
	x := &c.expect
	for i, ex := range x.list {
		if ex.From == c.now+1 {
			x.before[i] = c.stats.Replies
		}
		if ex.To == c.now && x.miss == "" {
			x.miss = x.judge(i, c.stats.Replies, "")
		}
	}
}

// finishExpect judges the windows a run that ends at now has not closed, on
// what it saw up to now.
func (c *Cluster) finishExpect() string {
	x := &c.expect
	for i, ex := range x.list {
		if x.miss == "" && ex.To > c.now {
			x.miss = x.judge(i, c.stats.Replies, fmt.Sprintf(" (the run ended at %d)", c.now))
		}
	}
	return x.miss
}

func (x *expectState) judge(i int, replies uint64, note string) string {
	ex := x.list[i]
	switch ex.Kind {
	case ExpectServed:
		if got := replies - x.before[i]; got < ex.Min {
			return fmt.Sprintf("%s missed (%s): %d replies delivered in ticks %d..%d%s",
				ex, ex.Where, got, ex.From, ex.To, note)
		}
	case ExpectViewChangesAtMost:
		if x.seen[i] > ex.Max {
			return fmt.Sprintf("%s missed (%s): %d view changes completed in ticks %d..%d (highest normal view %d)%s",
				ex, ex.Where, x.seen[i], ex.From, ex.To, x.normalView, note)
		}
	case ExpectViewChange:
		if x.seen[i] == 0 {
			return fmt.Sprintf("%s missed (%s): no view change completed in ticks %d..%d (highest normal view %d)%s",
				ex, ex.Where, ex.From, ex.To, x.normalView, note)
		}
	}
	return ""
}
