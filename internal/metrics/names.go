package metrics

// The INFO fields redis_exporter turns into metrics of their own, and the
// names it gives them (after the "redis_" namespace). A field that is in
// neither table is not exported, except the prefixes includeField names.
// The tables cover what Valkey 8.0.1 and Redis 7.x print (Corvid's INFO
// has the same fields); the exporter's entries for other servers (Tile38,
// KeyDB, modules) are left out.

// gaugeFields: fields exported as gauges.
var gaugeFields = map[string]string{
	// # Server
	"uptime_in_seconds": "uptime_in_seconds",
	"process_id":        "process_id",
	"io_threads_active": "io_threads_active",

	// # Clients
	"connected_clients":               "connected_clients",
	"blocked_clients":                 "blocked_clients",
	"maxclients":                      "max_clients",
	"tracking_clients":                "tracking_clients",
	"clients_in_timeout_table":        "clients_in_timeout_table",
	"pubsub_clients":                  "pubsub_clients",
	"watching_clients":                "watching_clients",
	"total_watched_keys":              "total_watched_keys",
	"total_blocking_keys":             "total_blocking_keys",
	"total_blocking_keys_on_nokey":    "total_blocking_keys_on_nokey",
	"client_longest_output_list":      "client_longest_output_list",
	"client_biggest_input_buf":        "client_biggest_input_buf",
	"client_recent_max_output_buffer": "client_recent_max_output_buffer_bytes",
	"client_recent_max_input_buffer":  "client_recent_max_input_buffer_bytes",

	// # Memory
	"allocator_active":     "allocator_active_bytes",
	"allocator_allocated":  "allocator_allocated_bytes",
	"allocator_resident":   "allocator_resident_bytes",
	"allocator_frag_ratio": "allocator_frag_ratio",
	"allocator_frag_bytes": "allocator_frag_bytes",
	"allocator_rss_ratio":  "allocator_rss_ratio",
	"allocator_rss_bytes":  "allocator_rss_bytes",

	"used_memory":              "memory_used_bytes",
	"used_memory_rss":          "memory_used_rss_bytes",
	"used_memory_peak":         "memory_used_peak_bytes",
	"used_memory_lua":          "memory_used_lua_bytes",
	"used_memory_vm_eval":      "memory_used_vm_eval_bytes",
	"used_memory_scripts_eval": "memory_used_scripts_eval_bytes",
	"used_memory_overhead":     "memory_used_overhead_bytes",
	"used_memory_startup":      "memory_used_startup_bytes",
	"used_memory_dataset":      "memory_used_dataset_bytes",
	"number_of_cached_scripts": "number_of_cached_scripts",
	"number_of_functions":      "number_of_functions",
	"number_of_libraries":      "number_of_libraries",
	"used_memory_vm_functions": "memory_used_vm_functions_bytes",
	"used_memory_scripts":      "memory_used_scripts_bytes",
	"used_memory_functions":    "memory_used_functions_bytes",
	"used_memory_vm_total":     "memory_used_vm_total",
	"maxmemory":                "memory_max_bytes",

	"mem_fragmentation_ratio":             "mem_fragmentation_ratio",
	"mem_fragmentation_bytes":             "mem_fragmentation_bytes",
	"mem_clients_slaves":                  "mem_clients_slaves",
	"mem_clients_normal":                  "mem_clients_normal",
	"mem_not_counted_for_evict":           "mem_not_counted_for_eviction_bytes",
	"mem_total_replication_buffers":       "mem_total_replication_buffers_bytes",
	"mem_overhead_db_hashtable_rehashing": "mem_overhead_db_hashtable_rehashing_bytes",

	"expired_stale_perc":       "expired_stale_percentage",
	"lazyfree_pending_objects": "lazyfree_pending_objects",
	"active_defrag_running":    "active_defrag_running",
	"migrate_cached_sockets":   "migrate_cached_sockets_total",
	"active_defrag_hits":       "defrag_hits",
	"active_defrag_misses":     "defrag_misses",
	"active_defrag_key_hits":   "defrag_key_hits",
	"active_defrag_key_misses": "defrag_key_misses",
	// A gauge in the Debian exporter (1.45); later ones list it as a
	// counter too.
	"expired_time_cap_reached_count": "expired_time_cap_reached_total",

	// # Persistence
	"loading":                      "loading_dump_file",
	"async_loading":                "async_loading",
	"rdb_changes_since_last_save":  "rdb_changes_since_last_save",
	"rdb_bgsave_in_progress":       "rdb_bgsave_in_progress",
	"rdb_last_save_time":           "rdb_last_save_timestamp_seconds",
	"rdb_last_bgsave_status":       "rdb_last_bgsave_status",
	"rdb_last_bgsave_time_sec":     "rdb_last_bgsave_duration_sec",
	"rdb_current_bgsave_time_sec":  "rdb_current_bgsave_duration_sec",
	"rdb_saves":                    "rdb_saves_total",
	"rdb_last_cow_size":            "rdb_last_cow_size_bytes",
	"rdb_last_load_keys_expired":   "rdb_last_load_expired_keys",
	"rdb_last_load_keys_loaded":    "rdb_last_load_loaded_keys",
	"aof_enabled":                  "aof_enabled",
	"aof_rewrite_in_progress":      "aof_rewrite_in_progress",
	"aof_rewrite_scheduled":        "aof_rewrite_scheduled",
	"aof_last_rewrite_time_sec":    "aof_last_rewrite_duration_sec",
	"aof_current_rewrite_time_sec": "aof_current_rewrite_duration_sec",
	"aof_last_cow_size":            "aof_last_cow_size_bytes",
	"aof_current_size":             "aof_current_size_bytes",
	"aof_base_size":                "aof_base_size_bytes",
	"aof_pending_rewrite":          "aof_pending_rewrite",
	"aof_buffer_length":            "aof_buffer_length",
	"aof_rewrite_buffer_length":    "aof_rewrite_buffer_length",
	"aof_pending_bio_fsync":        "aof_pending_bio_fsync",
	"aof_delayed_fsync":            "aof_delayed_fsync",
	"aof_last_bgrewrite_status":    "aof_last_bgrewrite_status",
	"aof_last_write_status":        "aof_last_write_status",
	"module_fork_in_progress":      "module_fork_in_progress",
	"module_fork_last_cow_size":    "module_fork_last_cow_size",

	// # Stats
	"current_eviction_exceeded_time": "current_eviction_exceeded_time_ms",
	"pubsub_channels":                "pubsub_channels",
	"pubsub_patterns":                "pubsub_patterns",
	"pubsubshard_channels":           "pubsubshard_channels",
	"latest_fork_usec":               "latest_fork_usec", // renamed latest_fork_seconds, in seconds
	"tracking_total_keys":            "tracking_total_keys",
	"tracking_total_items":           "tracking_total_items",
	"tracking_total_prefixes":        "tracking_total_prefixes",

	// # Replication
	"connected_slaves":               "connected_slaves",
	"repl_backlog_size":              "replication_backlog_bytes",
	"repl_backlog_active":            "repl_backlog_is_active",
	"repl_backlog_first_byte_offset": "repl_backlog_first_byte_offset",
	"repl_backlog_histlen":           "repl_backlog_history_bytes",
	"master_repl_offset":             "master_repl_offset",
	"second_repl_offset":             "second_repl_offset",
	"slave_expires_tracked_keys":     "slave_expires_tracked_keys",
	"slave_priority":                 "slave_priority",
	"sync_full":                      "replica_resyncs_full",
	"sync_partial_ok":                "replica_partial_resync_accepted",
	"sync_partial_err":               "replica_partial_resync_denied",

	// # Cluster (CLUSTER INFO)
	"cluster_stats_messages_sent":     "cluster_messages_sent_total",
	"cluster_stats_messages_received": "cluster_messages_received_total",
}

