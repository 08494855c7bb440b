package db

// HyperLogLog commands (PFADD, PFCOUNT, PFMERGE, PFDEBUG, PFSELFTEST).
var HLLCommands = []Handler{}
