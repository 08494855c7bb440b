package bench

import (
	"context"
	"fmt"
	"io"

	"github.com/corvid-kv/corvid/internal/bench/options"
	"github.com/corvid-kv/corvid/internal/bench/pubsub"
)

const pubsubUsage = `Usage: corvid-bench pubsub [-s host] [-p port] [--subscribers N] [--channels C] [--publishers P] [options]

Pub/sub fan-out, which memtier_benchmark cannot measure: N subscriber
connections on C channels, P publishers publishing as fast as their
replies come back (--pipeline in flight) for --test-time, each message
carrying its publisher, sequence number and send time. Prints PUBLISH
ops/s, delivered messages/s (received within the test time, summed over
subscribers), delivery latency (p50, p99, p99.9), and a check: in order
per publisher, every subscriber reached, and delivered == the sum of the
PUBLISH replies when no subscriber was dropped (exit status 1 if not).
Without -s/-p/-S, runs against the embedded corvid-server.

`

// runPubSub is the pubsub subcommand.
func runPubSub(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg, err := pubsub.Parse(args)
	if err != nil {
		return err
	}
	if cfg.Help {
		fmt.Fprint(stdout, pubsubUsage+options.UsageOf(pubsub.Opts(pubsub.Defaults())))
		return nil
	}
	addr := cfg.Addr()
	if addr == "" {
		a, stop, err := embedded()
		if err != nil {
			return err
		}
		defer stop()
		fmt.Fprintf(stderr, "no server given: running against the embedded corvid-server at %s\n", a)
		addr = a
	}
	res, err := pubsub.Run(ctx, cfg, addr, stderr)
	if err != nil {
		return err
	}
	if cfg.JSON {
		if err := res.WriteJSON(stdout); err != nil {
			return err
		}
	} else {
		res.WriteText(stdout)
	}
	if cfg.JSONOut != "" {
		if err := writeFile(cfg.JSONOut, res.WriteJSON); err != nil {
			return err
		}
	}
	if res.Failed() {
		return fmt.Errorf("%w: %s", pubsub.ErrCheck, res.CheckDetail)
	}
	return nil
}
