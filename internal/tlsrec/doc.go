// Package tlsrec moves a TLS 1.3 connection off crypto/tls once its
// handshake is done: crypto/tls runs the handshake (certificates, client
// authentication, session resumption, every check it makes), and a
// Session then encrypts and decrypts the connection's records itself, on
// byte slices, so an event loop can serve the connection with the same
// non-blocking reads and writes it uses for plaintext instead of a
// goroutine blocked in tls.Conn.Read.
//
// How the keys and the connection's state are taken over:
//
//   - Handshake wraps the raw connection in a reader that hands crypto/tls
//     whole records and never a byte past the record it is reading, so
//     when the handshake returns, everything the client sent after its
//     Finished (requests it pipelined at once) is still in the wrapper,
//     not in tls.Conn's private buffer. Those bytes are Session.Buffered.
//   - The traffic secrets come from the configuration's KeyLogWriter (the
//     NSS key log lines crypto/tls writes for each handshake), matched to
//     the connection by the client random read from its ClientHello.
//     Keys and IVs are derived from them with HKDF-Expand-Label (RFC 8446
//     section 7.3). The lines are dropped when the handshake returns.
//   - The server's write sequence number is the number of records
//     crypto/tls already sealed with the application key (a session
//     ticket, sent during Handshake, is one): found by opening the
//     records the wrapper saw written, not assumed. The read sequence
//     number starts at 0: crypto/tls read nothing past the client's
//     Finished.
//
// A Session handles what may follow the handshake in TLS 1.3:
// application data, KeyUpdate in both directions (RFC 8446 section
// 4.6.3), close_notify (io.EOF) and other alerts (an error). Anything
// else (another post-handshake message, a record over the size limit, a
// record that does not authenticate) is an error after which the
// connection must be closed. Only TLS 1.3 with AES-GCM is taken over;
// for TLS 1.2 or ChaCha20-Poly1305 Handshake returns no Session and the
// caller keeps the *tls.Conn.
//
// Invariants: a Session is used by one goroutine at a time (the loop that
// owns the connection); Open and Seal append to the slice they are given
// and keep no reference to it or to their input; Seal writes any pending
// control record (a KeyUpdate answer) before the data it seals, so the
// peer always sees the KeyUpdate before records under the new key.
package tlsrec
