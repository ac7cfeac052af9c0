/*
 * wh_sign.c: the keys that sign webhook deliveries.
 *
 * The operator's master secret exists only in the file named by
 * webhook_signing_key: the 32 secret bytes of an Ed25519 private key in
 * PEM, as `xborderctl webhook-keygen` writes it (a file made before keys
 * were per platform is such a file too, so it simply becomes the master).
 * The master signs nothing.  Each platform's key is an Ed25519 key whose
 * seed is HMAC-SHA-256(master, label || platform id || salt), with a
 * random salt per key: the database keeps the salt and the public half
 * (db_wh_keys.c), never a private key, and a key of one platform says
 * nothing about another's.  The id of a master is the key id of the file's
 * key, so a key's row says which master derives it.
 *
 * A process parses the file once and keeps the master, but stats the path
 * on every call and parses it again when the device, inode, size or
 * modification time differ: `xborderctl webhook-keygen` renames a new file
 * into place (a new inode), and running workers see it without a restart.
 * Derived keys are kept per process (DERIVED slots, by platform and salt)
 * and forgotten when the master changes.
 *
 * The caches are shared by the threads of a process, so they sit behind a
 * mutex; a signer takes its own reference to the key and signs outside it.
 */
#include "config.h"

#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/bio.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/core_names.h>
#include <openssl/params.h>
#include <openssl/pem.h>
#include <openssl/rand.h>

#include "xborder/util.h"
#include "xborder/wh_sign.h"

#define KEY_FILE_MAX 16384	/* a PEM Ed25519 key is about 120 bytes */
#define ED25519_RAW 32
#define ED25519_SIG 64
#define DERIVED 64		/* derived keys kept per process */
#define PLATFORM_ID_MAX 64

/* Domain separation: these seeds are for nothing but webhook keys. */
static const char seed_label[] = "xborder webhook signing key v1";

/* The master last read, and what the file looked like when it was read. */
static struct {
	char		*path;
	dev_t		 dev;
	ino_t		 ino;
	off_t		 size;
	struct timespec	 mtim;
	EVP_PKEY	*pkey;
	unsigned char	 raw[WH_MASTER_LEN];
	char		 id[WH_KEY_ID_LEN + 1];
} cache;

/* Keys derived from the cached master, by platform and salt. */
static struct derived {
	char		 platform[PLATFORM_ID_MAX + 1];
	char		 salt[WH_SALT_LEN + 1];
	char		 key_id[WH_KEY_ID_LEN + 1];
	EVP_PKEY	*pkey;
} derived[DERIVED];
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;

/* Never prompt on a terminal for the passphrase of an encrypted PEM. */
static int
no_passphrase(char *buf, int size, int rwflag, void *u)
{
	(void)buf;
	(void)size;
	(void)rwflag;
	(void)u;
	return -1;
}

/* The text of OpenSSL's last error, or what when there is none. */
static void
ssl_err(char *err, size_t errlen, const char *what)
{
	unsigned long e = ERR_get_error();
	const char *why = e != 0 ? ERR_reason_error_string(e) : NULL;

	if (why != NULL)
		snprintf(err, errlen, "%s: %s", what, why);
	else
		snprintf(err, errlen, "%s", what);
	ERR_clear_error();
}

static int
is_ed25519(const EVP_PKEY *pkey)
{
	return pkey != NULL && EVP_PKEY_get_id(pkey) == EVP_PKEY_ED25519;
}

/* The key id of an Ed25519 key (private or public): see wh_sign.h. */
static int
key_id_of(const EVP_PKEY *pkey, char key_id[WH_KEY_ID_LEN + 1])
{
	unsigned char raw[ED25519_RAW], md[EVP_MAX_MD_SIZE];
	size_t rawlen = sizeof(raw);
	unsigned int mdlen;

	if (!is_ed25519(pkey) ||
	    EVP_PKEY_get_raw_public_key(pkey, raw, &rawlen) != 1 ||
	    rawlen != ED25519_RAW ||
	    EVP_Digest(raw, rawlen, md, &mdlen, EVP_sha256(), NULL) != 1) {
		ERR_clear_error();
		return -1;
	}
	for (int i = 0; i < WH_KEY_ID_LEN / 2; i++)
		snprintf(key_id + 2 * i, 3, "%02x", md[i]);
	return 0;
}

