//go:build !linux

package peer

import "os/exec"

func setDeathSig(cmd *exec.Cmd) {}
