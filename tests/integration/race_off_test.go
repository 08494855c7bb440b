//go:build !race

package integration

// raceBuild reports a -race build (the server binary is built with -race too).
const raceBuild = false
