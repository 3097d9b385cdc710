package findings

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/sim"
)

// TestShape: evidence of one defect from different seeds (real evidence of
// bug-switch sweeps) has one shape; another cause has another.
func TestShape(t *testing.T) {
	for _, tc := range []struct {
		name string
		same []string
		want string
	}{
		{"checksums and ops", []string{
			"t=15233 r0 committed op 181 csum=485a but op 181 is csum=c873 elsewhere",
			"t=321 r1 committed op 1 csum=5481 but op 1 is csum=787a elsewhere",
			"t=320 r1 committed op 2 csum=acfe but op 2 is csum=787a elsewhere",
		}, "t=# r# committed op # csum=# but op # is csum=# elsewhere"},
		{"replica lists", []string{
			"t=18414 r0's view-33 truncation dropped op 8 csum=3c91 (0 nacks), but r0,r2 acked it in view 0 and still hold it",
			"t=10472 r2's view-12 truncation dropped op 21 csum=e1b2 (3 nacks), but r0,r3,r4 acked it in view 9 and still hold it",
		}, "t=# r#'s view-# truncation dropped op # csum=#, but r# acked it in view # and still hold it"},
		{"details in parentheses", []string{
			"t=9 r1's view-4 merge dropped committed op 12 csum=ab12 with 2 nacks (committed in view 1 on acks from r0,r2)",
			"t=9 r1's view-4 merge dropped committed op 12 csum=ab12 with 2 nacks (committed in view 1 on acks from r0, and its client got the reply)",
		}, "t=# r#'s view-# merge dropped committed op # csum=# with # nacks"},
		{"a stalled core's state", []string{
			"r2 dropped Prepare op=20 by the gap check 480 times; core did not converge in 12000 ticks: r1 normal v=1 op=21 commit=19/19 r2 normal v=1 op=21 commit=19/19, committed 20, 4 requests outstanding, no request issued in the liveness phase was served",
			"r2 dropped Prepare op=22 by the gap check 481 times; core did not converge in 30000 ticks: r1 view_change v=3 op=22 commit=20/20, committed 20",
		}, "r# dropped Prepare op=# by the gap check # times; core did not converge in # ticks"},
		{"a clause inside an aside", []string{
			"only 2 replicas could vote at the end (a view-change quorum is 3; the others lost their journal); core did not converge in 30000 ticks: r0 recovering v=1",
			"only 1 replicas could vote at the end (a view-change quorum is 2; the others lost their journal); core did not converge in 12000 ticks: r1 view_change v=3",
		}, "only # replicas could vote at the end; core did not converge in # ticks"},
		{"hex seeds", []string{"seed 0x3a7c91e5 and 12 more", "seed 0xff and 3 more"}, "seed # and # more"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, e := range tc.same {
				assert.Equal(t, tc.want, Shape(e), e)
			}
		})
	}
	assert.NotEqual(t, Shape("view climbed 3 -> 25 without settling"),
		Shape("view climbed 28 -> 85 while log_view stayed 15"), "two causes, two shapes")
}

// TestGroupBySignature: records of one shape make one group with their
// count and the record of the smallest seed; the verdict and the invariant
// (or an unrecoverable run's rule) split groups.
func TestGroupBySignature(t *testing.T) {
	rec := func(seed uint64, v sim.Verdict, inv, rule, ev string) Record {
		return Record{Seed: seed, Verdict: v, Invariant: inv, Rule: rule, Evidence: ev}
	}
	recs := []Record{
		rec(40, sim.VerdictSafety, "agreement", "", "t=9 r0 committed op 7 csum=aa11 but op 7 is csum=bb22 elsewhere"),
		rec(12, sim.VerdictSafety, "agreement", "", "t=5 r1 committed op 3 csum=cc33 but op 3 is csum=dd44 elsewhere"),
		rec(30, sim.VerdictSafety, "agreement", "", "t=2 r2 committed op 9 csum=ee55 but op 9 is csum=ff66 elsewhere"),
		rec(7, sim.VerdictLiveness, "liveness", "", "view climbed 3 -> 25 without settling (29 escalations, 22 by r2)"),
		rec(8, sim.VerdictUnrecoverable, "unrecoverable", "no-voters", "2 of 5 replicas can vote"),
		rec(9, sim.VerdictUnrecoverable, "unrecoverable", "core-copy-damaged", "2 of 5 replicas can vote"),
	}
	groups := GroupBySignature(recs)
	require.Len(t, groups, 4)
	assert.Equal(t, 3, groups[0].Count)
	assert.Equal(t, uint64(12), groups[0].Smallest.Seed)
	assert.Equal(t, "safety agreement: t=# r# committed op # csum=# but op # is csum=# elsewhere", groups[0].Signature)
	assert.Len(t, groups[0].ID, 12)
	assert.Equal(t, SignatureID(groups[0].Signature), groups[0].ID, "stable")
	for _, g := range groups[1:] {
		assert.Equal(t, 1, g.Count)
	}
	assert.Equal(t, "unrecoverable core-copy-damaged: # of # replicas can vote", groups[2].Signature)
	assert.Equal(t, "unrecoverable no-voters: # of # replicas can vote", groups[3].Signature, "the rule splits groups")
}
