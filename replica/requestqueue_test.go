package replica

import (
	"testing"
	"vsrsim/vsr"

	"github.com/stretchr/testify/assert"
)

// TestRequestQueueBound: with its pipeline full (no backup's ack arrives), a
// primary queues further requests up to its RequestQueue option and drops
// the rest as request-queue-full; the default bound holds them all.
func TestRequestQueueBound(t *testing.T) {
	const waiting = 4 // requests past a full pipeline
	for _, tc := range []struct {
		name  string
		queue int
		drops int
	}{
		{"default bound", 0, 0},
		{"bound of one", 1, waiting - 1},
		{"bound of three", 3, waiting - 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newTestCluster(t, 3, func(o *Options) { o.RequestQueue = tc.queue })
			c.cutLink(1, 0)
			c.cutLink(2, 0)
			for k := 0; k < vsr.PipelineMax+waiting; k++ {
				c.request(0, k, 1, put(uint32(k), 1))
			}
			c.deliverAll()
			assert.Len(t, c.drops(0, "request-queue-full"), tc.drops)
			assert.Len(t, c.r(0).pipeline, vsr.PipelineMax)
		})
	}
}

// An out-of-range bound is a one-line error, not a run.
func TestRequestQueueValidate(t *testing.T) {
	for _, q := range []int{-1, vsr.RequestQueueMax + 1} {
		o := DefaultOptions(0, 3)
		o.RequestQueue = q
		assert.Error(t, o.Validate(), "queue %d", q)
	}
}
