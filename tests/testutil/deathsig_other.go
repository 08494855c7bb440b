//go:build !linux

package testutil

import "os/exec"

// setDeathSig is Linux-only (Pdeathsig); elsewhere servers rely on t.Cleanup.
func setDeathSig(cmd *exec.Cmd) {}
