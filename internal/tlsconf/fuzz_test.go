package tlsconf

import (
	"encoding/pem"
	"testing"
)

// FuzzPrivateKey: any bytes as a key file, encrypted or not, with any
// password, give a key or an error, never a panic (the decoder reads
// ASN.1 and cipher parameters from the file).
func FuzzPrivateKey(f *testing.F) {
	f.Add([]byte("-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIIB\n-----END ENCRYPTED PRIVATE KEY-----\n"), "pw")
	f.Add(pem.EncodeToMemory(&pem.Block{Type: "ENCRYPTED PRIVATE KEY", Bytes: []byte{0x30, 0x03, 0x30, 0x01, 0x06}}), "x")
	f.Add([]byte("-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-256-CBC,00112233445566778899AABBCCDDEEFF\n\nAAAA\n-----END RSA PRIVATE KEY-----\n"), "pw")
	f.Fuzz(func(t *testing.T, file []byte, pass string) {
		privateKeyDER(file, pass)
		if b, _ := pem.Decode(file); b != nil {
			decryptPKCS8(b.Bytes, pass)
		}
		decryptPKCS8(file, pass)
	})
}

// FuzzCipherLists: tls-ciphers, tls-ciphersuites and tls-protocols
// values are parsed or refused, never a panic, and an accepted cipher
// list is never empty.
func FuzzCipherLists(f *testing.F) {
	for _, s := range []string{"HIGH:!aNULL:!MD5", "ECDHE-RSA-AES128-GCM-SHA256", "-", "!:", "TLSv1.2 TLSv1.3", "TLS_AES_128_GCM_SHA256"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if ids, err := ParseCiphers(s); err == nil && ids != nil && len(ids) == 0 {
			t.Fatalf("ParseCiphers(%q) accepted an empty list", s)
		}
		ParseCiphersuites(s)
		ParseProtocols(s)
	})
}
