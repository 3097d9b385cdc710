// Package k8s holds only this test: it decodes deploy/k8s/sweep-job.yaml
// into the Kubernetes API's own Go types, strictly, so a misspelt or
// misplaced field fails here and not on a cluster. The k8s.io modules are
// imported by no other package, so the vsrsim binary does not carry them
// (D51).
package k8s

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"

	"vsrsim/outcome"
)

// manifest is every object of sweep-job.yaml, each as the type its
// apiVersion and kind name.
type manifest struct {
	job    *batchv1.Job
	claim  *corev1.PersistentVolumeClaim
	reader *corev1.Pod
}

// decodeManifest splits text into its YAML documents and decodes each
// strictly into the API type it claims: an unknown or duplicate field, or an
// apiVersion and kind this test does not know, is an error.
func decodeManifest(text []byte) (manifest, error) {
	var m manifest
	docs := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(text)))
	for n := 1; ; n++ {
		doc, err := docs.Read()
		if errors.Is(err, io.EOF) {
			return m, nil
		}
		if err != nil {
			return m, fmt.Errorf("document %d: %w", n, err)
		}
		if len(bytes.TrimSpace(doc)) == 0 {
			continue
		}
		if err := m.decode(doc); err != nil {
			return m, fmt.Errorf("document %d: %w", n, err)
		}
	}
}

func (m *manifest) decode(doc []byte) error {
	var meta metav1.TypeMeta
	if err := yaml.Unmarshal(doc, &meta); err != nil {
		return err
	}
	var obj any
	switch meta.APIVersion + " " + meta.Kind {
	case "batch/v1 Job":
		m.job = &batchv1.Job{}
		obj = m.job
	case "v1 PersistentVolumeClaim":
		m.claim = &corev1.PersistentVolumeClaim{}
		obj = m.claim
	case "v1 Pod":
		m.reader = &corev1.Pod{}
		obj = m.reader
	default:
		return fmt.Errorf("apiVersion %q kind %q: not an object this manifest should hold", meta.APIVersion, meta.Kind)
	}
	return decodeStrict(doc, obj)
}

// decodeStrict decodes one YAML document as the API server reads a request
// body: field names case-sensitive, unknown and duplicate fields refused.
// (sigs.k8s.io/yaml's UnmarshalStrict goes through encoding/json, which
// matches names regardless of case, so "backoffLimitPerindex" would pass it.)
func decodeStrict(doc []byte, obj any) error {
	data, err := yaml.YAMLToJSONStrict(doc)
	if err != nil {
		return err
	}
	strict, err := kjson.UnmarshalStrict(data, obj)
	if err != nil {
		return err
	}
	return errors.Join(strict...)
}

// testCommit stands in for `git rev-parse HEAD` in the README's sed.
const testCommit = "0123456789abcdef0123456789abcdef01234567"

func readManifest(t *testing.T) []byte {
	t.Helper()
	data, err := os.ReadFile("sweep-job.yaml")
	require.NoError(t, err)
	return bytes.ReplaceAll(data, []byte("COMMIT"), []byte(testCommit))
}

