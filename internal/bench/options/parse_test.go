package options

import (
	"crypto/tls"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/corvid-kv/corvid/internal/bench/keygen"
)

func TestDefaultsAreMemtiers(t *testing.T) {
	c, rest, err := Parse(nil)
	if err != nil || len(rest) != 0 {
		t.Fatal(err, rest)
	}
	checks := []struct {
		name      string
		got, want any
	}{
		{"port", c.Port, 6379},
		{"protocol", c.Protocol, "redis"},
		{"threads", c.Threads, 4},
		{"clients", c.Clients, 50},
		{"requests", c.Requests, uint64(10000)},
		{"ratio", c.Ratio, Ratio{1, 10}},
		{"pipeline", c.Pipeline, 1},
		{"data-size", c.DataSize, 32},
		{"data-size-pattern", c.DataSizePattern, byte('R')},
		{"key-prefix", c.KeyPrefix, "memtier-"},
		{"key-minimum", c.KeyMin, uint64(0)},
		{"key-maximum", c.KeyMax, uint64(10000000)},
		{"key-pattern", c.KeyPattern, [2]keygen.Pattern{'R', 'R'}},
		{"run-count", c.RunCount, 1},
		{"percentiles", c.Percentiles, []float64{50, 99, 99.9}},
		{"embedded", c.Embedded, true},
	}
	for _, ch := range checks {
		if !reflect.DeepEqual(ch.got, ch.want) {
			t.Errorf("%s: got %v want %v", ch.name, ch.got, ch.want)
		}
	}
}

