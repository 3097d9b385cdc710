package docs

import (
	"fmt"
	"slices"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// decisionLinkErrors lists every one-way link between records: an
// amendment or a replacement that one record states and the other does not
// (its Amended by, Amends, Supersedes or `superseded by` line), and a record
// whose own sentence says it amends or supersedes a record its header does
// not link. A reader who opens either record must find the other.
func decisionLinkErrors(records map[int]record) []string {
	var errs []string
	name := func(n int) string {
		if r, ok := records[n]; ok {
			return r.file
		}
		return fmt.Sprintf("%04d (no record)", n)
	}
	for n, r := range records {
		for _, k := range r.amendedBy {
			if !slices.Contains(records[k].amends, n) {
				errs = append(errs, fmt.Sprintf("%s is amended by %04d, but %s has no `Amends: %04d`", r.file, k, name(k), n))
			}
		}
		for _, k := range r.amends {
			if !slices.Contains(records[k].amendedBy, n) {
				errs = append(errs, fmt.Sprintf("%s amends %04d, but %s has no `Amended by: %04d`", r.file, k, name(k), n))
			}
		}
		if k := r.supersededBy; k != 0 && !slices.Contains(records[k].supersedes, n) {
			errs = append(errs, fmt.Sprintf("%s is superseded by %04d, but %s has no `Supersedes: %04d`", r.file, k, name(k), n))
		}
		for _, k := range r.supersedes {
			if records[k].supersededBy != n {
				errs = append(errs, fmt.Sprintf("%s supersedes %04d, but %s is not `Status: superseded by %04d`", r.file, k, name(k), n))
			}
		}
		for _, k := range r.proseAmends {
			if !slices.Contains(r.amends, k) {
				errs = append(errs, fmt.Sprintf("%s says it amends D%d, but its header has no `Amends: %04d`", r.file, k, k))
			}
		}
		for _, k := range r.proseSupersedes {
			if !slices.Contains(r.supersedes, k) {
				errs = append(errs, fmt.Sprintf("%s says it supersedes D%d, but its header has no `Supersedes: %04d`", r.file, k, k))
			}
		}
	}
	sort.Strings(errs)
	return errs
}

// TestDecisionLinksBothWays checks that every record naming another as
// amended or superseded is named back by it: the links were kept by hand
// and drifted (D31, D41, D42 and D43 were amended by later records that
// their files did not name).
func TestDecisionLinksBothWays(t *testing.T) {
	records := readRecords(t)
	require.NotEmpty(t, records)
	assert.Empty(t, decisionLinkErrors(records))
}

// TestDecisionLinkErrors pins the check on small sets of records, each
// missing one end of a link, so that a check that passes everything cannot
// pass for one that holds.
func TestDecisionLinkErrors(t *testing.T) {
	parse := func(n int, lines ...string) record {
		t.Helper()
		r, err := parseRecord(n, lines)
		require.NoError(t, err)
		r.file = fmt.Sprintf("%04d-x.md", n)
		return r
	}
	old := func(status string, extra ...string) record {
		return parse(1, append([]string{"# D1. Old", "", status}, append(extra, "", "Text.")...)...)
	}
	amended := old("Status: accepted", "Amended by: 0002")
	superseded := old("Status: superseded by 0002")
	plain := old("Status: accepted")
	amending := parse(2, "# D2. New", "", "Status: accepted", "Amends: 0001", "", "Amends D1.")
	replacing := parse(2, "# D2. New", "", "Status: accepted", "Supersedes: 0001", "", "Supersedes D1.")
	silent := parse(2, "# D2. New", "", "Status: accepted", "", "Text.")
	proseOnly := parse(2, "# D2. New", "", "Status: accepted", "", "It narrows the rule. Amends D1 and D3.")

	assert.Empty(t, decisionLinkErrors(map[int]record{1: amended, 2: amending}))
	assert.Empty(t, decisionLinkErrors(map[int]record{1: superseded, 2: replacing}))
	assert.Len(t, decisionLinkErrors(map[int]record{1: amended, 2: silent}), 1, "Amended by without Amends")
	assert.Len(t, decisionLinkErrors(map[int]record{1: plain, 2: amending}), 1, "Amends without Amended by")
	assert.Len(t, decisionLinkErrors(map[int]record{1: superseded, 2: silent}), 1, "superseded by without Supersedes")
	assert.Len(t, decisionLinkErrors(map[int]record{1: plain, 2: replacing}), 1, "Supersedes without superseded by")
	assert.Len(t, decisionLinkErrors(map[int]record{1: plain, 2: proseOnly}), 2, "a sentence naming D1 and D3 with no header")
	require.Equal(t, []int{1, 3}, proseOnly.proseAmends)

	for _, bad := range []string{"Amends: 1", "Amends 0001", "Supersedes: 0001 0002", "Supersedes:"} {
		_, err := parseRecord(2, []string{"# D2. New", "", "Status: accepted", bad, "", "Text."})
		assert.Error(t, err, "accepted the malformed line %q", bad)
	}
}