/* What a memory BIO holds, as a new NUL-terminated string. */
static char *
bio_text(BIO *b)
{
	char *data;
	long n = BIO_get_mem_data(b, &data);

	return xstrndup(data, n > 0 ? (size_t)n : 0);
}

/* Frees a memory BIO that held a private key, clearing the memory first. */
static void
bio_free_clean(BIO *b)
{
	char *data;
	long n;

	if (b == NULL)
		return;
	if ((n = BIO_get_mem_data(b, &data)) > 0)
		OPENSSL_cleanse(data, (size_t)n);
	BIO_free(b);
}

/* The SubjectPublicKeyInfo PEM of pkey (caller frees), or NULL. */
static char *
public_pem(EVP_PKEY *pkey)
{
	BIO *b;
	char *pem = NULL;

	if ((b = BIO_new(BIO_s_mem())) == NULL)
		return NULL;
	if (PEM_write_bio_PUBKEY(b, pkey) == 1)
		pem = bio_text(b);
	BIO_free(b);
	return pem;
}

static int
same_file(const struct stat *st)
{
	return cache.pkey != NULL && cache.dev == st->st_dev &&
	    cache.ino == st->st_ino && cache.size == st->st_size &&
	    cache.mtim.tv_sec == st->st_mtim.tv_sec &&
	    cache.mtim.tv_nsec == st->st_mtim.tv_nsec;
}

/*
 * Reads and parses the key file; on success *st describes the file as it
 * was read (fstat of the open descriptor, so a rename racing with us is
 * noticed on the next call).  The private key, or NULL with err.
 */
static EVP_PKEY *
read_key(const char *path, struct stat *st, char *err, size_t errlen)
{
	char buf[KEY_FILE_MAX], what[512];
	EVP_PKEY *pkey = NULL;
	BIO *b = NULL;
	ssize_t n;
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	if (fstat(fd, st) < 0 || (n = read(fd, buf, sizeof(buf))) < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		goto out;
	}
	if ((b = BIO_new_mem_buf(buf, (int)n)) == NULL) {
		ssl_err(err, errlen, path);
		goto out;
	}
	pkey = PEM_read_bio_PrivateKey(b, NULL, no_passphrase, NULL);
	if (pkey == NULL) {
		snprintf(what, sizeof(what), "%s: not a PEM private key", path);
		ssl_err(err, errlen, what);
	} else if (!is_ed25519(pkey)) {
		snprintf(err, errlen, "%s: not an Ed25519 private key", path);
		EVP_PKEY_free(pkey);
		pkey = NULL;
	}
out:
	BIO_free(b);
	OPENSSL_cleanse(buf, sizeof(buf));
	close(fd);
	return pkey;
}

/* Forgets every derived key (the master changed).  Called with cache_lock held. */
static void
derived_flush(void)
{
	for (size_t i = 0; i < DERIVED; i++) {
		EVP_PKEY_free(derived[i].pkey);
		memset(&derived[i], 0, sizeof(derived[i]));
	}
}

/*
 * Makes the cache hold the master of path, reading the file when it is not
 * the one cached.  Called with cache_lock held.  0 or -1 with err.
 */
