package sweep

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestRecoveryPercentiles(t *testing.T) {
	var r Recovery
	assert.Zero(t, r.Percentile(50), "no run converged")
	assert.Zero(t, r.Max())
	for _, v := range []uint64{900, 100, 500, 300, 700, 200, 400, 600, 800, 1000} {
		r.ticks = append(r.ticks, v)
	}
	assert.Equal(t, 10, r.Runs())
	assert.Equal(t, uint64(500), r.Percentile(50))
	assert.Equal(t, uint64(1000), r.Percentile(99))
	assert.Equal(t, uint64(100), r.Percentile(1))
	assert.Equal(t, uint64(1000), r.Max())
	assert.Equal(t, []uint64{900, 100, 500, 300, 700, 200, 400, 600, 800, 1000}, r.ticks, "the record keeps its order")
}
