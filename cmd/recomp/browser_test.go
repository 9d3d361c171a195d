package main

import (
	"bytes"
	"context"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/recomp/recomp/internal/skipped"
)

// chromium returns Debian's chromium (RECOMP_CHROMIUM, else on PATH), or skips loudly.
func chromium(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("RECOMP_CHROMIUM"); p != "" {
		return p
	}
	if p, err := exec.LookPath("chromium"); err == nil {
		return p
	}
	skipped.Skip(t, skipped.Browser, "", "chromium is not installed (apt-get install chromium; .ci/run does): the HTML report was not opened in a browser")
	return ""
}

// headless runs chromium on a page with the flags that keep it off the network.
func headless(t *testing.T, browser string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--user-data-dir=" + t.TempDir()}
	cmd := exec.CommandContext(ctx, browser, append(base, args...)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %v: %v\n%s", args, err, errb.String())
	}
	return out.Bytes()
}

// TestHTMLInBrowser opens the HTML reports of real runs in headless Chromium as a person would:
// the page's DOM holds the verdict, the cause, the families and the timeline, and its
// screenshot is not blank.
func TestHTMLInBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: no browser")
	}
	browser := chromium(t)
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		args []string
		want []string
	}{
		{"jax-explain", []string{"explain", "--format", "html", "../../testdata/runs/jax-0.12/partial-batch/dump",
			"--log", "../../testdata/runs/jax-0.12/partial-batch/run.log"},
			[]string{"DIFFER", "batch_size", "jit_train_step", "side-by-side diff", "<mark>"}},
		{"torch-guard", []string{"guard", "--format", "html", "../../testdata/runs/torch-xla-2.9/seq-length/run.log"},
			[]string{"FAIL", "torch_xla_runs.py:110 (train_step)", `<svg`, `class="late"`, "user torch_xla.sync"}},
		{"keras-scan", []string{"scan", "--format", "html", "../../testdata/runs/tf-2.21/keras-fit-partial-batch/run.log"},
			[]string{"recomp scan", "__inference_one_step_on_data_N", `class="compile"`, "Module families"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			_, page, stderr := runRecomp(c.args...)
			if !strings.HasPrefix(page, "<!DOCTYPE html>") {
				t.Fatalf("not a page: %s", stderr)
			}
			if strings.Contains(page, "http://") || strings.Contains(page, "https://") {
				for _, l := range strings.Split(page, "\n") {
					if (strings.Contains(l, "http://") || strings.Contains(l, "https://")) && !strings.Contains(l, "xmlns=") {
						t.Errorf("the page reaches for the network: %s", l)
					}
				}
			}
			file := filepath.Join(dir, c.name+".html")
			if err := os.WriteFile(file, []byte(page), 0o644); err != nil {
				t.Fatal(err)
			}
			dom := string(headless(t, browser, "--dump-dom", "file://"+file))
			for _, w := range c.want {
				if !strings.Contains(dom, w) {
					t.Errorf("the DOM Chromium built lacks %q", w)
				}
			}
			// The answer comes first: above the totals, the timeline, the pairs and the
			// families; a diff stays folded until opened.
			answer := strings.Index(dom, `id="answer"`)
			if answer < 0 {
				t.Error("the page has no answer")
			}
			for _, later := range []string{`class="totals"`, `id="timeline"`, `id="pairs"`, `id="families"`} {
				if i := strings.Index(dom, later); i >= 0 && i < answer {
					t.Errorf("%s comes before the answer", later)
				}
			}
			if strings.Contains(dom, "<details open") {
				t.Error("a diff is unfolded: the page would be as long as the diff")
			}
			shot := filepath.Join(dir, c.name+".png")
			headless(t, browser, "--screenshot="+shot, "--window-size=1200,900", "file://"+file)
			f, err := os.Open(shot)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			img, err := png.Decode(f)
			if err != nil {
				t.Fatal(err)
			}
			colors := map[uint32]bool{}
			b := img.Bounds()
			for y := b.Min.Y; y < b.Max.Y; y += 7 {
				for x := b.Min.X; x < b.Max.X; x += 7 {
					r, g, bl, _ := img.At(x, y).RGBA()
					colors[(r>>12)<<8|(g>>12)<<4|bl>>12] = true
				}
			}
			if len(colors) < 6 {
				t.Errorf("the screenshot is blank: %d colours", len(colors))
			}
			// RECOMP_SCREENSHOTS=docs keeps the screenshots docs/examples.md shows.
			if keep := os.Getenv("RECOMP_SCREENSHOTS"); keep != "" {
				data, err := os.ReadFile(shot)
				if err == nil {
					err = os.WriteFile(filepath.Join(keep, "report-"+c.name+".png"), data, 0o644)
				}
				if err != nil {
					t.Error(err)
				}
			}
		})
	}
}
