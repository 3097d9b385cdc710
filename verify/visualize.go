package verify

import (
	"fmt"
	"io"
	"time"

	"github.com/anishathalye/porcupine"

	"vsrsim/sim"
	"vsrsim/sim/check/linearize"
)

// visualizeTimeout bounds the search behind the visualisation. It only shapes
// the HTML (how far partial linearizations reach); the run's verdict comes
// from linearize.Check.
const visualizeTimeout = 30 * time.Second

// WriteLinearizabilityHTML writes porcupine's interactive visualisation of a
// client history to w: one row per client, each operation a bar from call to
// return, and the longest linearizations porcupine found per key. linearizable
// is porcupine's answer for the same history.
func WriteLinearizabilityHTML(w io.Writer, history []sim.HistoryOp) (linearizable bool, err error) {
	model := linearize.Model
	model.DescribeState = func(state interface{}) string { return fmt.Sprint(state) }
	result, info := porcupine.CheckOperationsVerbose(model, linearize.Operations(history), visualizeTimeout)
	if err := porcupine.Visualize(model, info, w); err != nil {
		return false, err
	}
	return result == porcupine.Ok, nil
}
