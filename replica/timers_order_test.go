package replica

import (
	"testing"

	"vsrsim/replica/timer"

	"github.com/stretchr/testify/assert"
)

// Every countdown has its handler, in its turn's order.
func TestTimeoutHandlersCoverEveryTimer(t *testing.T) {
	var tm timer.Timers
	assert.Len(t, timeoutHandlers, len(tm.All()))
	for k, h := range timeoutHandlers {
		assert.NotNil(t, h, "countdown %d has no handler", k)
	}
}
