/*
 * wh_sign.h: the keys that sign webhook deliveries (OpenSSL EVP).
 *
 * The operator's master secret lives in one file (webhook_signing_key),
 * as the 32 secret bytes of an Ed25519 private key in PEM (what
 * `xborderctl webhook-keygen` writes); a process loads it on first use and
 * again whenever the file changes.  It never signs anything itself: every
 * platform's key is derived from it (wh_key_derive) and only the public
 * half, the salt and the ids are stored (db_wh_keys.c).
 */
#ifndef XBORDER_WH_SIGN_H
#define XBORDER_WH_SIGN_H

#include <stddef.h>
#include <stdint.h>

#define WH_KEY_ID_LEN 16	/* hex characters */
#define WH_SALT_LEN 32		/* hex characters: 16 random bytes */
#define WH_MASTER_LEN 32	/* bytes of the master secret */
#define WH_SEED_LEN 32		/* bytes of an Ed25519 seed */
#define WH_SIG_HEADER_MAX 160	/* "t=<unix seconds>,ed25519=<base64>" and its NUL */

/*
 * Makes a fresh Ed25519 key (the master's file form): the private key as
 * PKCS#8 PEM, the public key as SubjectPublicKeyInfo PEM (both owned by
 * the caller) and its key id.  0, or -1 with a message in err.
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

/* A new random salt: 32 lowercase hex digits (16 bytes of RAND_bytes). 0 or -1. */
int wh_salt_new(char salt[WH_SALT_LEN + 1]);

/* 1 when s has the form of a salt (32 lowercase hex digits). */
int wh_salt_valid(const char *s);

/*
 * The Ed25519 seed of a platform's key: HMAC-SHA-256 keyed with the
 * master over "xborder webhook signing key v1", a NUL, the platform id, a
 * NUL and the salt.  Pure.  0, or -1 when an input is malformed.  The
 * caller clears seed when done (OPENSSL_cleanse).
 */
int wh_key_seed(const unsigned char master[WH_MASTER_LEN], const char *platform_id,
    const char *salt, unsigned char seed[WH_SEED_LEN]);

/*
 * The public half of the key wh_key_seed derives: its key id and its
 * SubjectPublicKeyInfo PEM (owned by the caller; NULL pub_pem: the id
 * only).  Pure.  0 or -1.
 */
int wh_key_derive(const unsigned char master[WH_MASTER_LEN], const char *platform_id,
    const char *salt, char key_id[WH_KEY_ID_LEN + 1], char **pub_pem);

/*
 * The master of the file at path (re-read when the file changed since the
 * last call): its id (the key id of the file's Ed25519 key) and, when
 * pub_pem is not NULL, that key's public PEM (owned by the caller).  0, or
 * -1 with a message in err (no such file, not an Ed25519 private key, ...).
 */
int wh_master_current(const char *path, char master_id[WH_KEY_ID_LEN + 1],
    char **pub_pem, char *err, size_t errlen);

/*
 * The public half of platform_id's key of the given salt under the master
 * of path, as wh_key_derive, and the id of that master.  0, or -1 with err.
 */
int wh_platform_key(const char *path, const char *platform_id, const char *salt,
    char master_id[WH_KEY_ID_LEN + 1], char key_id[WH_KEY_ID_LEN + 1], char **pub_pem,
    char *err, size_t errlen);

/*
 * Signs the bytes "<t>.<body>" with platform_id's key of the given salt,
 * derived from the master of path (derived keys are kept per process), and
 * writes the header value "t=<t>,ed25519=<standard base64 with padding>"
 * into out.  master_id and key_id are what the key's row says: when the
 * file's master is not master_id, or the derived key is not key_id,
 * nothing is signed.  0, or -1 with a message in err.
 */
int wh_sign_platform(const char *path, const char *master_id, const char *platform_id,
    const char *salt, const char *key_id, int64_t t, const char *body, size_t len,
    char *out, size_t outlen, char *err, size_t errlen);

/* Writes pem to path atomically (a temporary file, mode 0600, renamed). 0 or -1 with err. */
int wh_key_write(const char *path, const char *pem, char *err, size_t errlen);

#endif
