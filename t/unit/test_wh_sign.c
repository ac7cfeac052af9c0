/*
 * Unit tests of the webhook signing key (wh_sign.c): generation, the key
 * file, the key id, signatures checked with OpenSSL's verifier, rotation
 * without a restart, and keys that are not Ed25519.
 */
#include <criterion/criterion.h>

#include <sys/stat.h>

#include <fcntl.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include "xborder/wh_sign.h"

/* RFC 8032 test 1's key, and what the openssl command line makes of it. */
static const char rfc8032_priv[] =
    "-----BEGIN PRIVATE KEY-----\n"
    "MC4CAQAwBQYDK2VwBCIEIJ1hsZ3v/VpguoRK9JLsLMREScVpezJpGXA7rAMcrn9g\n"
    "-----END PRIVATE KEY-----\n";
static const char rfc8032_pub[] =
    "-----BEGIN PUBLIC KEY-----\n"
    "MCowBQYDK2VwAyEA11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=\n"
    "-----END PUBLIC KEY-----\n";
#define RFC8032_ID "21fe31dfa154a261"	/* SHA-256 of the raw key, 8 bytes */
/* openssl pkeyutl -sign -rawin over '1700000000.{"a":1}' */
#define RFC8032_SIG "t=1700000000,ed25519=jsuVxkA/AkVTFzBCTKTrjAZaeCChaR+y9aS0q9WrZDC7D7BaCZ+" \
    "tI8v/nvIZW79k7Z99rP9If7816GiGLgJABw=="

static char dir[64];
static char path[128];

static void
setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/test_wh_sign.XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/key.pem", dir);
}

static void
teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	(void)!system(cmd);
}

TestSuite(wh_sign, .init = setup, .fini = teardown);

/* A fresh key written to path; its id in id, its public PEM returned. */
static char *
install_new_key(char id[WH_KEY_ID_LEN + 1])
{
	char *priv, *pub, err[256] = "";

	cr_assert_eq(wh_key_generate(&priv, &pub, id, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(wh_key_write(path, priv, err, sizeof(err)), 0, "%s", err);
	free(priv);
	return pub;
}

static void
write_file(const char *text)
{
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f);
	fputs(text, f);
	fclose(f);
}

/* 1 when sig (the base64 after "ed25519=") verifies over "<t>.<body>". */
static int
verifies(const char *pub_pem, const char *t, const char *body, const char *b64)
{
	unsigned char sig[128];
	char msg[512];
	EVP_PKEY *pkey;
	EVP_MD_CTX *ctx;
	BIO *b;
	int n, ok;

	cr_assert_not_null(b = BIO_new_mem_buf(pub_pem, -1));
	cr_assert_not_null(pkey = PEM_read_bio_PUBKEY(b, NULL, NULL, NULL));
	BIO_free(b);
	n = EVP_DecodeBlock(sig, (const unsigned char *)b64, (int)strlen(b64));
	cr_assert_eq(n, 66, "3 * 88 / 4 bytes, two of them padding");
	snprintf(msg, sizeof(msg), "%s.%s", t, body);
	cr_assert_not_null(ctx = EVP_MD_CTX_new());
	cr_assert_eq(EVP_DigestVerifyInit(ctx, NULL, NULL, NULL, pkey), 1);
	ok = EVP_DigestVerify(ctx, sig, 64, (const unsigned char *)msg, strlen(msg)) == 1;
	EVP_MD_CTX_free(ctx);
	EVP_PKEY_free(pkey);
	return ok;
}

Test(wh_sign, generate)
{
	char *priv, *pub, id[WH_KEY_ID_LEN + 1], id2[WH_KEY_ID_LEN + 1], err[256] = "";

	cr_assert_eq(wh_key_generate(&priv, &pub, id, err, sizeof(err)), 0, "%s", err);
	cr_expect(strncmp(priv, "-----BEGIN PRIVATE KEY-----\n", 28) == 0, "%s", priv);
	cr_expect(strncmp(pub, "-----BEGIN PUBLIC KEY-----\n", 27) == 0, "%s", pub);
	cr_expect_str_eq(pub + strlen(pub) - 25, "-----END PUBLIC KEY-----\n");
	cr_expect_eq(strlen(id), WH_KEY_ID_LEN);
	cr_expect_eq(strspn(id, "0123456789abcdef"), WH_KEY_ID_LEN);
	cr_assert_eq(wh_key_id(pub, id2), 0);
	cr_expect_str_eq(id, id2);
	free(priv);
	free(pub);
}

Test(wh_sign, key_id_of_a_known_key)
{
	char id[WH_KEY_ID_LEN + 1], *pub = NULL, err[256] = "";

	cr_assert_eq(wh_key_id(rfc8032_pub, id), 0);
	cr_expect_str_eq(id, RFC8032_ID);
	write_file(rfc8032_priv);
	cr_assert_eq(wh_key_current(path, id, &pub, err, sizeof(err)), 0, "%s", err);
	cr_expect_str_eq(id, RFC8032_ID);
	cr_expect_str_eq(pub, rfc8032_pub);
	free(pub);
}

Test(wh_sign, signature_as_the_openssl_command_line_makes_it)
{
	char out[WH_SIG_HEADER_MAX], err[256] = "";
	const char *body = "{\"a\":1}";

	write_file(rfc8032_priv);
	cr_assert_eq(wh_sign(path, 1700000000, body, strlen(body), out, sizeof(out), err,
	    sizeof(err)), 0, "%s", err);
	cr_expect_str_eq(out, RFC8032_SIG);
}

Test(wh_sign, write_and_read_back)
{
	char id[WH_KEY_ID_LEN + 1], cur[WH_KEY_ID_LEN + 1], tmp[192], err[256] = "";
	char *pub, *pub2 = NULL;
	struct stat st;

	pub = install_new_key(id);
	cr_assert_eq(stat(path, &st), 0);
	cr_expect_eq(st.st_mode & 07777, 0600, "mode %o", st.st_mode & 07777);
	snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid());
	cr_expect_eq(access(tmp, F_OK), -1, "the temporary file is gone");
	cr_assert_eq(wh_key_current(path, cur, &pub2, err, sizeof(err)), 0, "%s", err);
	cr_expect_str_eq(cur, id);
	cr_expect_str_eq(pub2, pub);
	/* Without pub_pem, and from the cache. */
	cr_assert_eq(wh_key_current(path, cur, NULL, err, sizeof(err)), 0, "%s", err);
	cr_expect_str_eq(cur, id);
	free(pub);
	free(pub2);
}

