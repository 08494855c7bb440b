//go:build !race

package server

// raceBuild: the race detector is on (allocation sizes differ).
const raceBuild = false
