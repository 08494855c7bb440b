package tlsrec

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"io"
)

// Record layer constants (RFC 8446 section 5).
const (
	headerLen = 5
	// MaxPlaintext is the most application data one record carries.
	MaxPlaintext = 1 << 14
	// maxCiphertext bounds a TLS 1.3 record's body: the plaintext, its
	// content type and padding, and the AEAD's expansion (at most 256).
	maxCiphertext = MaxPlaintext + 256

	recordAlert       = 21
	recordHandshake   = 22
	recordApplication = 23

	msgKeyUpdate = 24

	tagLen   = 16
	nonceLen = 12
)

// ErrRecord reports a record that does not authenticate, is malformed or
// carries something this package does not accept after a handshake. The
// connection must be closed.
var ErrRecord = errors.New("tls: bad record")

// suite is what a TLS 1.3 cipher suite fixes here: its AEAD key length
// and its hash (the HKDF hash of the key schedule).
type suite struct {
	keyLen  int
	newHash func() hash.Hash
}

func suiteFor(id uint16) (suite, bool) {
	switch id {
	case tls.TLS_AES_128_GCM_SHA256:
		return suite{16, sha256.New}, true
	case tls.TLS_AES_256_GCM_SHA384:
		return suite{32, sha512.New384}, true
	}
	return suite{}, false
}

// direction is one half of the connection: its traffic secret, the AEAD
// and IV derived from it, and its sequence number.
type direction struct {
	secret []byte
	aead   cipher.AEAD
	iv     [nonceLen]byte
	seq    uint64
	// scratch holds the current nonce and a record header: slices of a
	// field do not escape to the heap per record as locals would.
	nonceBuf [nonceLen]byte
	hdrBuf   [headerLen]byte
}

func (d *direction) setSecret(s suite, secret []byte) error {
	key, err := expandLabel(s, secret, "key", s.keyLen)
	if err != nil {
		return err
	}
	iv, err := expandLabel(s, secret, "iv", nonceLen)
	if err != nil {
		return err
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return err
	}
	d.secret, d.aead, d.seq = secret, aead, 0
	copy(d.iv[:], iv)
	return nil
}

// next moves to the next traffic secret (a KeyUpdate).
func (d *direction) next(s suite) error {
	secret, err := expandLabel(s, d.secret, "traffic upd", s.newHash().Size())
	if err != nil {
		return err
	}
	return d.setSecret(s, secret)
}

// nonce is the per-record nonce (the IV XOR the sequence number), in
// d's scratch space: valid until the next call.
func (d *direction) nonce() []byte {
	d.nonceBuf = d.iv
	x := binary.BigEndian.Uint64(d.nonceBuf[nonceLen-8:]) ^ d.seq
	binary.BigEndian.PutUint64(d.nonceBuf[nonceLen-8:], x)
	return d.nonceBuf[:]
}

// expandLabel is HKDF-Expand-Label with an empty context (RFC 8446
// section 7.1).
func expandLabel(s suite, secret []byte, label string, n int) ([]byte, error) {
	full := "tls13 " + label
	info := make([]byte, 0, 4+len(full))
	info = binary.BigEndian.AppendUint16(info, uint16(n))
	info = append(info, byte(len(full)))
	info = append(info, full...)
	info = append(info, 0)
	return hkdf.Expand(s.newHash, secret, string(info), n)
}

// Session is a TLS 1.3 connection's record layer after its handshake.
type Session struct {
	suite suite
	in    direction
	out   direction
	// pending holds control records (a KeyUpdate answer) Seal writes
	// before the next data.
	pending []byte
	// Buffered is what the client sent after its Finished that the
	// handshake did not read: whole or partial records, to be given to
	// Open before anything read later.
	Buffered []byte
	// closed is set once close_notify arrived.
	closed bool
}

// newSession builds a Session from the two application traffic secrets.
func newSession(suiteID uint16, clientSecret, serverSecret []byte) (*Session, error) {
	s, ok := suiteFor(suiteID)
	if !ok {
		return nil, fmt.Errorf("tlsrec: cipher suite %#04x not handled", suiteID)
	}
	ss := &Session{suite: s}
	if err := ss.in.setSecret(s, clientSecret); err != nil {
		return nil, err
	}
	if err := ss.out.setSecret(s, serverSecret); err != nil {
		return nil, err
	}
	return ss, nil
}