// counterFields: fields exported as counters.
var counterFields = map[string]string{
	"total_connections_received": "connections_received_total",
	"total_commands_processed":   "commands_processed_total",

	"rejected_connections":   "rejected_connections_total",
	"total_net_input_bytes":  "net_input_bytes_total",
	"total_net_output_bytes": "net_output_bytes_total",

	"total_net_repl_input_bytes":  "net_repl_input_bytes_total",
	"total_net_repl_output_bytes": "net_repl_output_bytes_total",

	"expired_subkeys":               "expired_subkeys_total",
	"expired_keys":                  "expired_keys_total",
	"expire_cycle_cpu_milliseconds": "expire_cycle_cpu_time_ms_total",
	"evicted_keys":                  "evicted_keys_total",
	"evicted_clients":               "evicted_clients_total",
	"evicted_scripts":               "evicted_scripts_total",
	"total_eviction_exceeded_time":  "eviction_exceeded_time_ms_total",
	"keyspace_hits":                 "keyspace_hits_total",
	"keyspace_misses":               "keyspace_misses_total",

	"used_cpu_sys":              "cpu_sys_seconds_total",
	"used_cpu_user":             "cpu_user_seconds_total",
	"used_cpu_sys_children":     "cpu_sys_children_seconds_total",
	"used_cpu_user_children":    "cpu_user_children_seconds_total",
	"used_cpu_sys_main_thread":  "cpu_sys_main_thread_seconds_total",
	"used_cpu_user_main_thread": "cpu_user_main_thread_seconds_total",

	"unexpected_error_replies":                  "unexpected_error_replies",
	"total_error_replies":                       "total_error_replies",
	"dump_payload_sanitizations":                "dump_payload_sanitizations",
	"total_reads_processed":                     "total_reads_processed",
	"total_writes_processed":                    "total_writes_processed",
	"io_threaded_reads_processed":               "io_threaded_reads_processed",
	"io_threaded_writes_processed":              "io_threaded_writes_processed",
	"client_query_buffer_limit_disconnections":  "client_query_buffer_limit_disconnections_total",
	"client_output_buffer_limit_disconnections": "client_output_buffer_limit_disconnections_total",
	"reply_buffer_shrinks":                      "reply_buffer_shrinks_total",
	"reply_buffer_expands":                      "reply_buffer_expands_total",
	"acl_access_denied_auth":                    "acl_access_denied_auth_total",
	"acl_access_denied_cmd":                     "acl_access_denied_cmd_total",
	"acl_access_denied_key":                     "acl_access_denied_key_total",
	"acl_access_denied_channel":                 "acl_access_denied_channel_total",
}

