package tf

import (
	"regexp"
	"testing"
)

// reCluster is the regexp ClusterGroup reads names as.
var reCluster = regexp.MustCompile(`^cluster_\d+(__.*?)?(\.\d+)*$`)

var clusterCases = []string{
	"cluster_3", "cluster_12.4", "cluster_0__XlaCompiledKernel_true__XlaHasReferenceVars_false__XlaNumConstantArgs_0.12",
	"cluster_1__", "cluster_1__.5", "cluster_1__a.b.1.2", "cluster_1__a..1", "cluster_1__5.1", "cluster_1_x", "cluster_",
	"cluster_1x", "cluster_1.", "cluster_1.x", "cluster_1__a\nb.3", "cluster_1__\n", "cluster_1\n", "xcluster_1", "",
	"cluster_7__\xff.1", "cluster_1.2.3",
}

func TestClusterGroup(t *testing.T) {
	for _, c := range clusterCases {
		checkClusterGroup(t, c)
	}
	if g := ClusterGroup("cluster_12.4"); g != "cluster_N" {
		t.Errorf("ClusterGroup(cluster_12.4) = %q", g)
	}
}

func checkClusterGroup(t *testing.T, module string) {
	t.Helper()
	want := ""
	if m := reCluster.FindStringSubmatch(module); m != nil {
		want = "cluster_N" + m[1]
	}
	if got := ClusterGroup(module); got != want {
		t.Fatalf("ClusterGroup(%q) = %q, the regexp says %q", module, got, want)
	}
}

// FuzzClusterGroup holds ClusterGroup to the regexp it replaces.
func FuzzClusterGroup(f *testing.F) {
	for _, c := range clusterCases {
		f.Add(c)
	}
	f.Fuzz(checkClusterGroup)
}
