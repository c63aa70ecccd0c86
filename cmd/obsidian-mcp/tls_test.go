package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// writeCert writes a self-signed certificate for 127.0.0.1 with serial to
// certFile and keyFile (each by a rename, as a renewal tool does), and
// returns it for the client's trust.
func writeCert(t *testing.T, certFile, keyFile string, serial int64) *x509.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: "obsidian-mcp test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, IsCA: true, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []struct {
		file string
		data []byte
	}{{keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER})}, {certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}} {
		if err := os.WriteFile(f.file+".new", f.data, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(f.file+".new", f.file); err != nil {
			t.Fatal(err)
		}
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return cert
}

// TestServeTLS: serve --tls-cert/--tls-key speaks HTTPS (plain HTTP to it
// is refused), and a certificate renewed in place is served at the next
// connection, without a restart.
func TestServeTLS(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	certFile, keyFile := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	first := writeCert(t, certFile, keyFile, 1)
	s := serve(t, []string{"--backend", "native", "--vault-path", dir, "--tls-cert", certFile, "--tls-key", keyFile})
	defer s.stop(t)
	if !strings.HasPrefix(s.url, "https://127.0.0.1:") {
		t.Fatalf("serving at %s", s.url)
	}
	client := func(trust *x509.Certificate) *http.Client {
		pool := x509.NewCertPool()
		pool.AddCert(trust)
		return &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, DisableKeepAlives: true}}
	}
	list := func(c *http.Client) (*http.Response, error) {
		req, _ := http.NewRequest(http.MethodPost, s.url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
		req.Header.Set("Content-Type", "application/json")
		return c.Do(req)
	}
	resp, err := list(client(first))
	if err != nil || resp.StatusCode != 200 || resp.TLS.PeerCertificates[0].SerialNumber.Int64() != 1 {
		t.Fatalf("over HTTPS: %v %+v", err, resp)
	}
	resp.Body.Close()
	plain, err := http.Post("http://"+strings.TrimPrefix(s.url, "https://"), "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	if err == nil {
		if plain.StatusCode == 200 {
			t.Errorf("plain HTTP to the HTTPS port was served")
		}
		plain.Body.Close()
	}
	renewed := writeCert(t, certFile, keyFile, 2)
	resp, err = list(client(renewed))
	if err != nil || resp.StatusCode != 200 || resp.TLS.PeerCertificates[0].SerialNumber.Int64() != 2 {
		t.Fatalf("after the renewal: %v %+v", err, resp)
	}
	resp.Body.Close()
}