Test(wh_sign, write_refuses_a_leftover_temporary)
{
	char tmp[192], err[256] = "";

	snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid());
	cr_assert_eq(symlink("/tmp/elsewhere", tmp), 0);
	cr_expect_eq(wh_key_write(path, rfc8032_priv, err, sizeof(err)), -1);
	cr_expect(strstr(err, "File exists") != NULL, "%s", err);
	cr_expect_eq(access(path, F_OK), -1);
}

Test(wh_sign, sign_and_verify)
{
	static const char *body = "{\"id\":\"Webhook:1\",\"type\":\"TEST\",\"data\":{}}";
	char id[WH_KEY_ID_LEN + 1], out[WH_SIG_HEADER_MAX], err[256] = "";
	char *pub;
	const char *b64;
	regex_t re;

	pub = install_new_key(id);
	cr_assert_eq(wh_sign(path, 1767225600, body, strlen(body), out, sizeof(out), err,
	    sizeof(err)), 0, "%s", err);
	cr_assert_eq(regcomp(&re, "^t=1767225600,ed25519=[A-Za-z0-9+/]{86}==$",
	    REG_EXTENDED | REG_NOSUB), 0);
	cr_expect_eq(regexec(&re, out, 0, NULL, 0), 0, "%s", out);
	regfree(&re);
	b64 = strstr(out, "ed25519=") + 8;
	cr_expect(verifies(pub, "1767225600", body, b64));
	cr_expect(!verifies(pub, "1767225601", body, b64), "another t");
	cr_expect(!verifies(pub, "1767225600", "{\"id\":\"Webhook:2\",\"type\":\"TEST\",\"data\":{}}",
	    b64), "another body");
	free(pub);
}

