//go:build linux

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A cachegrind file's instructions in the thread pools' idle loops are summed apart from its
// total; a file that a process left without its summary line is an error.
func TestReadCachegrind(t *testing.T) {
	const file = `desc: I1 cache:         32768 B, 64 B, 8-way associative
cmd: python -m pytest -q
events: Ir
fl=/tmp/Python-3.12.1/Python/ceval.c
fn=_PyEval_EvalFrameDefault
10 500
11 250
fl=???
fn=blas_thread_server
0 1000
fn=Eigen::ThreadPoolTempl<tsl::thread::EigenEnvironment>::GlobalSteal()
0 300
fn=Eigen::RunQueue<tsl::thread::EigenEnvironment::Task, 1024u>::PopBack()
0 20
fn=xla::cpu::Compile
0 7
summary: 2077
`
	dir := t.TempDir()
	path := filepath.Join(dir, "cg.out")
	if err := os.WriteFile(path, []byte(file), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := readCachegrind(path)
	if err != nil {
		t.Fatal(err)
	}
	if c.all != 2077 || c.idle != 1320 || c.work() != 757 {
		t.Errorf("got all %d, idle %d, work %d; want 2077, 1320, 757", c.all, c.idle, c.work())
	}
	cut := filepath.Join(dir, "cut.out")
	if err := os.WriteFile(cut, []byte(strings.TrimSuffix(file, "summary: 2077\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := readCachegrind(cut); err == nil || !strings.Contains(err.Error(), "no summary") {
		t.Errorf("a file without its summary: %v; want an error saying so", err)
	}
	bad := filepath.Join(dir, "bad.out")
	if err := os.WriteFile(bad, []byte("fn=blas_thread_server\n0 many\nsummary: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := readCachegrind(bad); err == nil || !strings.Contains(err.Error(), "bad.out:2") {
		t.Errorf("a count that is no number: %v; want an error naming the file and line", err)
	}
}
