package main

import (
	"fmt"
	"os"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// writeLayout writes img as an OCI image layout in dir, replacing whatever
// was there (a layout appended to would list every earlier build too), with
// ref as the image's ref.name, as `skopeo copy oci:DIR:REF` and `crane push`
// read it.
func writeLayout(dir string, img v1.Image, ref string) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	p, err := layout.Write(dir, empty.Index)
	if err != nil {
		return err
	}
	return p.AppendImage(img, layout.WithAnnotations(map[string]string{
		"org.opencontainers.image.ref.name": ref,
	}))
}

// writeTarball writes img as a tarball that `docker load` and `podman load`
// read, tagged ref.
func writeTarball(path string, img v1.Image, ref string) error {
	tag, err := name.NewTag(ref)
	if err != nil {
		return fmt.Errorf("tag %q: %v", ref, err)
	}
	return tarball.WriteToFile(path, tag, img)
}