Test(wh_sign, sign_empty_body_and_small_buffer)
{
	char out[WH_SIG_HEADER_MAX], err[256] = "";

	write_file(rfc8032_priv);
	cr_expect_eq(wh_sign(path, 0, "", 0, out, sizeof(out), err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(strncmp(out, "t=0,ed25519=", 12), 0, "%s", out);
	cr_expect_eq(wh_sign(path, 0, "", 0, out, 20, err, sizeof(err)), -1);
	cr_expect_str_neq(err, "");
}

Test(wh_sign, rotation_is_seen_without_a_restart)
{
	char id1[WH_KEY_ID_LEN + 1], id2[WH_KEY_ID_LEN + 1], cur[WH_KEY_ID_LEN + 1];
	char out[WH_SIG_HEADER_MAX], err[256] = "";
	char *pub1, *pub2;

	pub1 = install_new_key(id1);
	cr_assert_eq(wh_key_current(path, cur, NULL, err, sizeof(err)), 0, "%s", err);
	cr_expect_str_eq(cur, id1);
	/* wh_key_write renames a new file into place: a new inode. */
	pub2 = install_new_key(id2);
	cr_assert_str_neq(id1, id2);
	cr_assert_eq(wh_key_current(path, cur, NULL, err, sizeof(err)), 0, "%s", err);
	cr_expect_str_eq(cur, id2);
	cr_assert_eq(wh_sign(path, 5, "{}", 2, out, sizeof(out), err, sizeof(err)), 0, "%s", err);
	cr_expect(verifies(pub2, "5", "{}", strstr(out, "ed25519=") + 8));
	cr_expect(!verifies(pub1, "5", "{}", strstr(out, "ed25519=") + 8));
	free(pub1);
	free(pub2);
}

Test(wh_sign, rewritten_in_place_is_seen_too)
{
	char id[WH_KEY_ID_LEN + 1], cur[WH_KEY_ID_LEN + 1], err[256] = "";
	struct timespec ts[2] = { { 0, UTIME_OMIT }, { 1000000000, 0 } };
	char *pub;

	pub = install_new_key(id);
	cr_assert_eq(wh_key_current(path, cur, NULL, err, sizeof(err)), 0, "%s", err);
	cr_expect_str_eq(cur, id);
	/* Same inode, another key (an editor's save), with a distinct mtime. */
	write_file(rfc8032_priv);
	cr_assert_eq(utimensat(AT_FDCWD, path, ts, 0), 0);
	cr_assert_eq(wh_key_current(path, cur, NULL, err, sizeof(err)), 0, "%s", err);
	cr_expect_str_eq(cur, RFC8032_ID);
	free(pub);
}

/* A PEM key of another type (RSA or EC): the private or public half. */
static char *
other_key_pem(const char *type, int public)
{
	EVP_PKEY *pkey;
	BIO *b;
	char *data, *pem;
	long n;

	if (strcmp(type, "RSA") == 0)
		pkey = EVP_PKEY_Q_keygen(NULL, NULL, "RSA", (size_t)1024);
	else
		pkey = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
	cr_assert_not_null(pkey);
	cr_assert_not_null(b = BIO_new(BIO_s_mem()));
	if (public)
		cr_assert_eq(PEM_write_bio_PUBKEY(b, pkey), 1);
	else
		cr_assert_eq(PEM_write_bio_PrivateKey(b, pkey, NULL, NULL, 0, NULL, NULL), 1);
	n = BIO_get_mem_data(b, &data);
	pem = strndup(data, (size_t)n);
	BIO_free(b);
	EVP_PKEY_free(pkey);
	return pem;
}

static void
expect_refused(const char *why)
{
	char id[WH_KEY_ID_LEN + 1], out[WH_SIG_HEADER_MAX], err[256] = "", *pub = NULL;

	cr_expect_eq(wh_key_current(path, id, &pub, err, sizeof(err)), -1, "%s", why);
	cr_expect_null(pub);
	cr_expect(strstr(err, path) != NULL, "%s: %s", why, err);
	err[0] = '\0';
	cr_expect_eq(wh_sign(path, 1, "{}", 2, out, sizeof(out), err, sizeof(err)), -1,
	    "%s", why);
	cr_expect_str_neq(err, "", "%s", why);
}

Test(wh_sign, refuses_what_is_not_an_ed25519_key)
{
	char *rsa, *ec;

	expect_refused("missing file");
	rsa = other_key_pem("RSA", 0);
	write_file(rsa);
	expect_refused("RSA key");
	ec = other_key_pem("EC", 0);
	write_file(ec);
	expect_refused("EC key");
	write_file("not a key\n");
	expect_refused("garbage");
	write_file("");
	expect_refused("empty file");
	free(rsa);
	free(ec);
}

Test(wh_sign, no_path)
{
	char id[WH_KEY_ID_LEN + 1], err[256] = "";

	cr_expect_eq(wh_key_current("", id, NULL, err, sizeof(err)), -1);
	cr_expect_str_eq(err, "webhook_signing_key is not set");
}

Test(wh_sign, missing_file_after_a_good_one)
{
	char id[WH_KEY_ID_LEN + 1], err[256] = "";
	char *pub;

	pub = install_new_key(id);
	cr_assert_eq(wh_key_current(path, id, NULL, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(unlink(path), 0);
	cr_expect_eq(wh_key_current(path, id, NULL, err, sizeof(err)), -1);
	cr_expect(strstr(err, "No such file") != NULL, "%s", err);
	free(pub);
}

Test(wh_sign, key_id_of_what_is_not_an_ed25519_public_key)
{
	char id[WH_KEY_ID_LEN + 1], *pem;

	pem = other_key_pem("EC", 1);
	cr_expect_eq(wh_key_id(pem, id), -1, "EC");
	free(pem);
	pem = other_key_pem("RSA", 1);
	cr_expect_eq(wh_key_id(pem, id), -1, "RSA");
	free(pem);
	cr_expect_eq(wh_key_id(rfc8032_priv, id), -1, "a private key is no public key");
	cr_expect_eq(wh_key_id("garbage", id), -1);
	cr_expect_eq(wh_key_id(NULL, id), -1);
}
