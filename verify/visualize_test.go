package verify

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/sim"
	"vsrsim/sim/check"
	"vsrsim/sim/check/linearize"
)

func TestWriteLinearizabilityHTML(t *testing.T) {
	put := check.Op{Kind: check.OpPut, Key: 1, Value: 7}
	get := check.Op{Kind: check.OpGet, Key: 1}
	tests := []struct {
		name    string
		history []sim.HistoryOp
		want    bool
	}{
		{"linearizable", []sim.HistoryOp{
			{Client: 0, Input: put, Output: 0, Call: 1, Return: 5, Returned: true},
			{Client: 1, Input: get, Output: 7, Call: 6, Return: 9, Returned: true},
		}, true},
		{"stale read after the write returned", []sim.HistoryOp{
			{Client: 0, Input: put, Output: 0, Call: 1, Return: 5, Returned: true},
			{Client: 1, Input: get, Output: 0, Call: 6, Return: 9, Returned: true},
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			ok, err := WriteLinearizabilityHTML(&buf, tt.history)
			require.NoError(t, err)
			assert.Equal(t, tt.want, ok)
			verdict, _ := linearize.Check(tt.history)
			assert.Equal(t, verdict == linearize.Linearizable, ok, "the visualisation agrees with the verdict")
			html := buf.String()
			assert.True(t, strings.HasPrefix(strings.TrimSpace(html), "<!DOCTYPE html>") || strings.Contains(html, "<html"), "an HTML page")
			assert.Contains(t, html, "put(1,7)", "operations are described")
		})
	}
}
