package replica

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPipelineRoom(t *testing.T) {
	chain := boundedChain(4)
	var p pipeline
	assert.Zero(t, p.first())
	p.push(0, chain[1], 0)
	p.push(0, chain[2], 3)
	require.Len(t, p, 2)
	assert.Equal(t, uint64(1), p.first())
	assert.Panics(t, func() { p.push(0, chain[4], 0) }, "ops in flight are consecutive")

	e := p.find(2, chain[2].Checksum)
	require.NotNil(t, e)
	assert.Equal(t, uint16(1), e.acks, "the primary's own ack")
	assert.Equal(t, uint64(3), e.fence)
	assert.Nil(t, p.find(2, chain[1].Checksum), "another version of op 2 is not in flight")
	e.acks |= 1 << 2

	p.forget(0, 2)
	assert.Equal(t, uint16(1), p[1].acks, "a restarted peer's acks leave every entry")
	assert.Panics(t, func() { p.forget(0, 0) }, "the primary never forgets its own")
	p.check(0)

	p.push(0, chain[3], 0)
	p[2].header.Op = 9
	assert.Panics(t, func() { p.check(0) }, "ops in flight are consecutive (pipeline_consecutive)")
	p[2].header.Op = 3
	p.popFront()
	assert.Equal(t, uint64(2), p.first())
	p[0].acks = 1 << 1
	assert.Panics(t, func() { p.check(0) }, "an entry without the primary's own ack")
}
