package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/sim"
	"vsrsim/sim/check"
)

// TestRunArtifacts: run and replay write the Perfetto file, the SVG timeline
// and the linearizability page, and writing them leaves the run unchanged.
func TestRunArtifacts(t *testing.T) {
	dir := t.TempDir()
	perfetto := filepath.Join(dir, "run.json")
	timeline := filepath.Join(dir, "run.svg")
	page := filepath.Join(dir, "lin.html")
	_, plain := runJSONOf(t, exitLiveness, "run", "--seed", "1", "--scenario", "hollow-op", "--bug", "narrow-repair-under-commit-lag")
	_, res := runJSONOf(t, exitLiveness, "run", "--seed", "1", "--scenario", "hollow-op", "--bug", "narrow-repair-under-commit-lag",
		"--perfetto", perfetto, "--timeline", timeline, "--linearizability-html", page)
	assert.Equal(t, plain.TraceHash, res.TraceHash)

	data, err := os.ReadFile(perfetto)
	require.NoError(t, err)
	var trace struct {
		TraceEvents []map[string]any `json:"traceEvents"`
	}
	require.NoError(t, json.Unmarshal(data, &trace))
	assert.NotEmpty(t, trace.TraceEvents)

	svg, err := os.ReadFile(timeline)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(svg), "<svg "), "an SVG file")
	html, err := os.ReadFile(page)
	require.NoError(t, err)
	assert.Contains(t, string(html), "<html")

	failures := writeFile(t, "f.jsonl", "")
	out := vsrsim(t, "sweep", "--seeds", "1-1", "--scenario", "hollow-op", "--bug", "narrow-repair-under-commit-lag", "--failures", failures)
	require.Equal(t, exitLiveness, out.code, out.stderr)
	replayed := filepath.Join(dir, "replayed.svg")
	out = vsrsim(t, "replay", failures, "--line", "1", "--timeline", replayed)
	require.Equal(t, exitPass, out.code, out.stderr)
	again, err := os.ReadFile(replayed)
	require.NoError(t, err)
	assert.Equal(t, string(svg), string(again), "the replayed run draws the same picture")
}

// TestLinearizabilityPage: the page a sweep writes for a linearizability
// failure is named by the seed and holds the history.
func TestLinearizabilityPage(t *testing.T) {
	dir := t.TempDir()
	res := sim.Result{Seed: 0x2a, History: []sim.HistoryOp{
		{Client: 0, Input: check.Op{Kind: check.OpPut, Key: 3, Value: 9}, Call: 1, Return: 4, Returned: true},
		{Client: 1, Input: check.Op{Kind: check.OpGet, Key: 3}, Output: 1, Call: 5, Return: 8, Returned: true},
	}}
	require.NoError(t, writeLinearizabilityPage(dir, &res))
	page, err := os.ReadFile(filepath.Join(dir, "linearizability-0x2a.html"))
	require.NoError(t, err)
	assert.Contains(t, string(page), "put(3,9)")
}
