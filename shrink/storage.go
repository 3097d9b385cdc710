package shrink

import (
	"slices"

	"vsrsim/scenarios/vsrfile"
)

// disks drops the disks' settings: all of them at once (a run without disks)
// if no action needs a disk, then each line on its own with the disks kept
// on (`storage on` takes the place of the last line that turned them on), so
// a failure that needs a scripted fault but none of the random ones keeps
// `storage on` alone. An `off` line stays: dropping it would turn on what it
// turned off.
func (s *search) disks() bool { return s.first(diskCandidates(s.cur)) }

func diskCandidates(cur *vsrfile.File) []*vsrfile.File {
	lines := cur.Settings(vsrfile.StorageKey)
	var cands []*vsrfile.File
	if len(lines) > 0 && !slices.ContainsFunc(cur.Actions, func(a vsrfile.Action) bool { return a.Verb.Storage() }) {
		c := cur.Clone()
		for _, st := range lines {
			c.Delete(st.Name())
		}
		cands = append(cands, c)
	}
	for _, st := range lines {
		if st.Name() == storageOff {
			continue
		}
		c := cur.Clone()
		c.Delete(st.Name())
		if left := c.Settings(vsrfile.StorageKey); len(left) == 0 || left[len(left)-1].Name() == storageOff {
			if st.Name() == storageOn {
				continue // the run without disks, tried above if it can be
			}
			c.Set(vsrfile.Setting{Key: vsrfile.StorageKey, Args: []string{"on"}})
		}
		cands = append(cands, c)
	}
	return cands
}

const (
	storageOn  = vsrfile.StorageKey + " on"
	storageOff = vsrfile.StorageKey + " off"
)
