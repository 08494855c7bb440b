package bench

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/corvid-kv/corvid/internal/bench/wire"
	"github.com/corvid-kv/corvid/tests/testutil"
)

// corvid-bench over TLS against the real corvid-server binary (tls-port,
// tls-auth-clients yes): a pipelined SET/GET run with a client
// certificate, then the refusals (a CA that did not sign the server's
// certificate, no client certificate), each a clear error, not a hang.
func TestTLSEndToEnd(t *testing.T) {
	f := testutil.NewTLSFiles(t)
	p, taddr := testutil.StartCorvidTLS(t, f, true)
	h, port := hostPort(taddr)
	js := filepath.Join(t.TempDir(), "out.json")
	tlsFlags := []string{"--tls", "--cacert", f.CACert, "--cert", f.ClientCert, "--key", f.ClientKey}
	args := append([]string{"-s", h, "-p", port}, tlsFlags...)
	args = append(args, "-t", "1", "-c", "2", "-n", "320", "--pipeline", "16", "--ratio", "1:1",
		"--key-minimum", "1", "--key-maximum", "50", "--key-pattern", "S:S", "-d", "64", "--hide-histogram", "--json-out-file", js)
	out, errOut, code := run(t, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, errOut, p.Output())
	}
	var doc struct {
		Configuration map[string]any                         `json:"configuration"`
		All           map[string]struct{ Count, Errors int } `json:"ALL STATS"`
	}
	b, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	// 2 connections x 320 requests, alternating SET and GET.
	if s, g := doc.All["Sets"], doc.All["Gets"]; s.Count != 320 || g.Count != 320 || s.Errors+g.Errors != 0 {
		t.Fatalf("Sets %+v Gets %+v\n%s", s, g, out)
	}
	if doc.Configuration["tls"] != true || doc.Configuration["cert"] != f.ClientCert {
		t.Fatalf("configuration %v", doc.Configuration)
	}
	// The keys are on the server: memtier-1 ... memtier-50, 64 bytes each
	// (read through the plaintext port).
	c, err := wire.Dial("tcp", p.Addr, hangTimeout)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(hangTimeout))
	if v, err := c.Do("DBSIZE"); err != nil || v.Int != 50 {
		t.Fatalf("DBSIZE %+v %v", v, err)
	}
	for _, k := range []int{1, 50} {
		if v, err := c.Do("STRLEN", "memtier-"+strconv.Itoa(k)); err != nil || v.Int != 64 {
			t.Fatalf("STRLEN memtier-%d: %+v %v", k, v, err)
		}
	}

	other := testutil.NewTLSFiles(t) // a CA that did not sign the server's certificate
	for _, tc := range []struct {
		name  string
		flags []string
		want  string
	}{
		{"another CA", []string{"--tls", "--cacert", other.CACert, "--cert", f.ClientCert, "--key", f.ClientKey},
			"error: cannot connect to " + taddr + ": TLS handshake: server certificate not trusted: x509: certificate signed by unknown authority"},
		{"no client certificate", []string{"--tls", "--cacert", f.CACert}, "error: cannot connect to " + taddr + ": PING: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"-s", h, "-p", port, "-t", "1", "-c", "1", "-n", "10"}, tc.flags...)
			type result struct {
				errOut string
				code   int
			}
			done := make(chan result, 1)
			go func() {
				_, errOut, code := run(t, args...)
				done <- result{errOut, code}
			}()
			select {
			case r := <-done:
				if r.code != 1 || !strings.Contains(r.errOut, tc.want) {
					t.Fatalf("exit %d, stderr %q; want 1 and %q", r.code, r.errOut, tc.want)
				}
			case <-time.After(hangTimeout):
				t.Fatal("corvid-bench hung")
			}
		})
	}
}
