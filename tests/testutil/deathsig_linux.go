//go:build linux

package testutil

import (
	"os/exec"
	"syscall"
)

// setDeathSig makes the kernel kill a server when the test binary dies
// without running its cleanups (a test timeout panics past t.Cleanup), so
// no server outlives its test run.
func setDeathSig(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