// One row per flag: the args, and a check on the resulting config.
func TestEachFlag(t *testing.T) {
	cases := []struct {
		args  string
		check func(c *Config) bool
	}{
		{"-s 10.0.0.1", func(c *Config) bool { return reflect.DeepEqual(c.Addrs(), []string{"10.0.0.1:6379"}) && !c.Embedded }},
		{"--server=a,b:7000 -s c -p 7001", func(c *Config) bool {
			return reflect.DeepEqual(c.Addrs(), []string{"a:7001", "b:7000", "c:7001"})
		}},
		{"--host h1", func(c *Config) bool { return c.Servers[0] == "h1" }},
		{"-p 7000", func(c *Config) bool { return c.Addrs()[0] == "localhost:7000" && !c.Embedded }},
		{"-S /tmp/r.sock", func(c *Config) bool { return c.Network() == "unix" && c.Addrs()[0] == "/tmp/r.sock" }},
		{"-a user:pw", func(c *Config) bool { return c.Auth == "user:pw" }},
		{"--protocol resp3", func(c *Config) bool { return c.Protocol == "resp3" }},
		{"--tracking", func(c *Config) bool { return c.Tracking && c.Protocol == "resp3" }},
		{"--tracking -P resp3", func(c *Config) bool { return c.Tracking && c.Protocol == "resp3" }},
		{"-P resp2", func(c *Config) bool { return c.Protocol == "resp2" }},
		{"-t 16", func(c *Config) bool { return c.Threads == 16 }},
		{"-t16", func(c *Config) bool { return c.Threads == 16 }},
		{"--threads=3", func(c *Config) bool { return c.Threads == 3 }},
		{"-c 50", func(c *Config) bool { return c.Clients == 50 && c.TotalClients() == 200 }},
		{"-n 500", func(c *Config) bool { return c.Requests == 500 }},
		{"-n allkeys --key-maximum 1000", func(c *Config) bool { return c.Requests == 1000 }},
		{"-n allkeys --key-maximum 1000 --key-pattern P:P -t 2 -c 5", func(c *Config) bool { return c.Requests == 1000/10+1 }},
		{"--test-time=180", func(c *Config) bool { return c.TestTime == 180*time.Second && c.Requests == 0 }},
		{"--test-time 250ms", func(c *Config) bool { return c.TestTime == 250*time.Millisecond }},
		{"--ratio=1:4", func(c *Config) bool { return c.Ratio == Ratio{1, 4} }},
		{"--ratio 0:1", func(c *Config) bool { return len(c.Effective()) == 1 && c.Effective()[0].Text == "GET __key__" }},
		{"--pipeline 45", func(c *Config) bool { return c.Pipeline == 45 }},
		{"--distinct-client-seed", func(c *Config) bool { return c.DistinctClientSeed }},
		{"--randomize", func(c *Config) bool { return c.Randomize && c.Seed != 0 }},
		{"-d 128", func(c *Config) bool { return c.DataSize == 128 }},
		{"--data-size=4096", func(c *Config) bool { return c.DataSize == 4096 }},
		{"--data-size-range=1024-4096", func(c *Config) bool { return c.DataSizeRange == [2]int{1024, 4096} && c.DataSize == 0 }},
		{"--data-size-range=1024-4096 --data-size-pattern=S", func(c *Config) bool { return c.DataSizePattern == 'S' }},
		{"-R", func(c *Config) bool { return c.RandomData }},
		{"--random-data", func(c *Config) bool { return c.RandomData }},
		{"-RD", func(c *Config) bool { return c.RandomData && c.Debug }},
		{"--key-prefix=kv_", func(c *Config) bool { return c.KeyPrefix == "kv_" }},
		{"--key-prefix=", func(c *Config) bool { return c.KeyPrefix == "" }},
		{"--key-minimum=1 --key-maximum=500", func(c *Config) bool { return c.KeyMin == 1 && c.KeyMax == 500 }},
		{"--key-pattern=G:G", func(c *Config) bool { return c.KeyPattern == [2]keygen.Pattern{'G', 'G'} }},
		{"--key-pattern=S:Z", func(c *Config) bool { return c.KeyPattern == [2]keygen.Pattern{'S', 'Z'} }},
		{"--key-stddev 12.5", func(c *Config) bool { return c.KeyStddev == 12.5 }},
		{"--key-median 300", func(c *Config) bool { return c.KeyMedian == 300 }},
		{"--key-zipf-exp 0.99", func(c *Config) bool { return c.KeyZipfExp == 0.99 }},
		{"--command=incr --command-ratio 3 --command-key-pattern G", func(c *Config) bool {
			return len(c.Commands) == 1 && c.Commands[0].Ratio == 3 && c.Commands[0].KeyPattern == 'G'
		}},
		{"--command get --command incr", func(c *Config) bool { return len(c.Effective()) == 2 }},
		{"--cluster-mode", func(c *Config) bool { return c.ClusterMode }},
		{"--select-db 3", func(c *Config) bool { return c.SelectDB == 3 }},
		{"--rate-limiting 1000", func(c *Config) bool { return c.RateLimit == 1000 }},
		{"--reconnect-interval 50", func(c *Config) bool { return c.ReconnectInterval == 50 }},
		{"-x 3", func(c *Config) bool { return c.RunCount == 3 }},
		{"--run-count=2", func(c *Config) bool { return c.RunCount == 2 }},
		{"--print-percentiles 50,90,99.99", func(c *Config) bool { return reflect.DeepEqual(c.Percentiles, []float64{50, 90, 99.99}) }},
		{"--hide-histogram", func(c *Config) bool { return c.HideHistogram }},
		{"--json-out-file out.json", func(c *Config) bool { return c.JSONOut == "out.json" }},
		{"--hdr-file-prefix h", func(c *Config) bool { return c.HDRPrefix == "h" }},
		{"-o out.txt", func(c *Config) bool { return c.OutFile == "out.txt" }},
		{"--out-file=o.txt", func(c *Config) bool { return c.OutFile == "o.txt" }},
		{"--show-config", func(c *Config) bool { return c.ShowConfig }},
		{"--print-all-runs", func(c *Config) bool { return c.PrintAllRuns }},
		{"-s h --tls", func(c *Config) bool {
			return c.TLS.Enabled && c.TLS.MinVersion == tls.VersionTLS12 && c.TLS.MaxVersion == tls.VersionTLS13 && c.ClientIO == ""
		}},
		{"-s h --tls --cert c.crt --key c.key --cacert ca.crt --sni db.example --tls-skip-verify", func(c *Config) bool {
			return c.TLS == TLS{Enabled: true, Cert: "c.crt", Key: "c.key", CACert: "ca.crt", SNI: "db.example", SkipVerify: true,
				MinVersion: tls.VersionTLS12, MaxVersion: tls.VersionTLS13}
		}},
		{"-s h --tls --cert=both.pem", func(c *Config) bool { return c.TLS.Cert == "both.pem" && c.TLS.Key == "" }},
		{"-s h --tls --tls-protocols TLSv1.2", func(c *Config) bool {
			return c.TLS.MinVersion == tls.VersionTLS12 && c.TLS.MaxVersion == tls.VersionTLS12
		}},
		{"-s h --tls --tls-protocols tlsv1,TLSv1.1", func(c *Config) bool {
			return c.TLS.MinVersion == tls.VersionTLS10 && c.TLS.MaxVersion == tls.VersionTLS11
		}},
		{"-s h --tls --tls-protocols=TLSv1.3,TLSv1.2", func(c *Config) bool {
			return c.TLS.MinVersion == tls.VersionTLS12 && c.TLS.MaxVersion == tls.VersionTLS13
		}},
		{"-p 6380 --tls --client-io goroutines", func(c *Config) bool { return c.TLS.Enabled && c.ClientIO == "goroutines" }},
		{"-S /tmp/r.sock --tls", func(c *Config) bool { return c.TLS.Enabled && c.Network() == "unix" }},
		{"-s h --tls --cluster-mode", func(c *Config) bool { return c.TLS.Enabled && c.ClusterMode }},
		{"-s h --tls --show-config", func(c *Config) bool { return c.Describe()["tls"] == true }},
		{"--help", func(c *Config) bool { return c.Help }},
		{"-v", func(c *Config) bool { return c.Version }},
	}
	for _, tc := range cases {
		t.Run(tc.args, func(t *testing.T) {
			c, _, err := Parse(strings.Fields(tc.args))
			if err != nil {
				t.Fatal(err)
			}
			if !tc.check(c) {
				t.Fatalf("unexpected config: %+v", *c)
			}
		})
	}
}