// TestManifestDecodesStrictly: every object of the manifest is a well-formed
// object of its API type; a misspelt field, one in the wrong place and an
// unknown kind each fail the same decoding.
func TestManifestDecodesStrictly(t *testing.T) {
	text := readManifest(t)
	m, err := decodeManifest(text)
	require.NoError(t, err)
	require.NotNil(t, m.job, "a batch/v1 Job")
	require.NotNil(t, m.claim, "a v1 PersistentVolumeClaim")
	require.NotNil(t, m.reader, "a v1 Pod")

	for _, tc := range []struct{ name, from, to, want string }{
		{"misspelt field", "backoffLimitPerIndex:", "backoffLimitPerindex:", `unknown field "spec.backoffLimitPerindex"`},
		{"misspelt nested field", "completionMode: Indexed", "completionsMode: Indexed", `unknown field "spec.completionsMode"`},
		{"field in the wrong place", "      restartPolicy: Never", "      restartPolicy: Never\n      completions: 3", `unknown field "spec.template.spec.completions"`},
		{"unknown kind", "kind: Job", "kind: Jobs", `kind "Jobs"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Contains(t, string(text), tc.from)
			_, err := decodeManifest(bytes.Replace(text, []byte(tc.from), []byte(tc.to), 1))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

// TestManifestJobShape checks what docs/distributed-sweeps.md and the
// README next to the manifest promise: one index per shard, the image and
// the sweep's arguments, resource requests matching --jobs, and the failure
// policy that maps vsrsim's exit codes.
func TestManifestJobShape(t *testing.T) {
	m, err := decodeManifest(readManifest(t))
	require.NoError(t, err)
	spec := m.job.Spec
	require.NotNil(t, spec.CompletionMode)
	assert.Equal(t, batchv1.IndexedCompletion, *spec.CompletionMode)
	require.NotNil(t, spec.Completions)
	require.NotNil(t, spec.Parallelism)
	assert.LessOrEqual(t, *spec.Parallelism, *spec.Completions)

	pod := spec.Template.Spec
	assert.Equal(t, corev1.RestartPolicyNever, pod.RestartPolicy, "a podFailurePolicy needs restartPolicy Never")
	require.Len(t, pod.Containers, 1)
	c := pod.Containers[0]
	assert.Equal(t, "registry.example.com/vsrsim:"+testCommit, c.Image)
	assert.Empty(t, c.Command, "the image's entrypoint is vsrsim")
	env := map[string]string{}
	for _, e := range c.Env {
		env[e.Name] = e.Value
	}
	assert.Equal(t, strconv.Itoa(int(*spec.Completions)), env["SHARDS"], "one index per shard")
	args := flagValues(c.Args)
	assert.Equal(t, "sweep", c.Args[0])
	assert.Equal(t, "$(JOB_COMPLETION_INDEX)/$(SHARDS)", args["--shard"])
	assert.Equal(t, "$(START)", args["--start"])
	assert.Contains(t, args["--failures"], "$(JOB_COMPLETION_INDEX)")
	assert.Contains(t, args["--cursor"], "$(JOB_COMPLETION_INDEX)", "a rerun pod goes on from its shard's cursor")
	assert.Contains(t, c.Args, "--resume-cursor")

	// The image's user (the Dockerfile's USER, tools/imageoci's config) is
	// numeric, so the kubelet can check runAsNonRoot against it.
	require.NotNil(t, pod.SecurityContext)
	require.NotNil(t, pod.SecurityContext.RunAsUser)
	assert.Equal(t, int64(65532), *pod.SecurityContext.RunAsUser)
	require.NotNil(t, pod.SecurityContext.RunAsNonRoot)
	assert.True(t, *pod.SecurityContext.RunAsNonRoot)
	for _, flag := range []string{"--failures", "--junit", "--cursor"} {
		require.Len(t, c.VolumeMounts, 1)
		assert.True(t, strings.HasPrefix(args[flag], c.VolumeMounts[0].MountPath+"/"),
			"%s writes to the volume: the root filesystem is read-only", flag)
	}

	cpu, ok := c.Resources.Requests[corev1.ResourceCPU]
	require.True(t, ok, "a cpu request")
	assert.Equal(t, args["--jobs"], strconv.FormatInt(cpu.Value(), 10), "one CPU a sweep job")
	mem, ok := c.Resources.Requests[corev1.ResourceMemory]
	require.True(t, ok, "a memory request")
	assert.GreaterOrEqual(t, mem.Cmp(resource.MustParse("64Mi")), 0)
	limit := c.Resources.Limits[corev1.ResourceMemory]
	assert.GreaterOrEqual(t, limit.Cmp(mem), 0, "the memory limit is at least the request")
}

// TestManifestFailurePolicy: an evicted or preempted pod is rerun whatever it
// exited with, every exit code of a finding (outcome.Table) or of an input
// no retry fixes fails the index without a retry, and the policy is one the
// API accepts (backoffLimitPerIndex on an Indexed Job, no 0 among the codes).
func TestManifestFailurePolicy(t *testing.T) {
	m, err := decodeManifest(readManifest(t))
	require.NoError(t, err)
	spec := m.job.Spec
	require.NotNil(t, spec.BackoffLimitPerIndex, "FailIndex needs backoffLimitPerIndex")
	require.NotNil(t, spec.PodFailurePolicy)
	rules := spec.PodFailurePolicy.Rules
	require.Len(t, rules, 2)

	assert.Equal(t, batchv1.PodFailurePolicyActionIgnore, rules[0].Action, "disruption first: an evicted pod is rerun")
	require.Len(t, rules[0].OnPodConditions, 1)
	assert.Equal(t, corev1.DisruptionTarget, rules[0].OnPodConditions[0].Type)

	assert.Equal(t, batchv1.PodFailurePolicyActionFailIndex, rules[1].Action)
	codes := rules[1].OnExitCodes
	require.NotNil(t, codes)
	require.NotNil(t, codes.ContainerName)
	assert.Equal(t, spec.Template.Spec.Containers[0].Name, *codes.ContainerName)
	assert.Equal(t, batchv1.PodFailurePolicyOnExitCodesOpIn, codes.Operator)
	var want []int32
	for _, r := range outcome.Table {
		if r.Failed {
			want = append(want, int32(r.Exit))
		}
	}
	want = append(want, outcome.ExitUsage, outcome.ExitDataErr, outcome.ExitSoftware)
	slices.Sort(want)
	assert.Equal(t, want, codes.Values, "sorted, as the API requires")
	assert.NotContains(t, codes.Values, int32(outcome.ExitInterrupted), "SIGTERM without a disruption condition is retried")
}

// flagValues maps each --flag=value of args to its value.
func flagValues(args []string) map[string]string {
	out := map[string]string{}
	for _, a := range args {
		if k, v, ok := strings.Cut(a, "="); ok {
			out[k] = v
		}
	}
	return out
}
