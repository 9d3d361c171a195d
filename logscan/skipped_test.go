package logscan

import (
	"os"
	"testing"

	"github.com/recomp/recomp/internal/skipped"
)

// TestMain says at the end of go test what was skipped (package skipped).
func TestMain(m *testing.M) { os.Exit(skipped.Main(m)) }
