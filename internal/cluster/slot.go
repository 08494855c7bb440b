package cluster

import "github.com/corvid-kv/corvid/internal/keyslot"

// Slots is the number of hash slots (CLUSTER_SLOTS).
const Slots = keyslot.Slots

// KeySlot is Valkey's keyHashSlot (package keyslot, which the keyspace
// shares): CRC16 (XMODEM) of the key, or of the part between the first
// '{' and the first '}' after it when that part is not empty, modulo 16384.
func KeySlot(key []byte) int { return keyslot.Of(key) }
