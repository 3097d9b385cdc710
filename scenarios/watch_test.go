package scenarios_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"vsrsim/scenarios"
	"vsrsim/sim"
	"vsrsim/verify"
	"vsrsim/vsr"
)

// eventLog wraps a scenario's script and keeps every replica event that keep
// accepts, in order.
type eventLog struct {
	inner    sim.Script
	keep     func(e *vsr.Event) bool
	watching bool
	events   []vsr.Event
}

func (w *eventLog) At(c *sim.Cluster, tick uint64) {
	if !w.watching {
		w.watching = true
		c.Watch(func(e *vsr.Event) {
			if w.keep(e) {
				w.events = append(w.events, *e)
			}
		})
	}
	w.inner.At(c, tick)
}

// of returns the kept events of one kind.
func (w *eventLog) of(kind vsr.EventKind) []vsr.Event {
	var out []vsr.Event
	for _, e := range w.events {
		if e.Kind == kind {
			out = append(out, e)
		}
	}
	return out
}

// runLogged runs scenario s with bugs and returns its result with the events
// keep accepted.
func runLogged(t *testing.T, s scenarios.Scenario, seed uint64, bugs []string, keep func(e *vsr.Event) bool) (sim.Result, *eventLog) {
	t.Helper()
	cfg, at := shapeConfig(t, s, seed, bugs)
	w := &eventLog{inner: at.Script, keep: keep}
	at.Script = w
	res, err := verify.Run(cfg, at)
	require.NoError(t, err)
	return res, w
}
