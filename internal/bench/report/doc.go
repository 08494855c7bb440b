// Package report holds the seed study's result table — ops/sec per command
// per target, per scenario (io-threads setting) — and the rows the seed
// derives from it:
//
//	total                             sum of the commands' ops/sec
//	total_normalized_pct              total / total(baseline) × 100
//	price_normalized_pct              price / price(baseline) × 100
//	price_performance_normalized_pct  total_normalized / price_normalized × 100
//
// It reads recorded results in several formats (its own CSV and JSON,
// memtier_benchmark JSON, redis-benchmark --csv output, and a plain
// "target,qps" file such as sysbench numbers), merges them, and writes the
// table as text, CSV, normalized CSV and JSON. The chart package draws it.
//
// Invariants: a Table is built once (by a reader or by the matrix runner)
// and then only read; percentages are kept unrounded and rounded only when
// printed, so rounding happens once.
package report