static int
refresh(const char *path, char *err, size_t errlen)
{
	struct stat st;
	EVP_PKEY *pkey;
	unsigned char raw[WH_MASTER_LEN];
	size_t rawlen = sizeof(raw);
	char id[WH_KEY_ID_LEN + 1];

	if (path == NULL || *path == '\0') {
		snprintf(err, errlen, "webhook_signing_key is not set");
		return -1;
	}
	if (stat(path, &st) < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (cache.path != NULL && strcmp(cache.path, path) == 0 && same_file(&st))
		return 0;
	if ((pkey = read_key(path, &st, err, errlen)) == NULL)
		return -1;
	if (key_id_of(pkey, id) < 0 ||
	    EVP_PKEY_get_raw_private_key(pkey, raw, &rawlen) != 1 ||
	    rawlen != WH_MASTER_LEN) {
		ERR_clear_error();
		snprintf(err, errlen, "%s: cannot read the master secret", path);
		OPENSSL_cleanse(raw, sizeof(raw));
		EVP_PKEY_free(pkey);
		return -1;
	}
	if (cache.pkey == NULL || strcmp(cache.id, id) != 0)
		derived_flush();
	EVP_PKEY_free(cache.pkey);
	free(cache.path);
	cache.path = xstrdup(path);
	cache.dev = st.st_dev;
	cache.ino = st.st_ino;
	cache.size = st.st_size;
	cache.mtim = st.st_mtim;
	cache.pkey = pkey;
	memcpy(cache.raw, raw, sizeof(raw));
	OPENSSL_cleanse(raw, sizeof(raw));
	memcpy(cache.id, id, sizeof(id));
	return 0;
}

/* A fresh Ed25519 key as PEM, for a master file (wh_sign.h); caller frees both. */
int
wh_key_generate(char **priv_pem, char **pub_pem, char key_id[WH_KEY_ID_LEN + 1],
    char *err, size_t errlen)
{
	EVP_PKEY *pkey;
	BIO *b = NULL;
	int rc = -1;

	*priv_pem = *pub_pem = NULL;
	if ((pkey = EVP_PKEY_Q_keygen(NULL, NULL, "ED25519")) == NULL) {
		ssl_err(err, errlen, "cannot make an Ed25519 key");
		return -1;
	}
	/* PEM_write_bio_PrivateKey writes PKCS#8 ("BEGIN PRIVATE KEY"). */
	if ((b = BIO_new(BIO_s_mem())) == NULL ||
	    PEM_write_bio_PrivateKey(b, pkey, NULL, NULL, 0, NULL, NULL) != 1 ||
	    (*pub_pem = public_pem(pkey)) == NULL ||
	    key_id_of(pkey, key_id) < 0) {
		ssl_err(err, errlen, "cannot encode the new key");
		goto out;
	}
	*priv_pem = bio_text(b);
	rc = 0;
out:
	if (rc < 0) {
		free(*pub_pem);
		*pub_pem = NULL;
	}
	bio_free_clean(b);
	EVP_PKEY_free(pkey);
	return rc;
}

/* The key id of an Ed25519 public key PEM: 0, or -1 (wh_sign.h). */
int
wh_key_id(const char *pub_pem, char key_id[WH_KEY_ID_LEN + 1])
{
	EVP_PKEY *pkey;
	BIO *b;
	int rc;

	if (pub_pem == NULL || (b = BIO_new_mem_buf(pub_pem, -1)) == NULL)
		return -1;
	pkey = PEM_read_bio_PUBKEY(b, NULL, no_passphrase, NULL);
	rc = key_id_of(pkey, key_id);
	ERR_clear_error();
	EVP_PKEY_free(pkey);
	BIO_free(b);
	return rc;
}

/* 1 when s is exactly n lowercase hex digits. */
static int
is_hex(const char *s, size_t n)
{
	if (s == NULL || strlen(s) != n)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return 1;
}

/* A new random salt of 32 hex digits: 0, or -1 without random bytes. */
int
wh_salt_new(char salt[WH_SALT_LEN + 1])
{
	unsigned char b[WH_SALT_LEN / 2];

	if (RAND_bytes(b, (int)sizeof(b)) != 1) {
		ERR_clear_error();
		return -1;
	}
	for (size_t i = 0; i < sizeof(b); i++)
		snprintf(salt + 2 * i, 3, "%02x", b[i]);
	return 0;
}

/* 1 when s is 32 lowercase hex digits. */
int
wh_salt_valid(const char *s)
{
	return is_hex(s, WH_SALT_LEN);
}

/*
 * The seed of platform_id's key of salt under master, HMAC-SHA-256 over
 * the label, the platform id and the salt (wh_sign.h).  Pure.  0 or -1.
 */
int
wh_key_seed(const unsigned char master[WH_MASTER_LEN], const char *platform_id,
    const char *salt, unsigned char seed[WH_SEED_LEN])
{
	EVP_MAC *mac = NULL;
	EVP_MAC_CTX *ctx = NULL;
	OSSL_PARAM params[2];
	size_t n = 0;
	int rc = -1;

	if (platform_id == NULL || *platform_id == '\0' ||
	    strlen(platform_id) > PLATFORM_ID_MAX || !wh_salt_valid(salt))
		return -1;
	params[0] = OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, (char *)"SHA256", 0);
	params[1] = OSSL_PARAM_construct_end();
	/*
	 * The NULs keep the parts apart: no platform id and salt can spell
	 * another pair's input (the label and the salt have fixed forms).
	 */
	if ((mac = EVP_MAC_fetch(NULL, "HMAC", NULL)) == NULL ||
	    (ctx = EVP_MAC_CTX_new(mac)) == NULL ||
	    EVP_MAC_init(ctx, master, WH_MASTER_LEN, params) != 1 ||
	    EVP_MAC_update(ctx, (const unsigned char *)seed_label, sizeof(seed_label)) != 1 ||
	    EVP_MAC_update(ctx, (const unsigned char *)platform_id, strlen(platform_id) + 1) != 1 ||
	    EVP_MAC_update(ctx, (const unsigned char *)salt, WH_SALT_LEN) != 1 ||
	    EVP_MAC_final(ctx, seed, &n, WH_SEED_LEN) != 1 || n != WH_SEED_LEN) {
		ERR_clear_error();
		OPENSSL_cleanse(seed, WH_SEED_LEN);
		goto out;
	}
	rc = 0;
out:
	EVP_MAC_CTX_free(ctx);
	EVP_MAC_free(mac);
	return rc;
}

