package benchproc

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

// Main is the main function of a measurement program called name: it
// parses the arguments (-h exits 0, a bad flag 2), arranges to die with
// its parent, runs until run returns or SIGINT/SIGTERM cancels it (exit
// 130: run stopped its servers), and exits 1 on an error.
func Main[C any](name string, parse func([]string) (C, error), run func(context.Context, C) error) {
	cfg, err := parse(os.Args[1:])
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, name+":", err)
		os.Exit(2)
	}
	DieWithParent()
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	err = run(ctx, cfg)
	stop()
	if err != nil {
		if errors.Is(err, context.Canceled) {
			fmt.Fprintln(os.Stderr, name+": interrupted; servers stopped")
			os.Exit(130)
		}
		fmt.Fprintln(os.Stderr, name+":", err)
		os.Exit(1)
	}
}

// DieWithParent asks the kernel for SIGTERM when the parent dies (a
// wrapper's `go run`, which does not pass SIGTERM on), so the servers a
// program started are still stopped.
func DieWithParent() {
	ppid := os.Getppid()
	_, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, syscall.PR_SET_PDEATHSIG, uintptr(syscall.SIGTERM), 0)
	if errno == 0 && os.Getppid() != ppid {
		_ = syscall.Kill(os.Getpid(), syscall.SIGTERM)
	}
}
