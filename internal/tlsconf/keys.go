package tlsconf

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/des"
	"crypto/pbkdf2"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/tls"
	"crypto/x509"
	"encoding/asn1"
	"encoding/pem"
	"errors"
	"fmt"
	"hash"
	"os"
	"strings"
)

// LoadKeyPair reads a PEM certificate chain and its private key, which
// pass decrypts when it is encrypted. Errors are worded as Valkey logs
// them ("Failed to load certificate: file: reason", "Failed to load
// private key: file: reason").
func LoadKeyPair(certFile, keyFile, pass string) (tls.Certificate, error) {
	certPEM, err := os.ReadFile(certFile)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("Failed to load certificate: %s: %v", certFile, err)
	}
	if !bytes.Contains(certPEM, []byte("-----BEGIN CERTIFICATE-----")) {
		return tls.Certificate{}, fmt.Errorf("Failed to load certificate: %s: no PEM certificate found", certFile)
	}
	keyPEM, err := os.ReadFile(keyFile)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("Failed to load private key: %s: %v", keyFile, err)
	}
	der, err := privateKeyDER(keyPEM, pass)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("Failed to load private key: %s: %v", keyFile, err)
	}
	plain := pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
	cert, err := tls.X509KeyPair(certPEM, plain)
	if err != nil {
		if strings.Contains(err.Error(), "private key") {
			return tls.Certificate{}, fmt.Errorf("Failed to load private key: %s: %v", keyFile, err)
		}
		return tls.Certificate{}, fmt.Errorf("Failed to load certificate: %s: %v", certFile, err)
	}
	return cert, nil
}

// privateKeyDER finds the private key in keyPEM, decrypts it with pass
// if needed, and returns it as unencrypted PKCS#8 DER.
func privateKeyDER(keyPEM []byte, pass string) ([]byte, error) {
	for rest := keyPEM; ; {
		var b *pem.Block
		b, rest = pem.Decode(rest)
		if b == nil {
			return nil, errors.New("no PEM private key found")
		}
		if !strings.HasSuffix(b.Type, "PRIVATE KEY") {
			continue
		}
		der := b.Bytes
		switch {
		case b.Type == "ENCRYPTED PRIVATE KEY":
			var err error
			if der, err = decryptPKCS8(der, pass); err != nil {
				return nil, err
			}
		case x509.IsEncryptedPEMBlock(b):
			// Legacy PEM encryption (OpenSSL's -traditional keys):
			// deprecated in Go for its weak key derivation, still the
			// only way to read such keys.
			if pass == "" {
				return nil, errors.New("the key is encrypted and no password is configured")
			}
			var err error
			if der, err = x509.DecryptPEMBlock(b, []byte(pass)); err != nil {
				return nil, fmt.Errorf("bad decrypt: %v", err)
			}
		}
		key, err := parseKey(der)
		if err != nil {
			return nil, err
		}
		return x509.MarshalPKCS8PrivateKey(key)
	}
}

// parseKey reads PKCS#8, PKCS#1 (RSA) or SEC 1 (EC) DER.
func parseKey(der []byte) (any, error) {
	if k, err := x509.ParsePKCS8PrivateKey(der); err == nil {
		return k, nil
	}
	if k, err := x509.ParsePKCS1PrivateKey(der); err == nil {
		return k, nil
	}
	if k, err := x509.ParseECPrivateKey(der); err == nil {
		return k, nil
	}
	return nil, errors.New("unsupported or malformed private key (a wrong password?)")
}

// Object identifiers of PKCS#5 v2.1 (RFC 8018) and the ciphers OpenSSL
// uses with it.
var (
	oidPBES2      = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 5, 13}
	oidPBKDF2     = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 5, 12}
	oidScrypt     = asn1.ObjectIdentifier{1, 3, 6, 1, 4, 1, 11591, 4, 11}
	oidHMACSHA1   = asn1.ObjectIdentifier{1, 2, 840, 113549, 2, 7}
	oidHMACSHA224 = asn1.ObjectIdentifier{1, 2, 840, 113549, 2, 8}
	oidHMACSHA256 = asn1.ObjectIdentifier{1, 2, 840, 113549, 2, 9}
	oidHMACSHA384 = asn1.ObjectIdentifier{1, 2, 840, 113549, 2, 10}
	oidHMACSHA512 = asn1.ObjectIdentifier{1, 2, 840, 113549, 2, 11}
	oidAES128CBC  = asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 1, 2}
	oidAES192CBC  = asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 1, 22}
	oidAES256CBC  = asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 1, 42}
	oidDESEDE3CBC = asn1.ObjectIdentifier{1, 2, 840, 113549, 3, 7}
)

type algorithmIdentifier struct {
	Algorithm  asn1.ObjectIdentifier
	Parameters asn1.RawValue `asn1:"optional"`
}

type encryptedPrivateKeyInfo struct {
	Algorithm     algorithmIdentifier
	EncryptedData []byte
}