/* The private key of platform_id and salt under master (caller frees), or NULL. */
static EVP_PKEY *
derive_pkey(const unsigned char master[WH_MASTER_LEN], const char *platform_id,
    const char *salt)
{
	unsigned char seed[WH_SEED_LEN];
	EVP_PKEY *pkey;

	if (wh_key_seed(master, platform_id, salt, seed) < 0)
		return NULL;
	pkey = EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, NULL, seed, sizeof(seed));
	OPENSSL_cleanse(seed, sizeof(seed));
	if (pkey == NULL)
		ERR_clear_error();
	return pkey;
}

/* The key id and public PEM (caller frees) of a derived key.  Pure.  0 or -1. */
int
wh_key_derive(const unsigned char master[WH_MASTER_LEN], const char *platform_id,
    const char *salt, char key_id[WH_KEY_ID_LEN + 1], char **pub_pem)
{
	EVP_PKEY *pkey;
	int rc = -1;

	if (pub_pem != NULL)
		*pub_pem = NULL;
	if ((pkey = derive_pkey(master, platform_id, salt)) == NULL)
		return -1;
	if (key_id_of(pkey, key_id) == 0 &&
	    (pub_pem == NULL || (*pub_pem = public_pem(pkey)) != NULL))
		rc = 0;
	EVP_PKEY_free(pkey);
	return rc;
}

/* The id (and public PEM, caller frees) of the master of path: 0, or -1 with err. */
int
wh_master_current(const char *path, char master_id[WH_KEY_ID_LEN + 1], char **pub_pem,
    char *err, size_t errlen)
{
	EVP_PKEY *pkey = NULL;

	if (pub_pem != NULL)
		*pub_pem = NULL;
	pthread_mutex_lock(&cache_lock);
	if (refresh(path, err, errlen) == 0 && EVP_PKEY_up_ref(cache.pkey) == 1) {
		pkey = cache.pkey;
		memcpy(master_id, cache.id, WH_KEY_ID_LEN + 1);
	}
	pthread_mutex_unlock(&cache_lock);
	if (pkey == NULL)
		return -1;
	if (pub_pem != NULL && (*pub_pem = public_pem(pkey)) == NULL) {
		ssl_err(err, errlen, "cannot encode the public key");
		EVP_PKEY_free(pkey);
		return -1;
	}
	EVP_PKEY_free(pkey);
	return 0;
}

