// Package rdbcompat checks package rdb against real servers: files
// written by rdb are loaded by valkey-server 8.0.1 and checked with
// valkey-check-rdb, and files saved by valkey-server 8.0.1 (RDB 11) and
// redis-server 7.0.15 (RDB 10) are read by rdb. Tests skip when the
// servers are absent (see testutil.ValkeyServerPath).
package rdbcompat
