package rdb

// Version is the RDB version this package writes: Valkey 8.0.1's
// RDB_VERSION. The reader accepts every version from 1 to Version.
const Version = 11

// RDB object types (rdb.h RDB_TYPE_*). The values are fixed by the file
// format.
const (
	typeString           = 0
	typeList             = 1
	typeSet              = 2
	typeZSet             = 3
	typeHash             = 4
	typeZSet2            = 5
	typeModulePreGA      = 6
	typeModule2          = 7
	typeHashZipmap       = 9
	typeListZiplist      = 10
	typeSetIntset        = 11
	typeZSetZiplist      = 12
	typeHashZiplist      = 13
	typeListQuicklist    = 14
	typeStreamListpacks  = 15
	typeHashListpack     = 16
	typeZSetListpack     = 17
	typeListQuicklist2   = 18
	typeStreamListpacks2 = 19
	typeSetListpack      = 20
	typeStreamListpacks3 = 21
)

// Opcodes (rdb.h RDB_OPCODE_*), read where an object type may appear.
const (
	opSlotInfo      = 244
	opFunction2     = 245
	opFunctionPreGA = 246
	opModuleAux     = 247
	opIdle          = 248
	opFreq          = 249
	opAux           = 250
	opResizeDB      = 251
	opExpireTimeMs  = 252
	opExpireTime    = 253
	opSelectDB      = 254
	opEOF           = 255
)

// Length encodings (rdb.h RDB_6BITLEN ... RDB_ENC_*).
const (
	len6     = 0
	len14    = 1
	len32    = 0x80
	len64    = 0x81
	lenEnc   = 3
	encInt8  = 0
	encInt16 = 1
	encInt32 = 2
	encLZF   = 3
)

// Quicklist node containers (quicklist.h QUICKLIST_NODE_CONTAINER_*).
const (
	containerPlain  = 1
	containerPacked = 2
)

// rdbTypeName names an RDB object type or opcode for error messages.
func rdbTypeName(t byte) string {
	switch t {
	case typeString:
		return "string"
	case typeList:
		return "list"
	case typeSet:
		return "set"
	case typeZSet:
		return "zset"
	case typeHash:
		return "hash"
	case typeZSet2:
		return "zset-v2"
	case typeModulePreGA:
		return "module-pre-ga"
	case typeModule2:
		return "module"
	case typeHashZipmap:
		return "hash-zipmap"
	case typeListZiplist:
		return "list-ziplist"
	case typeSetIntset:
		return "set-intset"
	case typeZSetZiplist:
		return "zset-ziplist"
	case typeHashZiplist:
		return "hash-ziplist"
	case typeListQuicklist:
		return "list-quicklist"
	case typeStreamListpacks, typeStreamListpacks2, typeStreamListpacks3:
		return "stream"
	case typeHashListpack:
		return "hash-listpack"
	case typeZSetListpack:
		return "zset-listpack"
	case typeListQuicklist2:
		return "list-quicklist-v2"
	case typeSetListpack:
		return "set-listpack"
	case opFunction2:
		return "function"
	case opFunctionPreGA:
		return "function-pre-ga"
	case opModuleAux:
		return "module-aux"
	}
	return "unknown"
}
