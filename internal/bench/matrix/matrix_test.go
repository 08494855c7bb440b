package matrix

import (
	"strings"
	"testing"
	"time"

	"github.com/corvid-kv/corvid/internal/bench/options"
)

// The article's seven command lines (seed 000), verbatim.
var article = []string{
	`./memtier_benchmark -t 16 -c 50 -s 10.26.90.100 -p 6379 --distinct-client-seed --command="set __key__ __data__" --key-prefix="kv_" --key-minimum=1 --key-maximum=500 --random-data --data-size=128 --test-time=180`,
	`./memtier_benchmark -t 16 -c 50 -s 10.26.90.100 -p 6379 --distinct-client-seed --command="get __key__" --key-prefix="kv_" --key-minimum=1 --key-maximum=500 --test-time=180`,
	`./memtier_benchmark -t 16 -c 50 -s 10.26.90.100 -p 6379 --distinct-client-seed --command="incr __key__" --key-prefix="int_" --key-minimum=1 --key-maximum=500 --test-time=180`,
	`./memtier_benchmark -t 16 -c 50 -s 10.26.90.100 -p 6379 --distinct-client-seed --command="lpush __key__ __data__" --key-prefix="list_" --key-minimum=1 --key-maximum=500 --random-data --data-size=128 --test-time=180`,
	`./memtier_benchmark -t 16 -c 50 -s 10.26.90.100 -p 6379 --distinct-client-seed --command="sadd __key__ __data__" --key-prefix="set_" --key-minimum=1 --key-maximum=500 --random-data --data-size=128 --test-time=180`,
	`./memtier_benchmark -t 16 -c 50 -s 10.26.90.100 -p 6379 --distinct-client-seed --command="zadd __key__ __key__ __data__" --key-prefix="" --key-minimum=1 --key-maximum=500 --random-data --data-size=128 --test-time=180`,
	`./memtier_benchmark -t 16 -c 50 -s 10.26.90.100 -p 6379 --distinct-client-seed --command="hset __key__ __data__ __data__" --key-prefix="hash_" --key-minimum=1 --key-maximum=500 --random-data --data-size=128 --test-time=180`,
}

func seedBase() *options.Config {
	c := options.Defaults()
	c.Threads, c.Clients, c.TestTime = 16, 50, 180*time.Second
	return c
}

// Each seed command, rendered as a memtier line, is the article's line.
func TestCommandLinesMatchTheArticle(t *testing.T) {
	for i, sc := range SeedCommands {
		got := strings.Join(CommandLine(SeedConfig(seedBase(), sc), "10.26.90.100:6379"), " ")
		if want := strings.TrimPrefix(article[i], "./"); got != want {
			t.Errorf("%s:\n got %s\nwant %s", sc.Name, got, want)
		}
	}
}

// Parsing the article's line gives the same configuration SeedConfig builds.
func TestSeedConfigEqualsParsedArticle(t *testing.T) {
	for i, sc := range SeedCommands {
		args, err := options.SplitCommand(strings.TrimPrefix(article[i], "./memtier_benchmark "))
		if err != nil {
			t.Fatal(err)
		}
		parsed, _, err := options.Parse(args)
		if err != nil {
			t.Fatalf("%s: %v", sc.Name, err)
		}
		built := SeedConfig(seedBase(), sc)
		if parsed.Commands[0].Text != built.Commands[0].Text || parsed.KeyPrefix != built.KeyPrefix ||
			parsed.KeyMin != built.KeyMin || parsed.KeyMax != built.KeyMax || parsed.RandomData != built.RandomData ||
			(sc.Data && parsed.DataSize != built.DataSize) || parsed.DistinctClientSeed != built.DistinctClientSeed ||
			parsed.Threads != built.Threads || parsed.Clients != built.Clients || parsed.TestTime != built.TestTime {
			t.Errorf("%s: parsed %+v\nbuilt %+v", sc.Name, parsed, built)
		}
	}
}

func TestParseTarget(t *testing.T) {
	for in, want := range map[string]Target{
		"r8g=10.0.0.1:6379": {"r8g", "10.0.0.1:6379"},
		"127.0.0.1:7000":    {"127.0.0.1:7000", "127.0.0.1:7000"},
	} {
		got, err := ParseTarget(in)
		if err != nil || got != want {
			t.Errorf("%q: %v %v", in, got, err)
		}
	}
	for _, bad := range []string{"", "x=", "=h:1", "name=host"} {
		if _, err := ParseTarget(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestPick(t *testing.T) {
	if got, _ := pick(nil); len(got) != 7 {
		t.Fatal(len(got))
	}
	if got, err := pick([]string{"GET", "zadd"}); err != nil || len(got) != 2 || got[1].KeyPrefix != "" {
		t.Fatal(got, err)
	}
	if _, err := pick([]string{"flushall"}); err == nil {
		t.Fatal("unknown command accepted")
	}
}

// Seed 003's memtier line, parsed and rendered back, keeps its flags.
func TestCommandLineClusterMode(t *testing.T) {
	line := "-R --data-size-range=1024-4096 --data-size-pattern=S --test-time 180 -t 20 -c 50 --cluster-mode --key-pattern=G:G --ratio=1:4"
	args, err := options.SplitCommand(line)
	if err != nil {
		t.Fatal(err)
	}
	cfg, _, err := options.Parse(args)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(CommandLine(cfg, "127.0.0.1:7001"), " ")
	for _, want := range []string{"-t 20 -c 50", "--cluster-mode", "--ratio=1:4", "--key-pattern=G:G", "--random-data", "--data-size-range=1024-4096", "--data-size-pattern=S", "--test-time=180"} {
		if !strings.Contains(got, want) {
			t.Errorf("%s lacks %s", got, want)
		}
	}
	back, _, err := options.Parse(strings.Fields(strings.ReplaceAll(strings.TrimPrefix(got, "memtier_benchmark "), `"`, "")))
	if err != nil {
		t.Fatal(err)
	}
	if back.ClusterMode != cfg.ClusterMode || back.KeyPattern != cfg.KeyPattern || back.Ratio != cfg.Ratio || back.DataSizeRange != cfg.DataSizeRange ||
		back.DataSizePattern != cfg.DataSizePattern || back.RandomData != cfg.RandomData || back.Threads != cfg.Threads {
		t.Errorf("round trip: %+v\nwant %+v", back, cfg)
	}
}
