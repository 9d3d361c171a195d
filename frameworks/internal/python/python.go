// Package python holds what the Python stacks (JAX, TensorFlow, PyTorch/XLA) share about Python
// itself: qualified names and the frames of a traceback.
package python

import "strings"

// Name is the last part of a Python qualified name: train_step for
// p_partial_batch.<locals>.train_step.
func Name(q string) string {
	q = strings.TrimSuffix(q, ":")
	if i := strings.LastIndex(q, ".<locals>."); i >= 0 {
		q = q[i+len(".<locals>."):]
	}
	if i := strings.LastIndexByte(q, '.'); i >= 0 && !strings.HasSuffix(q, ">") {
		q = q[i+1:]
	}
	return q
}

// IsUserFrame says whether a Python frame's file is the program's own, not a library's or the
// standard library's. A library is known by where it is installed (site-packages), and by its
// package path where it is not (a source checkout: …/xla/torch_xla/core/xla_model.py). recomp
// run's probe (RUN/.recomp-probe/sitecustomize.py, runfolder.ProbeDir) wraps torch_xla.sync: its
// frame is never the program's either.
func IsUserFrame(file string) bool {
	for _, lib := range []string{"/site-packages/", "/dist-packages/", "/lib/python3", "<frozen ", "/.recomp-probe/"} {
		if strings.Contains(file, lib) {
			return false
		}
	}
	if strings.HasPrefix(file, "site-packages/") || strings.HasPrefix(file, "dist-packages/") || strings.HasPrefix(file, "<") {
		return false
	}
	return !inLibraryPackage(file)
}

// libraryPackages are the packages of the stacks and the libraries around them whose frames are
// never the program's own, wherever they are installed.
var libraryPackages = []string{"torch_xla", "torch", "torchvision", "torchaudio", "functorch", "jax", "jaxlib", "flax", "optax", "orbax",
	"haiku", "equinox", "tensorflow", "keras", "tf_keras", "lightning", "pytorch_lightning", "lightning_fabric", "transformers",
	"accelerate", "diffusers", "peft", "trl", "datasets", "poptorch", "popart", "torch_neuronx", "libneuronxla", "torch_neuron",
	"optimum"}

// notLibrary are the folders of a library's source checkout that hold programs, not the library:
// …/transformers/examples/pytorch/run_glue.py is a program.
var notLibrary = []string{"examples", "example", "tests", "test", "benchmarks", "benchmark", "scripts", "tutorials", "docs", "notebooks", "demos"}

// inLibraryPackage says whether a file is a module of one of libraryPackages: a folder of that
// name with a module or subpackage in it (not a program in its checkout's examples). A program
// in a folder named like a library (…/keras/mnist.py) counts as a library's only for the
// unmistakable names.
func inLibraryPackage(file string) bool {
	file = strings.ReplaceAll(file, "\\", "/")
	for _, pkg := range libraryPackages {
		for from := 0; from < len(file); {
			i := strings.Index(file[from:], pkg+"/")
			if i < 0 {
				break
			}
			i += from
			from = i + 1
			if i > 0 && file[i-1] != '/' {
				continue
			}
			rest := file[i+len(pkg)+1:]
			sub, _, nested := strings.Cut(rest, "/")
			switch {
			case nested && !isNotLibrary(sub):
				return true
			case !nested && (strings.HasPrefix(rest, "_") || rest == pkg+".py" || len(pkg) > 6 && pkg != "lightning"):
				return true
			}
		}
	}
	return false
}

func isNotLibrary(dir string) bool {
	for _, d := range notLibrary {
		if dir == d {
			return true
		}
	}
	return false
}
