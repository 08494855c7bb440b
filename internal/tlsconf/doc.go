// Package tlsconf builds crypto/tls configurations from Valkey's tls-*
// directives (config.TLSSettings): the server's, for connections accepted
// on tls-port (the cluster bus's listener uses it with a client
// certificate required), and the client's, for a replica's link to its
// primary (tls-replication), the cluster bus's outbound links and MIGRATE
// (tls-cluster).
//
// What it follows and where Go differs from OpenSSL:
//
//   - Certificates and keys are PEM files. An encrypted key
//     (tls-key-file-pass, tls-client-key-file-pass) may be PKCS#8
//     ("ENCRYPTED PRIVATE KEY": PBES2 with PBKDF2 and AES-CBC or 3DES-CBC,
//     what OpenSSL 3 writes by default; decoded here) or legacy PEM
//     encryption ("Proc-Type: 4,ENCRYPTED", x509.DecryptPEMBlock). PBES1
//     and scrypt-derived keys are refused with a clear message.
//   - tls-ciphers takes OpenSSL's TLS 1.2 names (ECDHE-RSA-AES128-GCM-SHA256,
//     ...) and IANA names, plus DEFAULT and HIGH; an exclusion (!x or -x)
//     of a class Go never offers (aNULL, RC4, ...) is a no-op. Anything
//     else is refused with its name, as OpenSSL refuses it.
//   - tls-ciphersuites (TLS 1.3) accepts the three suites Go implements;
//     Go always enables all three, so a shorter list cannot restrict them.
//     The CCM suites are refused.
//   - tls-protocols becomes a minimum and a maximum version: a set with a
//     hole (TLSv1 TLSv1.3) enables the versions between as well.
//   - tls-session-caching no disables session tickets; a session is
//     resumed only within tls-session-cache-timeout seconds of the full
//     handshake that created it. Go resumes sessions from tickets only
//     (no server-side cache), so tls-session-cache-size has no effect.
//   - tls-prefer-server-ciphers and tls-dh-params-file have no effect: Go
//     orders cipher suites itself and implements no DHE suites.
//   - A peer's certificate is verified against the CA (tls-ca-cert-file,
//     tls-ca-cert-dir) but its host name is not, as Valkey does: a replica
//     dials its primary by address and checks only the chain.
//
// Errors carry the texts Valkey (OpenSSL builds) logs before its
// "Failed to configure TLS" (start-up) or "Unable to update TLS
// configuration" (CONFIG SET).
package tlsconf
