package room

import (
	"testing"
	"vsrsim/vsr"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hashChain is a hash chain of n prepares (chain[op], from op 1).
func hashChain(n int) []vsr.Header {
	hs := make([]vsr.Header, n+1)
	parent := uint64(1)
	for op := 1; op <= n; op++ {
		h := vsr.Header{Op: uint64(op), Parent: parent, Timestamp: uint64(op)}
		h.Seal()
		hs[op] = h
		parent = h.Checksum
	}
	return hs
}

func TestPipelineRoom(t *testing.T) {
	chain := hashChain(4)
	var p Pipeline
	assert.Zero(t, p.First())
	p.Push(0, chain[1], 0)
	p.Push(0, chain[2], 3)
	require.Len(t, p, 2)
	assert.Equal(t, uint64(1), p.First())
	assert.Panics(t, func() { p.Push(0, chain[4], 0) }, "ops in flight are consecutive")

	e := p.Find(2, chain[2].Checksum)
	require.NotNil(t, e)
	assert.Equal(t, uint16(1), e.Acks, "the primary's own ack")
	assert.Equal(t, uint64(3), e.Fence)
	assert.Nil(t, p.Find(2, chain[1].Checksum), "another version of op 2 is not in flight")
	e.Acks |= 1 << 2

	p.Forget(0, 2)
	assert.Equal(t, uint16(1), p[1].Acks, "a restarted peer's acks leave every entry")
	assert.Panics(t, func() { p.Forget(0, 0) }, "the primary never forgets its own")
	p.Check(0)

	p.Push(0, chain[3], 0)
	p[2].Header.Op = 9
	assert.Panics(t, func() { p.Check(0) }, "ops in flight are consecutive (pipeline_consecutive)")
	p[2].Header.Op = 3
	p.PopFront()
	assert.Equal(t, uint64(2), p.First())
	p[0].Acks = 1 << 1
	assert.Panics(t, func() { p.Check(0) }, "an entry without the primary's own ack")
}
