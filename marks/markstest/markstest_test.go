package markstest

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"vsrsim/marks"
)

// recorder stands in for a test so the helper's failure can be observed.
type recorder struct {
	testing.TB
	errors int
}

func (r *recorder) Helper()               {}
func (r *recorder) Errorf(string, ...any) { r.errors++ }

func TestAssertReached(t *testing.T) {
	var c marks.Counts
	c.Hit(marks.Abdicate)
	tests := []struct {
		name   string
		want   []marks.Mark
		ok     bool
		errors int
	}{
		{"reached", []marks.Mark{marks.Abdicate}, true, 0},
		{"one missing", []marks.Mark{marks.Abdicate, marks.DropGap}, false, 1},
		{"two missing", []marks.Mark{marks.MergeKeep, marks.DropGap}, false, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := &recorder{TB: t}
			assert.Equal(t, tc.ok, AssertReached(r, &c, tc.want...))
			assert.Equal(t, tc.errors, r.errors)
		})
	}
}
