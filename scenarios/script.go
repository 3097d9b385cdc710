package scenarios

import (
	"vsrsim/sim"
	"vsrsim/vsr"
)

// step is one action of a script: it waits until its condition holds, then
// acts once. Steps run in order; a step's condition is checked at the start of
// every tick until it holds.
type step struct {
	when func(c *sim.Cluster, s *script) bool
	do   func(c *sim.Cluster, s *script)
}

// script runs steps over virtual time. It implements sim.Script.
type script struct {
	steps []step
	next  int
	fired uint64 // tick the previous step fired
	flags map[string]bool
	ops   map[string]uint64
	watch bool
}

func newScript(steps ...step) *script {
	return &script{steps: steps, flags: map[string]bool{}, ops: map[string]uint64{}}
}

// At runs every step whose condition holds now, in order.
func (s *script) At(c *sim.Cluster, tick uint64) {
	for s.next < len(s.steps) {
		st := s.steps[s.next]
		if st.when != nil && !st.when(c, s) {
			return
		}
		if st.do != nil {
			st.do(c, s)
		}
		s.next++
		s.fired = tick
	}
}

// Conditions.

func atTick(t uint64) func(*sim.Cluster, *script) bool {
	return func(c *sim.Cluster, _ *script) bool { return c.Now() >= t }
}

func afterTicks(d uint64) func(*sim.Cluster, *script) bool {
	return func(c *sim.Cluster, s *script) bool { return c.Now() >= s.fired+d }
}

func committed(i int, op uint64) func(*sim.Cluster, *script) bool {
	return func(c *sim.Cluster, _ *script) bool {
		info, ok := c.Info(i)
		return ok && info.CommitMin >= op
	}
}

func journaled(i int, op uint64) func(*sim.Cluster, *script) bool {
	return func(c *sim.Cluster, _ *script) bool { return c.Journaled(i, op) }
}

func flag(name string) func(*sim.Cluster, *script) bool {
	return func(_ *sim.Cluster, s *script) bool { return s.flags[name] }
}

func status(i int, st vsr.Status) func(*sim.Cluster, *script) bool {
	return func(c *sim.Cluster, _ *script) bool {
		info, ok := c.Info(i)
		return ok && info.Status == st
	}
}

func all(conds ...func(*sim.Cluster, *script) bool) func(*sim.Cluster, *script) bool {
	return func(c *sim.Cluster, s *script) bool {
		for _, f := range conds {
			if !f(c, s) {
				return false
			}
		}
		return true
	}
}

// Actions.

func crash(i int) func(*sim.Cluster, *script) {
	return func(c *sim.Cluster, _ *script) { c.Crash(i) }
}

func restart(i int) func(*sim.Cluster, *script) {
	return func(c *sim.Cluster, _ *script) { c.Restart(i) }
}

func note(text string) func(*sim.Cluster, *script) {
	return func(c *sim.Cluster, _ *script) { c.Note(text) }
}

func do(fns ...func(*sim.Cluster, *script)) func(*sim.Cluster, *script) {
	return func(c *sim.Cluster, s *script) {
		for _, f := range fns {
			f(c, s)
		}
	}
}

// dropIf installs a packet filter: matching packets are dropped at submit.
// The filter sees the script's own state (flags, ops), never the cluster's
// configured script, which a caller may have wrapped.
func dropIf(match func(c *sim.Cluster, s *script, from, to int, m *vsr.Message) bool) func(*sim.Cluster, *script) {
	return func(c *sim.Cluster, s *script) {
		c.Network().AddFilter(func(from, to int, m vsr.Message) bool { return match(c, s, from, to, &m) })
	}
}

// inView reports whether replica i is up and Normal in view v or later.
func inView(c *sim.Cluster, i int, v uint64) bool {
	info, ok := c.Info(i)
	return ok && info.Status == vsr.StatusNormal && info.View >= v
}

// cut cuts the directed links between every pair of the two groups.
func cut(down bool, a, b []int) func(*sim.Cluster, *script) {
	return func(c *sim.Cluster, _ *script) {
		for _, x := range a {
			for _, y := range b {
				c.Network().SetLinkDown(x, y, down)
				c.Network().SetLinkDown(y, x, down)
			}
		}
	}
}
