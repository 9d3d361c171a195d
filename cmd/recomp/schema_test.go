package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recomp/recomp/internal/jsonschema"
	"github.com/rogpeppe/go-internal/txtar"
)

// docs/scan.schema.json holds for every scan and guard report the tests make: the report
// goldens, the scripts' guard golden, and recomp scan and guard --format json on every shipped
// run folder.
func TestSchemaHoldsForReports(t *testing.T) {
	b, err := os.ReadFile("../../docs/scan.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	schema, err := jsonschema.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	check := func(name string, doc []byte) {
		t.Helper()
		if errs := schema.Validate(doc); len(errs) > 0 {
			if len(errs) > 10 {
				errs = errs[:10]
			}
			t.Errorf("%s breaks docs/scan.schema.json:\n%s", name, strings.Join(errs, "\n"))
		}
	}
	n := 0
	for _, g := range []string{"../../report/testdata/golden/scan.json", "../../report/testdata/golden/guard.json"} {
		doc, err := os.ReadFile(g)
		if err != nil {
			t.Fatal(err)
		}
		check(g, doc)
		n++
	}
	ar, err := txtar.ParseFile("testdata/script/across.txtar")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range ar.Files {
		if f.Name == "golden/covered.json" {
			check("across.txtar "+f.Name, f.Data)
			n++
		}
	}
	runs, _ := filepath.Glob("../../testdata/runs/*/*/run.log")
	runs = append(runs, "../../testdata/runs/ipu-partial-batch/run.log")
	for _, log := range runs {
		dir := filepath.Dir(log)
		for _, cmd := range []string{"scan", "guard"} {
			code, out, errb := runRecomp(cmd, "--format", "json", dir)
			if code > 2 || out == "" {
				t.Errorf("recomp %s %s: exit %d: %s", cmd, dir, code, errb)
				continue
			}
			check("recomp "+cmd+" "+dir, []byte(out))
			n++
		}
	}
	if n < 200 {
		t.Errorf("only %d reports checked", n)
	}
}
