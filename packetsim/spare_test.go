package packetsim

import (
	"slices"
	"testing"

	testassert "github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/prng"
)

// A network made from the memory an earlier one recycled, with packets still
// in flight when it stopped, runs exactly as a fresh one: same deliveries,
// same drops, same stats. The earlier network is left busy on purpose, so a
// list that came back uncleared would show.
func TestRecycledNetworkRunsAsFresh(t *testing.T) {
	cases := []struct {
		name        string
		seed, first uint64
		opts        func() Options
	}{
		{"faulty after faulty", 1, 7, faultyOptions},
		{"faulty after small limit", 2, 3, func() Options {
			o := faultyOptions()
			o.QueueLimit = 64
			return o
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			earlier := newNetwork(t, tc.opts(), tc.first)
			w := newWorkload(tc.first, earlier.Options().Nodes)
			run(earlier, 500, func(now uint64) { w.submit(now, earlier) })
			// Leave every list busy: packets parked on held links, queued,
			// and drops at submit not yet reported.
			earlier.Hold(AnyNode, AnyNode)
			for now := uint64(501); now <= 520; now++ {
				earlier.Tick(now)
				w.submit(now, earlier)
				earlier.Deliver(now, func(*Delivery[int]) {})
			}
			for k := 0; k < 3*earlier.Options().LinkCapacity; k++ {
				earlier.Submit(520, 0, 1, k)
			}
			require.Positive(t, len(earlier.parked), "the earlier network must stop with parked packets")
			require.Positive(t, len(earlier.pending), "the earlier network must stop with unreported drops")
			require.Positive(t, earlier.queue.Len(), "the earlier network must stop with queued packets")
			var spare Spare[int]
			earlier.Recycle(&spare)

			fresh := newNetwork(t, faultyOptions(), tc.seed)
			recycled, err := NewFrom(faultyOptions(), prng.New(tc.seed, prng.StreamNetwork), &spare)
			require.NoError(t, err)
			logFresh := runWorkload(t, fresh, tc.seed, 2000)
			logRecycled := runWorkload(t, recycled, tc.seed, 2000)
			testassert.True(t, slices.Equal(logFresh, logRecycled), "a recycled network's run differs from a fresh one's")
			testassert.Equal(t, fresh.Stats(), recycled.Stats())
			testassert.Equal(t, Spare[int]{}, spare, "NewFrom takes everything the spare held")
		})
	}
}