type pbes2Params struct {
	KeyDerivationFunc algorithmIdentifier
	EncryptionScheme  algorithmIdentifier
}

type pbkdf2Params struct {
	Salt           []byte
	IterationCount int
	KeyLength      int                 `asn1:"optional"`
	PRF            algorithmIdentifier `asn1:"optional"`
}

// decryptPKCS8 decrypts an EncryptedPrivateKeyInfo protected by PBES2
// (PBKDF2 with an HMAC-SHA1/2 PRF; AES-128/192/256-CBC or 3DES-CBC), the
// form OpenSSL 3 writes for "openssl genpkey -aes256" and "openssl pkcs8
// -topk8 -v2 aes256". It returns the PrivateKeyInfo DER.
func decryptPKCS8(der []byte, pass string) ([]byte, error) {
	if pass == "" {
		return nil, errors.New("the key is encrypted and no password is configured")
	}
	var info encryptedPrivateKeyInfo
	if _, err := asn1.Unmarshal(der, &info); err != nil {
		return nil, fmt.Errorf("malformed encrypted PKCS#8 key: %v", err)
	}
	if !info.Algorithm.Algorithm.Equal(oidPBES2) {
		return nil, fmt.Errorf("encrypted PKCS#8 key with scheme %v: only PBES2 is supported (convert it with openssl pkcs8 -topk8 -v2 aes256)", info.Algorithm.Algorithm)
	}
	var params pbes2Params
	if _, err := asn1.Unmarshal(info.Algorithm.Parameters.FullBytes, &params); err != nil {
		return nil, fmt.Errorf("malformed PBES2 parameters: %v", err)
	}
	kdf := params.KeyDerivationFunc
	if kdf.Algorithm.Equal(oidScrypt) {
		return nil, errors.New("scrypt-protected PKCS#8 keys are not supported (use PBKDF2: openssl pkcs8 -topk8 -v2 aes256)")
	}
	if !kdf.Algorithm.Equal(oidPBKDF2) {
		return nil, fmt.Errorf("unsupported key derivation function %v", kdf.Algorithm)
	}
	var kp pbkdf2Params
	if _, err := asn1.Unmarshal(kdf.Parameters.FullBytes, &kp); err != nil {
		return nil, fmt.Errorf("malformed PBKDF2 parameters: %v", err)
	}
	prf := func() hash.Hash { return sha1.New() }
	switch a := kp.PRF.Algorithm; {
	case len(a) == 0 || a.Equal(oidHMACSHA1):
	case a.Equal(oidHMACSHA224):
		prf = sha256.New224
	case a.Equal(oidHMACSHA256):
		prf = sha256.New
	case a.Equal(oidHMACSHA384):
		prf = sha512.New384
	case a.Equal(oidHMACSHA512):
		prf = sha512.New
	default:
		return nil, fmt.Errorf("unsupported PBKDF2 PRF %v", a)
	}
	enc := params.EncryptionScheme
	var keyLen int
	var newCipher func([]byte) (cipher.Block, error)
	switch a := enc.Algorithm; {
	case a.Equal(oidAES128CBC):
		keyLen, newCipher = 16, aes.NewCipher
	case a.Equal(oidAES192CBC):
		keyLen, newCipher = 24, aes.NewCipher
	case a.Equal(oidAES256CBC):
		keyLen, newCipher = 32, aes.NewCipher
	case a.Equal(oidDESEDE3CBC):
		keyLen, newCipher = 24, des.NewTripleDESCipher
	default:
		return nil, fmt.Errorf("unsupported PKCS#8 cipher %v (AES-CBC and 3DES-CBC are)", a)
	}
	if kp.KeyLength != 0 && kp.KeyLength != keyLen {
		return nil, fmt.Errorf("PBKDF2 key length %d does not fit the cipher", kp.KeyLength)
	}
	var iv []byte
	if _, err := asn1.Unmarshal(enc.Parameters.FullBytes, &iv); err != nil {
		return nil, fmt.Errorf("malformed cipher parameters: %v", err)
	}
	key, err := pbkdf2.Key(prf, pass, kp.Salt, kp.IterationCount, keyLen)
	if err != nil {
		return nil, err
	}
	block, err := newCipher(key)
	if err != nil {
		return nil, err
	}
	data := info.EncryptedData
	if len(iv) != block.BlockSize() || len(data) == 0 || len(data)%block.BlockSize() != 0 {
		return nil, errors.New("malformed encrypted PKCS#8 key")
	}
	out := make([]byte, len(data))
	cipher.NewCBCDecrypter(block, iv).CryptBlocks(out, data)
	// PKCS#7 padding; a wrong password almost always breaks it.
	n := int(out[len(out)-1])
	if n == 0 || n > block.BlockSize() {
		return nil, errors.New("bad decrypt (wrong tls-key-file-pass?)")
	}
	for _, p := range out[len(out)-n:] {
		if int(p) != n {
			return nil, errors.New("bad decrypt (wrong tls-key-file-pass?)")
		}
	}
	return out[:len(out)-n], nil
}
