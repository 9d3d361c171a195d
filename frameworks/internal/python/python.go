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
// standard library's.
func IsUserFrame(file string) bool {
	for _, lib := range []string{"/site-packages/", "/dist-packages/", "/lib/python3", "<frozen "} {
		if strings.Contains(file, lib) {
			return false
		}
	}
	return true
}
