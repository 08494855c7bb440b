package rdb

import "github.com/corvid-kv/corvid/internal/ds"

// LZF is ds's (liblzf 3.6 as Valkey builds it), shared with the
// quicklist's compressed nodes; these names keep the writer and the
// reader short.

type lzfTable = ds.LZFTable

const lzfMaxRatio = ds.LZFMaxRatio

func lzfCompress(in []byte, outLen int, htab *lzfTable, out []byte) []byte {
	return ds.LZFCompress(in, outLen, htab, out)
}

func lzfDecompress(in []byte, n int) ([]byte, bool) { return ds.LZFDecompress(in, n) }
