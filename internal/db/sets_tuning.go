package db

// The encoding thresholds of sets and sorted sets (tuning.go holds the
// configured values).

func setMaxIntsetEntries() int64    { return SetMaxIntsetEntries.Load() }
func setMaxListpackEntries() int64  { return SetMaxListpackEntries.Load() }
func setMaxListpackValue() int64    { return SetMaxListpackValue.Load() }
func zsetMaxListpackEntries() int64 { return ZSetMaxListpackEntries.Load() }
func zsetMaxListpackValue() int64   { return ZSetMaxListpackValue.Load() }