/* The public half of a platform's key under the master of path: 0, or -1 with err. */
int
wh_platform_key(const char *path, const char *platform_id, const char *salt,
    char master_id[WH_KEY_ID_LEN + 1], char key_id[WH_KEY_ID_LEN + 1], char **pub_pem,
    char *err, size_t errlen)
{
	unsigned char master[WH_MASTER_LEN];
	int rc = -1;

	*pub_pem = NULL;
	pthread_mutex_lock(&cache_lock);
	if (refresh(path, err, errlen) == 0) {
		memcpy(master, cache.raw, sizeof(master));
		memcpy(master_id, cache.id, WH_KEY_ID_LEN + 1);
		rc = 0;
	}
	pthread_mutex_unlock(&cache_lock);
	if (rc < 0)
		return -1;
	if ((rc = wh_key_derive(master, platform_id, salt, key_id, pub_pem)) < 0)
		snprintf(err, errlen, "cannot derive the key of platform %s", platform_id);
	OPENSSL_cleanse(master, sizeof(master));
	return rc;
}

/* The slot of platform_id and salt in derived[] (FNV-1a over both). */
static size_t
derived_slot(const char *platform_id, const char *salt)
{
	uint32_t h = 2166136261u;

	for (const char *p = platform_id; *p != '\0'; p++)
		h = (h ^ (unsigned char)*p) * 16777619u;
	for (const char *p = salt; *p != '\0'; p++)
		h = (h ^ (unsigned char)*p) * 16777619u;
	return h % DERIVED;
}

/*
 * platform_id's key of salt under the master of path, with a reference of
 * the caller's own (EVP_PKEY_free it); NULL with err when the master is not
 * master_id or the key is not key_id.
 */
static EVP_PKEY *
platform_pkey(const char *path, const char *master_id, const char *platform_id,
    const char *salt, const char *key_id, char *err, size_t errlen)
{
	struct derived *d;
	EVP_PKEY *pkey = NULL, *made;
	char id[WH_KEY_ID_LEN + 1];

	if (platform_id == NULL || strlen(platform_id) > PLATFORM_ID_MAX ||
	    !wh_salt_valid(salt)) {
		snprintf(err, errlen, "malformed key row");
		return NULL;
	}
	pthread_mutex_lock(&cache_lock);
	if (refresh(path, err, errlen) < 0)
		goto out;
	if (strcmp(cache.id, master_id) != 0) {
		snprintf(err, errlen, "the key %s was derived from master %s, not from %s",
		    key_id, master_id, cache.id);
		goto out;
	}
	d = &derived[derived_slot(platform_id, salt)];
	if (d->pkey == NULL || strcmp(d->platform, platform_id) != 0 ||
	    strcmp(d->salt, salt) != 0) {
		if ((made = derive_pkey(cache.raw, platform_id, salt)) == NULL ||
		    key_id_of(made, id) < 0) {
			EVP_PKEY_free(made);
			snprintf(err, errlen, "cannot derive the key of platform %s", platform_id);
			goto out;
		}
		EVP_PKEY_free(d->pkey);
		snprintf(d->platform, sizeof(d->platform), "%s", platform_id);
		snprintf(d->salt, sizeof(d->salt), "%s", salt);
		memcpy(d->key_id, id, sizeof(id));
		d->pkey = made;
	}
	if (strcmp(d->key_id, key_id) != 0) {
		snprintf(err, errlen, "platform %s: the key derived is %s, its row says %s",
		    platform_id, d->key_id, key_id);
		goto out;
	}
	if (EVP_PKEY_up_ref(d->pkey) == 1)
		pkey = d->pkey;
	else
		ssl_err(err, errlen, "cannot take the key");
out:
	pthread_mutex_unlock(&cache_lock);
	return pkey;
}

