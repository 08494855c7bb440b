package server

import (
	"github.com/corvid-kv/corvid/internal/config"
	"github.com/corvid-kv/corvid/internal/db"
)

// applyTuning pushes the collection encoding thresholds (list-max-listpack-size,
// hash-max-listpack-*, set-max-*, zset-max-listpack-*) into package db.
// Owned by the collections engineers.
func applyTuning(cfg *config.Config) {}

// collectionHandlers lists the list/hash/set/zset command groups.
// Owned by the collections engineers.
func collectionHandlers() []db.Handler { return nil }
