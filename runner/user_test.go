package runner

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recomp/recomp/runfolder"
)

func TestProbeBlocked(t *testing.T) {
	dir := t.TempDir()
	script := func(line string) string {
		p := filepath.Join(dir, strings.NewReplacer(" ", "_", "/", "_").Replace(line))
		os.WriteFile(p, []byte(line+"\nprint(1)\n"), 0o755)
		return p
	}
	for _, c := range []struct {
		cmd  []string
		want string // a word of the reason, "" for none
	}{
		{[]string{"python3", "-I", "train.py"}, "-I"},
		{[]string{"/usr/bin/python3.12", "-uE", "train.py"}, "-E"},
		{[]string{"python", "-S", "-m", "pkg"}, "-S"},
		{[]string{"python", "-W", "ignore", "-I", "x.py"}, "-I"}, // -W takes the next word
		{[]string{"python", "-Wignore", "-E", "x.py"}, "-E"},
		{[]string{"python", "train.py", "-I"}, ""}, // the program's own argument
		{[]string{"python", "-c", "import sys", "-I"}, ""},
		{[]string{"python", "-X", "importtime", "t.py"}, ""},
		{[]string{"python", "-X", "-I", "t.py"}, ""}, // -I is -X's value here
		{[]string{"sh", "-I"}, ""},
		{[]string{script("#!/usr/bin/python3 -I")}, "-I"},
		{[]string{script("#!/usr/bin/env -S python3 -E")}, "-E"},
		{[]string{script("#!/usr/bin/env python3")}, ""},
		{[]string{script("#!/bin/sh -e")}, ""},
	} {
		got := ProbeBlocked(c.cmd)
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("%q: %q, want one naming %q", c.cmd, got, c.want)
		}
	}
}

func TestUserDumpDir(t *testing.T) {
	for env, want := range map[string]string{
		"XLA_FLAGS=--xla_dump_to=/d --xla_dump_hlo_as_text": "/d",
		"XLA_FLAGS=--xla_dump_to=/a --xla_dump_to=/b":       "/b",
		"XLA_FLAGS=--xla_dump_to=-":                         "",
		"XLA_FLAGS=--xla_dump_to=sponge":                    "",
		"XLA_FLAGS=--xla_cpu_use_thunk_runtime=false":       "",
		"OTHER=--xla_dump_to=/x":                            "",
	} {
		if got := UserDumpDir([]string{env}); got != want {
			t.Errorf("%s: %q, want %q", env, got, want)
		}
	}
	// Evidence keeps the user's flags whole: no second --xla_dump_to after theirs.
	settings, env := Evidence(runfolder.FrameworkAuto, runfolder.DumpBefore, "/run/dump", "", nil, []string{"XLA_FLAGS=--xla_dump_to=/mine"})
	for _, kv := range env {
		if strings.HasPrefix(kv, "XLA_FLAGS=") && kv != "XLA_FLAGS=--xla_dump_to=/mine" {
			t.Errorf("XLA_FLAGS became %s", kv)
		}
	}
	n := 0
	for _, s := range settings {
		if s.Name == "XLA_FLAGS" {
			n++
			if !s.Kept {
				t.Errorf("the user's XLA_FLAGS not kept: %+v", s)
			}
		}
	}
	if n != 1 {
		t.Errorf("%d XLA_FLAGS settings", n)
	}
}
