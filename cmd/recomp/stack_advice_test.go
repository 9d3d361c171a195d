package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Advice by stack: no committed run is told another stack's way of doing things, in the verdict
// or in the compared pairs (explain RUN, text and JSON alike).
func TestAdviceNamesOnlyTheRunsStack(t *testing.T) {
	foreign := map[string]*regexp.Regexp{
		"torch-xla": regexp.MustCompile(`tf\.function|input_signature|jax\.jit|jnp\.|static_argnums`),
		"jax":       regexp.MustCompile(`tf\.function|input_signature|torch|DataLoader`),
		"tf":        regexp.MustCompile(`jax\.jit|jnp\.|torch|DataLoader`),
	}
	matrices, _ := filepath.Glob("../../testdata/runs/*-*")
	checked := 0
	for _, m := range matrices {
		stack := ""
		for s := range foreign {
			if strings.HasPrefix(filepath.Base(m), s+"-") {
				stack = s
			}
		}
		if stack == "" {
			continue
		}
		runs, _ := filepath.Glob(filepath.Join(m, "*", "dump"))
		for _, dump := range runs {
			dir := filepath.Dir(dump)
			if _, err := os.Stat(filepath.Join(dir, "run.log")); err != nil {
				continue
			}
			_, out, _ := runRecomp("explain", "--format", "json", dir)
			for _, line := range strings.Split(out, "\n") {
				if !strings.Contains(line, `"advice"`) && !strings.Contains(line, `"action"`) {
					continue
				}
				if w := foreign[stack].FindString(line); w != "" {
					t.Errorf("%s: %q in advice to a %s run: %s", dir, w, stack, strings.TrimSpace(line))
				}
			}
			checked++
		}
	}
	if checked < 10 {
		t.Fatalf("only %d runs checked", checked)
	}
}
