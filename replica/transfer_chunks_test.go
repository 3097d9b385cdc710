package replica

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/vsr"
)

// A peer answers a chunk request with every chunk from the one asked on, and
// the puller takes any chunk it lacks; the source's transfer sends and takes
// one, in order (D114: a pull of one chunk per round trip never finished
// over a 6,251-tick link, swarm seed 1796080266 from 0x6b0e0000).
func TestChunksComeAtOnce(t *testing.T) {
	for _, source := range []bool{false, true} {
		c := newTestCluster(t, 3, func(o *Options) { o.Protocol.SourceTransfer = source })
		c.commitRequests(0, 1, 3)
		r := c.r(0)
		var out vsr.Output
		ask := vsr.RequestStateTransfer{}.Message().Routed(2, 0, r.view)
		r.Step(&ask, &out)
		var op uint64
		for k := range out.Messages {
			if out.Messages[k].Command == vsr.CmdStateTransferOffer {
				op = out.Messages[k].StateTransferOffer().SnapshotOp
			}
		}
		require.NotZero(t, op, "an offer")
		out.Reset()
		pull := vsr.RequestStateChunk{SnapshotOp: op, Chunk: 1}.Message().Routed(2, 0, r.view)
		r.Step(&pull, &out)
		var chunks []int
		for k := range out.Messages {
			if out.Messages[k].Command == vsr.CmdStateChunk {
				chunks = append(chunks, out.Messages[k].StateChunk().Chunk)
			}
		}
		if source {
			assert.Equal(t, []int{1}, chunks, "the source's: the chunk asked")
		} else {
			assert.Equal(t, []int{1, 2, 3}, chunks, "every chunk from the one asked on")
		}

		b := c.r(2)
		b.transfer = transferState{active: true, pinned: true, commitOp: op}
		assert.Equal(t, !source, b.chunkWanted(2), "a chunk past a gap")
		assert.True(t, b.chunkWanted(0))
		b.transfer.got, b.transfer.next = 1, 1
		assert.False(t, b.chunkWanted(0), "a chunk it holds")
		assert.False(t, b.chunkWanted(vsr.SnapshotChunks), "no such chunk")
	}
}