// The seed study's exact command lines parse.
func TestSeedCommandLines(t *testing.T) {
	args := []string{"-t", "16", "-c", "50", "-s", "10.26.90.100", "-p", "6379", "--distinct-client-seed",
		"--command=zadd __key__ __key__ __data__", "--key-prefix=", "--key-minimum=1", "--key-maximum=500",
		"--random-data", "--data-size=128", "--test-time=180"}
	c, _, err := Parse(args)
	if err != nil {
		t.Fatal(err)
	}
	if c.Commands[0].Text != "zadd __key__ __key__ __data__" || c.KeyPrefix != "" || c.TotalClients() != 800 {
		t.Fatalf("%+v", c)
	}
	args = strings.Fields("-R --data-size-range=1024-4096 --data-size-pattern=S --test-time 180 -t 20 -c 50 --cluster-mode --key-pattern=G:G --ratio=1:4 -p 6379 -s cfg")
	if _, _, err := Parse(args); err != nil {
		t.Fatal(err)
	}
}

func TestBadFlags(t *testing.T) {
	cases := []struct{ args, msg string }{
		{"--nope", "unrecognized option '--nope'"},
		{"-Q", "invalid option -- 'Q'"},
		{"-p 0", "port must be a number in the range [1-65535]."},
		{"-p 70000", "port must be"},
		{"-p abc", "port must be"},
		{"-t 0", "threads must be greater than zero."},
		{"-c -3", "clients must be greater than zero."},
		{"-n 0", "requests must be greater than zero."},
		{"-n 10 --test-time 5", "mutually exclusive"},
		{"--test-time 5 -n 10", "mutually exclusive"},
		{"--test-time 5 -n allkeys", "mutually exclusive"},
		{"--test-time 0", "test time must be greater than zero."},
		{"--ratio 1-4", "ratio must be expressed as [0-n]:[0-n]."},
		{"--ratio 0:0", "ratio must be"},
		{"--pipeline 0", "pipeline must be greater than zero."},
		{"--pipeline 2000", "pipeline must be"},
		{"-d 0", "data-size must be greater than zero."},
		{"--data-size-range 10", "data-size-range must be expressed"},
		{"--data-size-range 10-5", "data-size-range must be expressed"},
		{"--data-size-pattern X", "data-size-pattern must be either R or S."},
		{"-d 10 --data-size-range 1-5", "mutually exclusive"},
		{"--key-minimum 0", "key-minimum must be greater than zero."},
		{"--key-maximum x", "key-maximum must be greater than zero."},
		{"--key-minimum 10 --key-maximum 5", "key-maximum must be greater than or equal"},
		{"--key-pattern R", "key-pattern must be in the format"},
		{"--key-pattern X:R", "key-pattern must be in the format"},
		{"--key-pattern P:R", "parallel key-pattern must be configured for both"},
		{"--key-stddev -1", "key-stddev must be"},
		{"--key-median 0", "key-median must be greater than zero."},
		{"--key-median 50 --key-maximum 10", "key-median must be within"},
		{"--key-zipf-exp 5", "key-zipf-exp must be within interval (0, 5)."},
		{"--command-ratio 2", "no arbitrary command found."},
		{"--command-key-pattern R", "no arbitrary command found."},
		{"--protocol memcache_text", "not supported"},
		{"--protocol foo", "supported protocols are"},
		{"-x 0", "run count must be greater than zero."},
		{"--print-percentiles 50,101", "quantiles must be"},
		{"--rate-limiting 0", "rate must be greater than zero."},
		{"--reconnect-interval 0", "reconnect-interval must be greater than zero."},
		{"--select-db -1", "select-db must be greater or equal zero."},
		{"--cluster-mode --reconnect-interval 5", "cluster mode dose not support reconnect-interval"},
		{"--cluster-mode -S /tmp/x", "cluster mode dose not support unix-socket"},
		{"-t", "option requires an argument -- 't'"},
		{"--threads", "option '--threads' requires an argument"},
		{"--hide-histogram=1", "doesn't allow an argument"},
		{"-s a,,b", "empty server address"},
		{"--tracking -P resp2", "--tracking needs --protocol resp3"},
		{"-s h --cert c.crt", "--cert needs --tls."},
		{"-s h --key c.key", "--key needs --tls."},
		{"-s h --cacert ca.crt", "--cacert needs --tls."},
		{"-s h --tls-skip-verify", "--tls-skip-verify needs --tls."},
		{"-s h --tls-protocols TLSv1.2", "--tls-protocols needs --tls."},
		{"-s h --sni db.example", "--sni needs --tls."},
		{"-s h --tls --key c.key", "--key needs --cert"},
		{"-s h --tls --tls-protocols SSLv3", "Invalid tls-protocols specified."},
		{"-s h --tls --tls-protocols TLSv1.2,TLSv1.4", "Invalid tls-protocols specified."},
		{"-s h --tls --tls-protocols ,", "Invalid tls-protocols specified."},
		{"-s h --tls --tls-protocols TLSv1,TLSv1.3", "tls-protocols must name consecutive versions"},
		{"--tls", "--tls needs a server (-s/--server, -p/--port)"},
		{"-s h --tls --client-io epoll", "--tls needs the goroutine client"},
		{"-s h --tls --client-io uring", "--tls needs the goroutine client"},
		{"-s h --tls --tls-protocols", "option '--tls-protocols' requires an argument"},
	}
	for _, tc := range cases {
		t.Run(tc.args, func(t *testing.T) {
			_, _, err := Parse(strings.Fields(tc.args))
			var ue *UsageError
			if !errors.As(err, &ue) {
				t.Fatalf("want UsageError, got %v", err)
			}
			if !strings.HasPrefix(err.Error(), "error: ") || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("got %q, want it to contain %q", err, tc.msg)
			}
		})
	}
}

