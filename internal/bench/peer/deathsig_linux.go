package peer

import (
	"os/exec"
	"syscall"
)

// setDeathSig kills the server if corvid-bench dies without stopping it.
func setDeathSig(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