/*
 * Signs "<t>.<body>" with the platform's key of salt, refusing a row whose
 * master or key id is not what the file derives: 0, or -1 with err.
 */
int
wh_sign_platform(const char *path, const char *master_id, const char *platform_id,
    const char *salt, const char *key_id, int64_t t, const char *body, size_t len,
    char *out, size_t outlen, char *err, size_t errlen)
{
	unsigned char sig[ED25519_SIG], b64[4 * ED25519_SIG / 3 + 4];
	char prefix[32];
	EVP_MD_CTX *ctx = NULL;
	EVP_PKEY *pkey;
	unsigned char *msg = NULL;
	size_t plen, siglen = sizeof(sig);
	int n, rc = -1;

	if ((pkey = platform_pkey(path, master_id, platform_id, salt, key_id, err,
	    errlen)) == NULL)
		return -1;
	/* Ed25519 signs the message in one pass, so it is built whole. */
	plen = (size_t)snprintf(prefix, sizeof(prefix), "%" PRId64 ".", t);
	msg = xmalloc(plen + len);
	memcpy(msg, prefix, plen);
	if (len > 0)
		memcpy(msg + plen, body, len);
	if ((ctx = EVP_MD_CTX_new()) == NULL ||
	    EVP_DigestSignInit(ctx, NULL, NULL, NULL, pkey) != 1 ||
	    EVP_DigestSign(ctx, sig, &siglen, msg, plen + len) != 1) {
		ssl_err(err, errlen, "cannot sign");
		goto out;
	}
	EVP_EncodeBlock(b64, sig, (int)siglen);
	n = snprintf(out, outlen, "t=%" PRId64 ",ed25519=%s", t, (char *)b64);
	if (n < 0 || (size_t)n >= outlen) {
		snprintf(err, errlen, "signature header does not fit");
		goto out;
	}
	rc = 0;
out:
	EVP_MD_CTX_free(ctx);
	free(msg);
	EVP_PKEY_free(pkey);
	return rc;
}

/* Writes all of buf to fd; 0 or -1 with errno. */
static int
write_all(int fd, const char *buf, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, buf, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -1;
		buf += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Makes a rename in path's directory durable; failures do not matter. */
static void
sync_dir(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir = slash == NULL ? xstrdup(".") :
	    xstrndup(path, slash == path ? 1 : (size_t)(slash - path));
	int fd;

	if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0) {
		(void)fsync(fd);
		close(fd);
	}
	free(dir);
}

/* Writes pem to path atomically, mode 0600: 0, or -1 with err. */
int
wh_key_write(const char *path, const char *pem, char *err, size_t errlen)
{
	char *tmp;
	size_t tmplen = strlen(path) + 32;
	int fd, rc = -1;

	tmp = xmalloc(tmplen);
	snprintf(tmp, tmplen, "%s.tmp.%ld", path, (long)getpid());
	/*
	 * O_EXCL: never write through a file or link someone else put there.
	 * fchmod: the mode is 0600 whatever the umask.
	 */
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) < 0) {
		snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
		free(tmp);
		return -1;
	}
	if (fchmod(fd, 0600) < 0 || write_all(fd, pem, strlen(pem)) < 0 ||
	    fsync(fd) < 0) {
		snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
		close(fd);
		goto out;
	}
	if (close(fd) < 0 || rename(tmp, path) < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		goto out;
	}
	sync_dir(path);
	rc = 0;
out:
	if (rc < 0)
		(void)unlink(tmp);
	free(tmp);
	return rc;
}

/* 1 when s is 16 lowercase hex digits (the form of a key id). */
int
wh_key_id_valid(const char *s)
{
	return is_hex(s, WH_KEY_ID_LEN);
}
