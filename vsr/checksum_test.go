package vsr

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestValidAlong: the fold side by side gives what Valid and a fold of its
// own give, for headers that verify and headers that do not, and word lists
// shorter, as long as and longer than the header's.
func TestValidAlong(t *testing.T) {
	for i := range uint64(40) {
		h := Header{Op: i, View: 3, Parent: i * 977, Commit: i / 2, Client: i % 5, Request: i * 3, Timestamp: 1000 + i,
			Body: Operation{Kind: OpKind(i % 3), Key: uint32(i * 7), Value: i * i}}
		h.Seal()
		if i%3 == 1 {
			h.Timestamp++ // no longer verifies
		}
		words := make([]uint64, i%17)
		for k := range words {
			words[k] = i*31 + uint64(k)
		}
		x := uint64(0x243f6a8885a308d3) + i
		want := x
		for _, w := range words {
			want = ChecksumMix(want ^ w)
		}
		valid, fold := h.ValidAlong(x, words)
		assert.Equal(t, h.Valid(), valid, "header %d", i)
		assert.Equal(t, i%3 != 1, valid, "header %d", i)
		assert.Equal(t, want, fold, "header %d", i)
	}
}
