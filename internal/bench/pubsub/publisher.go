package pubsub

import (
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/corvid-kv/corvid/internal/bench/wire"
)

// publisher is one publishing connection. Its goroutine owns every field;
// Run reads them after the goroutine ended.
type publisher struct {
	sh     *shared
	id     uint32
	nc     net.Conn
	prefix [][]byte // per channel: the request up to the message's bytes
	pad    []byte   // the message after its header
	out    []byte   // the batch being written
	buf    []byte   // read buffer; unread bytes are buf[r:w]
	r, w   int
	seq    uint64

	published uint64 // PUBLISH replies read
	receivers uint64 // their sum
	err       error
}

// newPublisher prepares the request prefixes: "*3 $7 PUBLISH $n <channel>
// $size" for every channel, so a batch is appends only.
func newPublisher(sh *shared, id int, nc net.Conn) *publisher {
	cmd := "PUBLISH"
	if sh.cfg.Mode == ModeSharded {
		cmd = "SPUBLISH"
	}
	p := &publisher{sh: sh, id: uint32(id), nc: nc, pad: make([]byte, sh.cfg.DataSize-HeaderSize),
		out: make([]byte, 0, sh.cfg.Pipeline*(sh.cfg.DataSize+64)), buf: make([]byte, 16<<10)}
	for i := range p.pad {
		p.pad[i] = 'x'
	}
	for ch := 0; ch < sh.cfg.Channels; ch++ {
		b := wire.AppendCommand(nil, cmd, sh.channel(ch))
		b[1] = '3' // "*2" -> "*3": the message follows
		b = append(b, '$')
		b = strconv.AppendInt(b, int64(sh.cfg.DataSize), 10)
		p.prefix = append(p.prefix, append(b, '\r', '\n'))
	}
	return p
}

// run publishes batches of Pipeline messages until the test time is up.
func (p *publisher) run() {
	cfg := p.sh.cfg
	nch := uint64(cfg.Channels)
	for p.sh.now() < p.sh.deadline && p.sh.ctx.Err() == nil {
		if cfg.MaxLag > 0 && !p.waitLag(cfg.MaxLag) {
			return
		}
		p.out = p.out[:0]
		sent := p.sh.now()
		for i := 0; i < cfg.Pipeline; i++ {
			p.seq++
			p.out = append(p.out, p.prefix[(uint64(p.id)+p.seq)%nch]...)
			p.out = AppendPayload(p.out, Header{Publisher: p.id, Seq: p.seq, Sent: sent}, p.pad)
			p.out = append(p.out, '\r', '\n')
		}
		if _, err := p.nc.Write(p.out); err != nil {
			p.fail(err)
			return
		}
		var recv int64
		for got := 0; got < cfg.Pipeline; {
			n, v, emsg, err := parseInt(p.buf[p.r:p.w])
			if err != nil {
				p.fail(err)
				return
			}
			if n == 0 {
				if err := p.fill(); err != nil {
					p.fail(err)
					return
				}
				continue
			}
			p.r += n
			got++
			if emsg != nil {
				p.fail(fmt.Errorf("%s", emsg))
				return
			}
			recv += v
		}
		p.published += uint64(cfg.Pipeline)
		p.receivers += uint64(recv)
		p.sh.expected.Add(recv)
	}
}

// waitLag waits while more than maxLag published messages are not yet
// delivered; false when the test time ran out meanwhile.
func (p *publisher) waitLag(maxLag int64) bool {
	for p.sh.expected.Load()-p.sh.delivered.Load() > maxLag {
		if p.sh.now() >= p.sh.deadline || p.sh.ctx.Err() != nil {
			return false
		}
		time.Sleep(20 * time.Microsecond)
	}
	return true
}

func (p *publisher) fill() error {
	var err error
	p.buf, p.w, err = wire.MakeRoom(p.buf, p.r, p.w)
	p.r = 0
	if err != nil {
		return err
	}
	n, err := p.nc.Read(p.buf[p.w:])
	p.w += n
	if n > 0 {
		return nil
	}
	return err
}

func (p *publisher) fail(err error) {
	if p.sh.ctx.Err() != nil {
		return
	}
	p.err = fmt.Errorf("publisher %d: %w", p.id, err)
}
