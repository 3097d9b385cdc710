package room

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/vsr"
	"vsrsim/vsr/vsrtest"
)

func TestReadsBatchWithoutReadsClosesAtOnce(t *testing.T) {
	var r Reads
	b := r.Batch(2)
	assert.False(t, r.Open(b, 7), "no read in flight: RepairDone goes now")
	assert.Equal(t, 0, r.InFlight())
}

func TestReadsBatchEndsWithItsLastRead(t *testing.T) {
	var r Reads
	b := r.Batch(1)
	t1 := r.Add(b, vsr.ZonePrepares, 10, 0xa)
	t2 := r.Add(b, vsr.ZonePrepares, 11, 0xb)
	require.True(t, r.Open(b, 9), "two reads in flight keep the batch open")
	assert.Equal(t, 1, r.Peer(b))

	// Out of order: the second read completes first and is served.
	p2, ok := r.Take(t2)
	require.True(t, ok)
	assert.Equal(t, uint64(11), p2.Op)
	_, _, done := r.Finish(p2, true)
	assert.False(t, done, "one read still in flight")

	// A retry of the other copy joins the batch before its read ends.
	p1, ok := r.Take(t1)
	require.True(t, ok)
	t3 := r.Add(b, vsr.ZoneHeaders, 10, 0xa)
	_, _, done = r.Finish(p1, false)
	assert.False(t, done, "the retry keeps the batch open")

	p3, ok := r.Take(t3)
	require.True(t, ok)
	assert.Equal(t, vsr.ZoneHeaders, p3.Zone)
	peer, last, done := r.Finish(p3, false)
	assert.True(t, done)
	assert.Equal(t, 1, peer)
	assert.Equal(t, uint64(11), last, "the last op served, not the last asked")
	assert.Equal(t, 0, r.InFlight())
}

func TestReadsTakeUnknownTag(t *testing.T) {
	var r Reads
	_, ok := r.Take(42)
	assert.False(t, ok, "a read of an earlier life is unknown")
}

// A read finished twice, after its batch closed, is refused: a batch lives
// only while a read of it is in flight.
func TestReadsFinishTwiceIsRefused(t *testing.T) {
	var r Reads
	b := r.Batch(1)
	tag := r.Add(b, vsr.ZonePrepares, 10, 0xa)
	require.True(t, r.Open(b, 0))
	p, ok := r.Take(tag)
	require.True(t, ok)
	_, _, done := r.Finish(p, true)
	require.True(t, done)
	v := vsrtest.ViolationOf(func() { r.Finish(p, true) }) // planted: the same read again
	require.NotNil(t, v)
	assert.Equal(t, "read_batch_open", v.Invariant)
}
