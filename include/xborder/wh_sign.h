/*
 * wh_sign.h: the Ed25519 key that signs webhook deliveries (OpenSSL EVP).
 * The private key lives in one PEM file (webhook_signing_key); a process
 * loads it on first use and again whenever the file changes.
 */
#ifndef XBORDER_WH_SIGN_H
#define XBORDER_WH_SIGN_H

#include <stddef.h>
#include <stdint.h>

#define WH_KEY_ID_LEN 16	/* hex characters */
#define WH_SIG_HEADER_MAX 160	/* "t=<unix seconds>,ed25519=<base64>" and its NUL */

/*
 * Makes a fresh key: the private key as PKCS#8 PEM, the public key as
 * SubjectPublicKeyInfo PEM (both owned by the caller) and its key id.
 * 0, or -1 with a message in err.
 */
int wh_key_generate(char **priv_pem, char **pub_pem, char key_id[WH_KEY_ID_LEN + 1],
    char *err, size_t errlen);

/*
 * The key id of a public key PEM: lowercase hex of the first 8 bytes of
 * SHA-256 over the raw 32-byte public key.  0, or -1 when it is not an
 * Ed25519 public key.
 */
int wh_key_id(const char *pub_pem, char key_id[WH_KEY_ID_LEN + 1]);

/* 1 when s has the form of a key id (16 lowercase hex digits). */
int wh_key_id_valid(const char *s);

/*
 * The key of the file at path (re-read when the file changed since the
 * last call): its id and, when pub_pem is not NULL, its public key PEM
 * (owned by the caller).  0, or -1 with a message in err (no such file,
 * not an Ed25519 private key, ...).
 */
int wh_key_current(const char *path, char key_id[WH_KEY_ID_LEN + 1], char **pub_pem,
    char *err, size_t errlen);

/*
 * Signs the bytes "<t>.<body>" with the key of path and writes the header
 * value "t=<t>,ed25519=<standard base64 with padding>" into out.  0, or -1
 * with a message in err.
 */
int wh_sign(const char *path, int64_t t, const char *body, size_t len, char *out,
    size_t outlen, char *err, size_t errlen);

/* Writes pem to path atomically (a temporary file, mode 0600, renamed). 0 or -1 with err. */
int wh_key_write(const char *path, const char *pem, char *err, size_t errlen);

#endif
