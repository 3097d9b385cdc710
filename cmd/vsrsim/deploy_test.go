package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"vsrsim/prng"
)

// The parts of a Kubernetes manifest the deploy tests read.
type k8sDoc struct {
	Kind     string `yaml:"kind"`
	Metadata struct {
		Name string `yaml:"name"`
	} `yaml:"metadata"`
	Spec struct {
		CompletionMode string `yaml:"completionMode"`
		Completions    int    `yaml:"completions"`
		Parallelism    int    `yaml:"parallelism"`
		Template       struct {
			Spec k8sPodSpec `yaml:"spec"`
		} `yaml:"template"`
		k8sPodSpec `yaml:",inline"` // a Pod's own spec
	} `yaml:"spec"`
}

type k8sPodSpec struct {
	Containers []k8sContainer `yaml:"containers"`
	Volumes    []struct {
		Name string `yaml:"name"`
		PVC  struct {
			ClaimName string `yaml:"claimName"`
		} `yaml:"persistentVolumeClaim"`
	} `yaml:"volumes"`
}

type k8sContainer struct {
	Name    string   `yaml:"name"`
	Image   string   `yaml:"image"`
	Command []string `yaml:"command"`
	Args    []string `yaml:"args"`
	Env     []struct {
		Name      string `yaml:"name"`
		Value     string `yaml:"value"`
		ValueFrom struct {
			FieldRef struct {
				FieldPath string `yaml:"fieldPath"`
			} `yaml:"fieldRef"`
		} `yaml:"valueFrom"`
	} `yaml:"env"`
	VolumeMounts []struct {
		Name      string `yaml:"name"`
		MountPath string `yaml:"mountPath"`
	} `yaml:"volumeMounts"`
}

// testCommit stands in for `git rev-parse HEAD` in the README's sed.
const testCommit = "0123456789abcdef0123456789abcdef01234567"

// readManifest reads deploy/k8s/sweep-job.yaml with COMMIT filled in as the
// README's commands fill it in, one document per kind.
func readManifest(t *testing.T) map[string]k8sDoc {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "deploy", "k8s", "sweep-job.yaml"))
	require.NoError(t, err)
	dec := yaml.NewDecoder(strings.NewReader(strings.ReplaceAll(string(data), "COMMIT", testCommit)))
	docs := map[string]k8sDoc{}
	for {
		var d k8sDoc
		err := dec.Decode(&d)
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		require.NotContains(t, docs, d.Kind, "one document per kind")
		docs[d.Kind] = d
	}
	return docs
}

// k8sVarRef is a $(NAME) reference in a container's args.
var k8sVarRef = regexp.MustCompile(`\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)`)

// expandK8s expands args as the kubelet does: $(NAME) becomes the variable's
// value when it is defined and stays as written when not; $$ is a literal $.
func expandK8s(args []string, env map[string]string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = k8sVarRef.ReplaceAllStringFunc(a, func(ref string) string {
			if ref == "$$" {
				return "$"
			}
			if v, ok := env[ref[2:len(ref)-1]]; ok {
				return v
			}
			return ref
		})
	}
	return out
}

// runCancelled runs the CLI in-process with its context already cancelled. A
// sweep parses and validates every flag and opens its output files, then
// finds itself interrupted before its first seed; other commands run whole.
func runCancelled(args []string) cliResult {
	var stdout, stderr bytes.Buffer
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	root := newRootCmd(&stdout, &stderr)
	root.SetArgs(args)
	code := reportError(root.ExecuteContext(ctx), &stderr)
	return cliResult{code: code, stdout: stdout.String(), stderr: stderr.String()}
}