// Help texts of the metrics that are not one INFO field each (those get
// "<name> metric", as from the exporter).
var helps = map[string]string{
	"up":                                      "Information about the Redis instance",
	"instance_info":                           "Information about the Redis instance",
	"slave_info":                              "Information about the Redis slave",
	"start_time_seconds":                      "Start time of the Redis instance since unix epoch in seconds.",
	"commands_total":                          "Total number of calls per command",
	"commands_duration_seconds_total":         "Total amount of time in seconds spent per command",
	"commands_rejected_calls_total":           "Total number of errors within command execution per command",
	"commands_failed_calls_total":             "Total number of errors prior command execution per command",
	"latency_percentiles_usec":                "A summary of latency percentile distribution per command",
	"errors_total":                            "Total number of errors per error type",
	"db_keys":                                 "Total number of keys by DB",
	"db_keys_expiring":                        "Total number of expiring keys by DB",
	"db_avg_ttl_seconds":                      "Avg TTL in seconds",
	"connected_slave_offset_bytes":            "Offset of connected slave",
	"connected_slave_lag_seconds":             "Lag of connected slave",
	"master_link_up":                          "Master link status on Redis slave",
	"master_sync_in_progress":                 "Master sync in progress",
	"master_last_io_seconds_ago":              "Master last io seconds ago",
	"slave_repl_offset":                       "Slave replication offset",
	"slowlog_length":                          "Total slowlog",
	"slowlog_last_id":                         "Last id of slowlog",
	"last_slow_execution_duration_seconds":    "The amount of time needed for last slow execution, in seconds",
	"latency_spike_last":                      "When the latency spike last occurred",
	"latency_spike_duration_seconds":          "Length of the last latency spike in seconds",
	"config_client_output_buffer_limit_bytes": "The configured buffer limits per class",
	"config_client_output_buffer_limit_overcome_seconds": "How long for buffer limits per class to be exceeded before replicas are dropped",
	"exporter_last_scrape_error":                         "The last scrape error status.",
	"exporter_scrapes_total":                             "Current total redis scrapes.",
	"exporter_scrape_duration_seconds":                   "Durations of scrapes by the exporter",
	"exporter_last_scrape_duration_seconds":              "exporter_last_scrape_duration_seconds metric",
	"target_scrape_request_errors_total":                 "Errors in requests to the exporter",
}
