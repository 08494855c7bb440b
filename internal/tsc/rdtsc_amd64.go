package tsc

const haveRDTSC = true

func rdtsc() int64