func TestArbitraryCommandRules(t *testing.T) {
	bad := []struct{ args []string }{
		{[]string{"--command=get __key__", "--key-pattern=R:R"}},
		{[]string{"--command=get __key__", "--ratio=1:1"}},
		{[]string{"--command=get __key__", "--command-key-pattern=P", "--command=set __key__ x"}},
		{[]string{"--command=__key__ get"}},
		{[]string{"--command=   "}},
		{[]string{"--command=get \"unterminated"}},
	}
	for _, b := range bad {
		if _, _, err := Parse(b.args); err == nil {
			t.Errorf("%q accepted", b.args)
		}
	}
}

func TestSplitCommand(t *testing.T) {
	cases := []struct {
		in   string
		want []string
	}{
		{"set __key__ __data__", []string{"set", "__key__", "__data__"}},
		{"  hset   __key__ f1 __data__ ", []string{"hset", "__key__", "f1", "__data__"}},
		{`set k "hello world"`, []string{"set", "k", "hello world"}},
		{`set k 'a b' "q\"x"`, []string{"set", "k", "a b", `q"x`}},
		{`set k ""`, []string{"set", "k", ""}},
	}
	for _, c := range cases {
		got, err := SplitCommand(c.in)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q: got %q err %v", c.in, got, err)
		}
	}
}

func TestParseNeverPanics(t *testing.T) {
	// Every option with odd values: must not panic.
	junk := []string{"", "-", "--", "-1", "99999999999999999999999", "a:b:c", "=", "1-", "-5-3", "nan", "inf"}
	for _, o := range memtierOpts() {
		for _, j := range junk {
			args := []string{"--" + o.Long + "=" + j}
			if !o.Arg {
				args = []string{"--" + o.Long}
			}
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Fatalf("%v panicked: %v", args, r)
					}
				}()
				_, _, _ = Parse(args)
			}()
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add("-t 4 -c 50 --ratio 1:10 --key-pattern G:G")
	f.Add("--command=set __key__ __data__ --command-ratio 2")
	f.Fuzz(func(t *testing.T, s string) {
		_, _, _ = Parse(strings.Fields(s))
	})
}
