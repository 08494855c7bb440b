// Package chart draws a report.Table the way the seed article shows it: for
// every scenario, grouped bars (one group per command, one bar per target,
// ops/sec), and beside them the normalized lines (total, price and
// price-performance, % of the baseline) across targets.
//
// The drawing is built once as a list of shapes and rendered either as SVG
// (hand-written, opens in any browser) or as PNG via image/png (same
// geometry; text is left out of the PNG because the standard library has no
// font rasteriser — the SVG is the labelled version).
//
// Invariants: rendering is deterministic (same table, same bytes) and uses
// only the standard library; no state is kept between calls.
package chart
