package server

import (
	"testing"

	"github.com/corvid-kv/corvid/internal/config"
	"github.com/corvid-kv/corvid/internal/db"
)

// TestNotifyClassBits: the server hands notify-keyspace-events' bits
// (package config) to the keyspace as they are, so package db's class
// constants must be the same bits.
func TestNotifyClassBits(t *testing.T) {
	pairs := [][2]int{
		{db.NotifyKeyspace, config.NotifyKeyspace}, {db.NotifyKeyevent, config.NotifyKeyevent},
		{db.NotifyGeneric, config.NotifyGeneric}, {db.NotifyString, config.NotifyString},
		{db.NotifyList, config.NotifyList}, {db.NotifySet, config.NotifySet},
		{db.NotifyHash, config.NotifyHash}, {db.NotifyZset, config.NotifyZset},
		{db.NotifyExpired, config.NotifyExpired}, {db.NotifyEvicted, config.NotifyEvicted},
		{db.NotifyStream, config.NotifyStream}, {db.NotifyKeyMiss, config.NotifyKeyMiss},
		{db.NotifyModule, config.NotifyModule}, {db.NotifyNew, config.NotifyNew},
	}
	for i, p := range pairs {
		if p[0] != p[1] {
			t.Errorf("class %d: db %#x, config %#x", i, p[0], p[1])
		}
	}
}