// TestK8sJobRunsAValidShard: for the first, second and last completion index,
// the Job's container line, expanded as the kubelet expands it, is a sweep
// command vsrsim accepts, and it runs shard INDEX/completions of the range
// starting at the commit, writing into the findings volume.
func TestK8sJobRunsAValidShard(t *testing.T) {
	docs := readManifest(t)
	job, ok := docs["Job"]
	require.True(t, ok, "the manifest has a Job")
	assert.Equal(t, "Indexed", job.Spec.CompletionMode)
	require.Positive(t, job.Spec.Completions)
	assert.LessOrEqual(t, job.Spec.Parallelism, job.Spec.Completions)
	pod := job.Spec.Template.Spec
	require.Len(t, pod.Containers, 1)
	c := pod.Containers[0]
	assert.Equal(t, "registry.example.com/vsrsim:"+testCommit, c.Image)
	assert.Empty(t, c.Command, "the image's entrypoint is vsrsim; the image has no shell")
	require.NotEmpty(t, c.Args)
	require.Equal(t, "sweep", c.Args[0])

	env := map[string]string{}
	for _, e := range c.Env {
		env[e.Name] = e.Value
		if e.Name == "JOB_COMPLETION_INDEX" {
			assert.Equal(t, "metadata.annotations['batch.kubernetes.io/job-completion-index']", e.ValueFrom.FieldRef.FieldPath)
		}
	}
	assert.Equal(t, strconv.Itoa(job.Spec.Completions), env["SHARDS"], "SHARDS is the Job's completion count")
	require.Len(t, c.VolumeMounts, 1)
	mount := c.VolumeMounts[0].MountPath
	claims := map[string]string{}
	for _, v := range pod.Volumes {
		claims[v.Name] = v.PVC.ClaimName
	}
	claim := claims[c.VolumeMounts[0].Name]
	require.NotEmpty(t, claim, "findings go to a persistent volume claim")
	assert.Equal(t, claim, docs["PersistentVolumeClaim"].Metadata.Name, "the manifest creates the claim")
	start, err := prng.ParseSeed(testCommit)
	require.NoError(t, err)

	for _, index := range []int{0, 1, job.Spec.Completions - 1} {
		t.Run(strconv.Itoa(index), func(t *testing.T) {
			env["JOB_COMPLETION_INDEX"] = strconv.Itoa(index)
			args := expandK8s(c.Args, env)
			// The volume is mounted at mount in the pod; here it is a temporary
			// directory, and every file the sweep writes must be inside it.
			dir := t.TempDir()
			var paths []string
			for i, a := range args {
				if k, v, ok := strings.Cut(a, "="); ok && strings.HasPrefix(v, "/") {
					require.True(t, strings.HasPrefix(v, mount+"/"), "%s writes outside the findings volume", k)
					args[i] = k + "=" + dir + strings.TrimPrefix(v, mount)
					paths = append(paths, args[i][len(k)+1:])
				}
			}
			require.NotEmpty(t, paths, "the sweep writes its findings to the volume")
			out := runCancelled(append(args, "-o", "json"))
			require.Equal(t, exitInterrupted, out.code, "vsrsim %s: %s", strings.Join(args, " "), out.stderr)
			_, summary := failureLines(t, out.stdout)
			assert.Equal(t, map[string]any{
				"first": float64(start), "first_hex": fmt.Sprintf("%#x", start), "count": float64(1000000),
				"shard": float64(index), "shards": float64(job.Spec.Completions),
			}, summary["range"])
			for _, p := range paths {
				assert.FileExists(t, p)
				assert.Contains(t, p, "-"+strconv.Itoa(index)+".", "one file per shard")
			}
		})
	}
}

// TestK8sReaderMountsTheFindings: the pod that `kubectl cp` copies from mounts
// the claim the shards write to, at the same path.
func TestK8sReaderMountsTheFindings(t *testing.T) {
	docs := readManifest(t)
	reader, ok := docs["Pod"]
	require.True(t, ok, "the manifest has a reader pod")
	job := docs["Job"].Spec.Template.Spec
	require.Len(t, reader.Spec.Containers, 1)
	require.Len(t, reader.Spec.Volumes, 1)
	require.Len(t, job.Volumes, 1)
	assert.Equal(t, job.Volumes[0].PVC.ClaimName, reader.Spec.Volumes[0].PVC.ClaimName)
	require.Len(t, reader.Spec.Containers[0].VolumeMounts, 1)
	assert.Equal(t, job.Containers[0].VolumeMounts[0].MountPath, reader.Spec.Containers[0].VolumeMounts[0].MountPath)
}

// TestDockerfileGoVersion: the image builds with the Go version go.mod
// declares, and runs vsrsim as a non-root user.
func TestDockerfileGoVersion(t *testing.T) {
	goVersion := ""
	mod, err := os.ReadFile(filepath.Join("..", "..", "go.mod"))
	require.NoError(t, err)
	for _, line := range strings.Split(string(mod), "\n") {
		if v, ok := strings.CutPrefix(line, "go "); ok {
			goVersion = strings.TrimSpace(v)
		}
	}
	require.NotEmpty(t, goVersion)
	f, err := os.Open(filepath.Join("..", "..", "Dockerfile"))
	require.NoError(t, err)
	defer f.Close()
	got := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if word, rest, ok := strings.Cut(sc.Text(), " "); ok && word == strings.ToUpper(word) && word != "" && word[0] != '#' {
			got[word] = rest // the last of each instruction
		}
	}
	require.NoError(t, sc.Err())
	assert.Equal(t, "GO_VERSION="+goVersion, got["ARG"])
	assert.Equal(t, "65532:65532", got["USER"])
	var entry []string
	require.NoError(t, json.Unmarshal([]byte(got["ENTRYPOINT"]), &entry))
	assert.Equal(t, []string{"/usr/local/bin/vsrsim"}, entry)
}