// Open decrypts the complete records at the start of src, appending
// their application data to dst. It returns the grown dst and how many
// bytes of src it consumed; a trailing partial record is left for the
// next call with more bytes. err is io.EOF after the peer's
// close_notify, and ErrRecord (wrapped) for anything that must close the
// connection; dst then still holds the data of the records before it.
// A KeyUpdate from the peer is applied here; when it asks for one back,
// the answer waits in the Session until the next Seal (HasPending).
func (s *Session) Open(dst, src []byte) (out []byte, n int, err error) {
	for {
		if s.closed {
			return dst, n, io.EOF
		}
		rest := src[n:]
		if len(rest) < headerLen {
			return dst, n, nil
		}
		typ := rest[0]
		length := int(binary.BigEndian.Uint16(rest[3:5]))
		if typ != recordApplication || rest[1] != 3 || length > maxCiphertext || length < tagLen+1 {
			return dst, n, fmt.Errorf("%w: record type %d, length %d", ErrRecord, typ, length)
		}
		if len(rest) < headerLen+length {
			return dst, n, nil
		}
		hdr, body := rest[:headerLen], rest[headerLen:headerLen+length]
		start := len(dst)
		dst, err = s.in.aead.Open(dst, s.in.nonce(), body, hdr)
		if err != nil {
			return dst[:start], n, fmt.Errorf("%w: authentication failed", ErrRecord)
		}
		s.in.seq++
		n += headerLen + length
		// The inner plaintext: content, its type, zero padding.
		end := len(dst)
		for end > start && dst[end-1] == 0 {
			end--
		}
		if end == start {
			return dst[:start], n, fmt.Errorf("%w: no content type", ErrRecord)
		}
		inner := dst[end-1]
		content := dst[start : end-1]
		if len(content) > MaxPlaintext {
			return dst[:start], n, fmt.Errorf("%w: record overflow", ErrRecord)
		}
		switch inner {
		case recordApplication:
			dst = dst[:end-1]
		case recordAlert:
			dst = dst[:start]
			if len(content) == 2 && content[1] == 0 { // close_notify
				s.closed = true
				return dst, n, io.EOF
			}
			if len(content) == 2 {
				return dst, n, fmt.Errorf("%w: alert %d from the peer", ErrRecord, content[1])
			}
			return dst, n, fmt.Errorf("%w: malformed alert", ErrRecord)
		case recordHandshake:
			msg := append([]byte(nil), content...)
			dst = dst[:start]
			if err := s.handshakeMessage(msg); err != nil {
				return dst, n, err
			}
		default:
			return dst[:start], n, fmt.Errorf("%w: content type %d", ErrRecord, inner)
		}
	}
}

// handshakeMessage handles a post-handshake message: only KeyUpdate is
// expected from a client (one message per record: a client that splits
// or coalesces handshake messages here is refused).
func (s *Session) handshakeMessage(m []byte) error {
	if len(m) != 5 || m[0] != msgKeyUpdate || m[1] != 0 || m[2] != 0 || m[3] != 1 || m[4] > 1 {
		return fmt.Errorf("%w: unexpected post-handshake message", ErrRecord)
	}
	if m[4] == 1 { // update_requested: answer under the old key, then move
		s.pending = s.seal(s.pending, recordHandshake, []byte{msgKeyUpdate, 0, 0, 1, 0})
		if err := s.out.next(s.suite); err != nil {
			return err
		}
	}
	return s.in.next(s.suite)
}

// UpdateKeys sends a KeyUpdate (asking the peer to update its own key
// too when requestPeer) and moves to the next write key. The message
// goes out with the next Seal.
func (s *Session) UpdateKeys(requestPeer bool) error {
	var req byte
	if requestPeer {
		req = 1
	}
	s.pending = s.seal(s.pending, recordHandshake, []byte{msgKeyUpdate, 0, 0, 1, req})
	return s.out.next(s.suite)
}

// HasPending reports whether control records wait for the next Seal.
func (s *Session) HasPending() bool { return len(s.pending) > 0 }

// Seal appends to dst any pending control records, then p as
// application-data records of at most MaxPlaintext bytes each. An empty
// p writes only what is pending.
func (s *Session) Seal(dst, p []byte) []byte {
	if len(s.pending) > 0 {
		dst = append(dst, s.pending...)
		s.pending = s.pending[:0]
	}
	for len(p) > 0 {
		n := min(len(p), MaxPlaintext)
		dst = s.seal(dst, recordApplication, p[:n])
		p = p[n:]
	}
	return dst
}

// SealedLen is the size Seal's output has for n bytes of application
// data (nothing pending).
func SealedLen(n int) int {
	recs := (n + MaxPlaintext - 1) / MaxPlaintext
	return n + recs*(headerLen+1+tagLen)
}

// CloseNotify appends a close_notify alert (after anything pending).
func (s *Session) CloseNotify(dst []byte) []byte {
	dst = s.Seal(dst, nil)
	return s.seal(dst, recordAlert, []byte{1, 0})
}

// seal appends one record of the given inner type.
func (s *Session) seal(dst []byte, typ byte, p []byte) []byte {
	length := len(p) + 1 + tagLen
	start := len(dst)
	dst = append(dst, recordApplication, 3, 3, byte(length>>8), byte(length))
	dst = append(dst, p...)
	dst = append(dst, typ)
	hdr := dst[start : start+headerLen]
	body := dst[start+headerLen:]
	// Seal in place; the AAD is a copy of the header because sealing may
	// move the backing array.
	copy(s.out.hdrBuf[:], hdr)
	dst = s.out.aead.Seal(dst[:start+headerLen], s.out.nonce(), body, s.out.hdrBuf[:])
	s.out.seq++
	return dst
}
