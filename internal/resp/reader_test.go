package resp_test

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/corvid-kv/corvid/internal/resp"
)

func parseAll(t testing.TB, in string) ([][]string, error) {
	r := resp.NewReader()
	r.Feed([]byte(in))
	var out [][]string
	for {
		argv, err := r.Next()
		if err != nil {
			return out, err
		}
		if argv == nil {
			return out, nil
		}
		var cmd []string
		for _, a := range argv {
			cmd = append(cmd, string(a))
		}
		out = append(out, cmd)
	}
}

func TestReaderCommands(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want [][]string
		err  string
	}{
		{"multibulk", "*2\r\n$3\r\nGET\r\n$1\r\nk\r\n", [][]string{{"GET", "k"}}, ""},
		{"pipeline", "*1\r\n$4\r\nPING\r\n*1\r\n$4\r\nPING\r\n", [][]string{{"PING"}, {"PING"}}, ""},
		{"inline", "SET k v\r\n", [][]string{{"SET", "k", "v"}}, ""},
		{"inline lf only", "PING\n", [][]string{{"PING"}}, ""},
		{"inline quotes", "SET \"a b\" 'c\\'d' \"\\x41\\n\"\r\n", [][]string{{"SET", "a b", "c'd", "A\n"}}, ""},
		{"blank lines skipped", "\r\n\r\nPING\r\n", [][]string{{"PING"}}, ""},
		{"empty multibulk skipped", "*0\r\n*-1\r\n*1\r\n$4\r\nPING\r\n", [][]string{{"PING"}}, ""},
		{"empty bulk", "*2\r\n$3\r\nGET\r\n$0\r\n\r\n", [][]string{{"GET", ""}}, ""},
		{"binary bulk", "*2\r\n$3\r\nGET\r\n$4\r\na\r\nb\r\n", [][]string{{"GET", "a\r\nb"}}, ""},
		{"partial", "*2\r\n$3\r\nGET\r\n$1\r\n", nil, ""},
		{"bad count", "*x\r\n", nil, "Protocol error: invalid multibulk length"},
		{"huge count", "*4294967296\r\n", nil, "Protocol error: invalid multibulk length"},
		{"expected dollar", "*1\r\n+PING\r\n", nil, "Protocol error: expected '$', got '+'"},
		{"bad bulk len", "*1\r\n$-1\r\n", nil, "Protocol error: invalid bulk length"},
		{"bulk over limit", "*1\r\n$536870913\r\n", nil, "Protocol error: invalid bulk length"},
		{"unbalanced", "SET \"a\r\n", nil, "Protocol error: unbalanced quotes in request"},
		{"quote then char", "SET \"a\"b\r\n", nil, "Protocol error: unbalanced quotes in request"},
		{"too big inline", strings.Repeat("a", 70000), nil, "Protocol error: too big inline request"},
		{"too big count", "*" + strings.Repeat("1", 70000), nil, "Protocol error: too big mbulk count string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseAll(t, tt.in)
			if tt.err != "" {
				var pe resp.ProtocolError
				if !errors.As(err, &pe) || string(pe) != tt.err {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error %v", err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
			for i := range got {
				if strings.Join(got[i], "|") != strings.Join(tt.want[i], "|") {
					t.Fatalf("cmd %d: got %q, want %q", i, got[i], tt.want[i])
				}
			}
		})
	}
}

func TestReaderUnauthenticatedLimits(t *testing.T) {
	r := resp.NewReader()
	r.Unauthenticated = true
	r.Feed([]byte("*11\r\n"))
	if _, err := r.Next(); err == nil || err.Error() != "Protocol error: unauthenticated multibulk length" {
		t.Fatalf("err = %v", err)
	}
	r = resp.NewReader()
	r.Unauthenticated = true
	r.Feed([]byte("*1\r\n$16385\r\n"))
	if _, err := r.Next(); err == nil || err.Error() != "Protocol error: unauthenticated bulk length" {
		t.Fatalf("err = %v", err)
	}
}

// oneByte delivers its data a byte per Read, the worst case for framing.
type oneByte struct{ data []byte }

func (o *oneByte) Read(p []byte) (int, error) {
	if len(o.data) == 0 {
		return 0, io.EOF
	}
	p[0] = o.data[0]
	o.data = o.data[1:]
	return 1, nil
}

