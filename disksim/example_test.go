package disksim_test

import (
	"fmt"

	"vsrsim/disksim"
	"vsrsim/prng"
)

// The caller's loop drives the disk: it submits writes, asks when the next
// one falls due and collects the completions then, as events of its own.
func Example() {
	const seed, replicas, quorum = 7, 3, 2
	atlas, err := disksim.NewAtlas(disksim.AtlasOptions{Replicas: replicas, Quorum: quorum},
		prng.New(seed, prng.StreamDiskAtlas))
	if err != nil {
		panic(err)
	}
	disk, err := disksim.New(disksim.Options{Replica: 1, Atlas: atlas, WriteLatencyMinTicks: 3},
		prng.Disk(seed, 1))
	if err != nil {
		panic(err)
	}
	disk.Write(10, disksim.ZonePrepares, 4, []byte("prepare op 4"))
	disk.Lose(disksim.ZoneHeaders, 4) // a script: the header write will be lost
	disk.Write(10, disksim.ZoneHeaders, 4, []byte("header op 4"))

	var done []disksim.Completion
	for due, ok := disk.NextDue(); ok; due, ok = disk.NextDue() {
		done = disk.Advance(due, done[:0])
		for _, c := range done {
			fmt.Printf("tick %d: write %d to %s/%d done\n", c.Tick, c.ID, c.Zone, c.Slot)
		}
	}
	prepare, damaged := disk.Read(20, disksim.ZonePrepares, 4)
	fmt.Printf("prepares/4 reads %q, damaged %v\n", prepare[:12], damaged)
	for _, f := range disk.Faults() {
		fmt.Println(f)
	}
	fmt.Println(disk.Damaged(disksim.ZoneHeaders, 4), atlas.Describe())
	// Output:
	// tick 13: write 1 to prepares/4 done
	// tick 13: write 2 to headers/4 done
	// prepares/4 reads "prepare op 4", damaged false
	// 13 r1 write-lost headers/4 write 2 scripted forbidden
	// true atlas on: 3 replicas, 1 faulty per chunk; slots a chunk: journal 8, checkpoint 1
}
