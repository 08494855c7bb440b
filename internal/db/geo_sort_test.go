package db

import (
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
)

// TestGeoStableSort: the merge sort orders points as a stable sort does,
// equal distances keeping their order, both ways.
func TestGeoStableSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	var shape geoShape
	for _, n := range []int{0, 1, 2, 5, 12, 13, 24, 25, 50, 97, 200, 1000} {
		for _, desc := range []bool{false, true} {
			a := make([]geoPoint, n)
			for i := range a {
				// Few distinct distances: many ties. score records the
				// original position.
				a[i] = geoPoint{dist: float64(rng.IntN(max(n/4, 1))), score: float64(i), exact: true}
			}
			want := slices.Clone(a)
			sort.SliceStable(want, func(i, j int) bool {
				if desc {
					return want[i].dist > want[j].dist
				}
				return want[i].dist < want[j].dist
			})
			geoStableSort(a, make([]geoPoint, n), geoOrder{&shape, desc})
			for i := range a {
				if a[i].dist != want[i].dist || a[i].score != want[i].score {
					t.Fatalf("n %d desc %v: at %d %v, want %v", n, desc, i, a[i], want[i])
				}
			}
		}
	}
}