func TestReaderFillByteByByte(t *testing.T) {
	big := strings.Repeat("x", 100000) // forces growth past the initial buffer
	in := "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$100000\r\n" + big + "\r\nPING\r\n"
	src := &oneByte{data: []byte(in)}
	r := resp.NewReader()
	var got [][]string
	for {
		_, err := r.Fill(src)
		for {
			argv, perr := r.Next()
			if perr != nil {
				t.Fatal(perr)
			}
			if argv == nil {
				break
			}
			var cmd []string
			for _, a := range argv {
				cmd = append(cmd, string(a))
			}
			got = append(got, cmd)
		}
		if err != nil {
			break
		}
	}
	if len(got) != 2 || got[0][2] != big || got[1][0] != "PING" {
		t.Fatalf("got %d commands", len(got))
	}
}

func TestReaderNextAllocs(t *testing.T) {
	in := []byte("*3\r\n$3\r\nSET\r\n$3\r\nkey\r\n$5\r\nvalue\r\n")
	r := resp.NewReader()
	allocs := testing.AllocsPerRun(100, func() {
		r.Feed(in)
		if argv, err := r.Next(); err != nil || len(argv) != 3 {
			t.Fatal("bad parse")
		}
	})
	if allocs != 0 {
		t.Fatalf("Next allocates %v times per command", allocs)
	}
}

func BenchmarkReaderPipeline(b *testing.B) {
	var in []byte
	for i := 0; i < 64; i++ {
		in = append(in, "*3\r\n$3\r\nSET\r\n$10\r\nkey:000001\r\n$16\r\nvalue-0123456789\r\n"...)
	}
	r := resp.NewReader()
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		r.Feed(in)
		for {
			argv, _ := r.Next()
			if argv == nil {
				break
			}
		}
	}
}

// BenchmarkReaderLargeMultibulk: one command of a million arguments (an
// RPUSH of 1M elements) arriving in 16 KB pieces, parsed after each piece
// as the server does. Each byte is looked at once, not once per piece.
func BenchmarkReaderLargeMultibulk(b *testing.B) {
	const n = 1000000
	in := []byte("*" + strconv.Itoa(n+2) + "\r\n$5\r\nRPUSH\r\n$4\r\nlist\r\n")
	for i := range n {
		in = append(in, "$8\r\n"...)
		in = append(in, fmt.Sprintf("e%07d\r\n", i)...)
	}
	r := resp.NewReader()
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		cmds := 0
		for off := 0; off < len(in); off += 16 << 10 {
			r.Feed(in[off:min(off+16<<10, len(in))])
			for {
				argv, err := r.Next()
				if err != nil {
					b.Fatal(err)
				}
				if argv == nil {
					break
				}
				if len(argv) != n+2 {
					b.Fatalf("%d arguments", len(argv))
				}
				cmds++
			}
		}
		if cmds != 1 {
			b.Fatalf("%d commands", cmds)
		}
	}
}

// TestReaderSplitAnywhere: a pipeline cut at any one or two places parses
// as it does in one piece: the parse state carried between pieces (also
// across the one-pass path for commands that arrive whole) is exact.
func TestReaderSplitAnywhere(t *testing.T) {
	in := "*1\r\n$4\r\nPING\r\n\n*2\r\n$4\r\nECHO\r\n$0\r\n\r\nGET k\r\n*0\r\n" +
		"*3\r\n$3\r\nSET\r\n$2\r\nkk\r\n$10\r\n0123456789\r\n\r\nECHO \"a b\"\n*1\r\n$2\r\nxyPING\r\n"
	want, err := parseAll(t, in)
	if err != nil || len(want) != 7 {
		t.Fatalf("whole: %q, %v", want, err)
	}
	for i := 0; i <= len(in); i++ {
		for j := i; j <= len(in); j++ {
			r := resp.NewReader()
			var got [][]string
			for _, piece := range []string{in[:i], in[i:j], in[j:]} {
				r.Feed([]byte(piece))
				for {
					argv, err := r.Next()
					if err != nil {
						t.Fatalf("cut at %d, %d: %v", i, j, err)
					}
					if argv == nil {
						break
					}
					var cmd []string
					for _, a := range argv {
						cmd = append(cmd, string(a))
					}
					got = append(got, cmd)
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(want) || r.Buffered() != 0 {
				t.Fatalf("cut at %d, %d: %q (%d left), want %q", i, j, got, r.Buffered(), want)
			}
		}
	}
}
