// Package clusterup starts a cluster of server processes and forms it
// over the client protocol, as seed 003's side-by-side run needs: N
// primaries of one server kind (Corvid, valkey-server, redis-server), each
// its own process on a free 127.0.0.1 port with its own cluster bus port,
// temporary directory and nodes.conf, joined into one cluster without
// valkey-cli: CLUSTER ADDSLOTSRANGE gives every node its share of the 16384
// slots (Split, the division valkey-cli --cluster create makes), CLUSTER
// SET-CONFIG-EPOCH gives each a distinct epoch, CLUSTER MEET introduces
// them, and Form waits until every node reports cluster_state:ok, knows
// every other node and returns the planned slot map from CLUSTER SLOTS.
//
// Invariants: the wait is bounded (Options.FormTimeout) and its error names
// each node's state; Start stops every process it started when it fails;
// Cluster.Stop stops them all and is safe to call twice. No replicas: the
// nodes are primaries only.
package clusterup
