/*
 * Unit tests of the webhook signing keys (wh_sign.c): generation of the
 * master's file, the key id, the derivation of each platform's key from
 * the master (a known answer made with Python's hmac and the openssl
 * command line; same inputs same key, another platform, salt or master
 * another key; nothing private in what is stored), signatures checked with
 * OpenSSL's verifier, a new master seen without a restart, and files that
 * are not Ed25519 keys.
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
/* The same key's 32 secret bytes: the master of the known answer. */
static const unsigned char rfc8032_raw[WH_MASTER_LEN] = {
	0x9d, 0x61, 0xb1, 0x9d, 0xef, 0xfd, 0x5a, 0x60, 0xba, 0x84, 0x4a, 0xf4, 0x92, 0xec,
	0x2c, 0xc4, 0x44, 0x49, 0xc5, 0x69, 0x7b, 0x32, 0x69, 0x19, 0x70, 0x3b, 0xac, 0x03,
	0x1c, 0xae, 0x7f, 0x60
};
#define PLATFORM_A "11111111-1111-4111-8111-111111111111"
#define PLATFORM_B "22222222-2222-4222-8222-222222222222"
#define SALT_1 "000102030405060708090a0b0c0d0e0f"
#define SALT_2 "000102030405060708090a0b0c0d0e1f"
/*
 * The known answer: HMAC-SHA-256(rfc8032_raw, "xborder webhook signing key
 * v1\0" PLATFORM_A "\0" SALT_1) (Python's hmac), as an Ed25519 seed, and
 * what `openssl pkey -pubout` makes of the PKCS#8 key of that seed.
 */
static const unsigned char kat_seed[WH_SEED_LEN] = {
	0x40, 0x27, 0xff, 0xa4, 0x11, 0x03, 0x9f, 0xf1, 0xdd, 0xde, 0xd0, 0x0d, 0x27, 0x6a,
	0xcf, 0xbf, 0x76, 0x97, 0xe0, 0x4f, 0x60, 0x0e, 0x56, 0x19, 0x85, 0xd4, 0x3c, 0x18,
	0x18, 0x81, 0x92, 0xee
};
static const char kat_pub[] =
    "-----BEGIN PUBLIC KEY-----\n"
    "MCowBQYDK2VwAyEAFr0l8J6mi4aHJ0HPfRV0DfQJo8/sY3+sljpt7+urzJM=\n"
    "-----END PUBLIC KEY-----\n";
#define KAT_ID "44ece4f4232067ec"

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
	cr_assert_eq(wh_master_current(path, id, &pub, err, sizeof(err)), 0, "%s", err);
	cr_expect_str_eq(id, RFC8032_ID, "a master's id is its file key's id");
	cr_expect_str_eq(pub, rfc8032_pub);
	free(pub);
}

Test(wh_sign, seed_and_key_of_a_known_answer)
{
	unsigned char seed[WH_SEED_LEN];
	char id[WH_KEY_ID_LEN + 1], mid[WH_KEY_ID_LEN + 1], *pub = NULL, err[256] = "";

	cr_assert_eq(wh_key_seed(rfc8032_raw, PLATFORM_A, SALT_1, seed), 0);
	cr_expect_eq(memcmp(seed, kat_seed, sizeof(seed)), 0, "the seed is the HMAC of the KAT");
	cr_assert_eq(wh_key_derive(rfc8032_raw, PLATFORM_A, SALT_1, id, &pub), 0);
	cr_expect_str_eq(id, KAT_ID);
	cr_expect_str_eq(pub, kat_pub);
	free(pub);
	/* The same through the master's file. */
	write_file(rfc8032_priv);
	cr_assert_eq(wh_platform_key(path, PLATFORM_A, SALT_1, mid, id, &pub, err,
	    sizeof(err)), 0, "%s", err);
	cr_expect_str_eq(mid, RFC8032_ID);
	cr_expect_str_eq(id, KAT_ID);
	cr_expect_str_eq(pub, kat_pub);
	free(pub);
}

Test(wh_sign, same_inputs_same_key_other_inputs_other_keys)
{
	unsigned char m2[WH_MASTER_LEN];
	char id[6][WH_KEY_ID_LEN + 1], *pub[6];

	memcpy(m2, rfc8032_raw, sizeof(m2));
	m2[31] ^= 1;
	cr_assert_eq(wh_key_derive(rfc8032_raw, PLATFORM_A, SALT_1, id[0], &pub[0]), 0);
	cr_assert_eq(wh_key_derive(rfc8032_raw, PLATFORM_A, SALT_1, id[1], &pub[1]), 0);
	cr_assert_eq(wh_key_derive(rfc8032_raw, PLATFORM_B, SALT_1, id[2], &pub[2]), 0);
	cr_assert_eq(wh_key_derive(rfc8032_raw, PLATFORM_A, SALT_2, id[3], &pub[3]), 0);
	cr_assert_eq(wh_key_derive(m2, PLATFORM_A, SALT_1, id[4], &pub[4]), 0);
	cr_assert_eq(wh_key_derive(rfc8032_raw, PLATFORM_B, SALT_2, id[5], &pub[5]), 0);
	cr_expect_str_eq(id[0], id[1], "same inputs, same key");
	cr_expect_str_eq(pub[0], pub[1], "same inputs, same public key");
	for (int i = 2; i < 6; i++) {
		cr_expect_str_neq(id[0], id[i], "input set %d gives another key", i);
		cr_expect_str_neq(pub[0], pub[i], "input set %d gives another public key", i);
	}
	cr_expect_str_neq(id[2], id[5], "another salt of platform B");
	for (int i = 0; i < 6; i++) {
		char again[WH_KEY_ID_LEN + 1];

		cr_expect_eq(wh_key_id(pub[i], again), 0);
		cr_expect_str_eq(again, id[i], "the key id is the public key's");
		free(pub[i]);
	}
	/* Without the PEM: the id alone. */
	cr_assert_eq(wh_key_derive(rfc8032_raw, PLATFORM_A, SALT_1, id[1], NULL), 0);
	cr_expect_str_eq(id[1], id[0]);
}

/* 1 when the n bytes of needle occur in the n2 bytes of hay. */
static int
has_bytes(const unsigned char *hay, size_t n2, const unsigned char *needle, size_t n)
{
	for (size_t i = 0; i + n <= n2; i++)
		if (memcmp(hay + i, needle, n) == 0)
			return 1;
	return 0;
}

/* 1 when any 8-byte run of secret occurs in the n bytes of hay. */
static int
leaks(const unsigned char *hay, size_t n, const unsigned char *secret, size_t slen)
{
	for (size_t i = 0; i + 8 <= slen; i++)
		if (has_bytes(hay, n, secret + i, 8))
			return 1;
	return 0;
}

Test(wh_sign, nothing_private_in_what_is_stored)
{
	unsigned char seed[WH_SEED_LEN], der[256], hexs[2 * WH_SEED_LEN + 1];
	unsigned char hexm[2 * WH_MASTER_LEN + 1], b64[128];
	char id[WH_KEY_ID_LEN + 1], salt[WH_SALT_LEN + 1], *pub;
	const char *stored[4];
	EVP_PKEY *pkey;
	BIO *b;
	int dlen;

	/* What a key's row holds: platform id, salt, key id, master id, public PEM. */
	cr_assert_eq(wh_salt_new(salt), 0);
	cr_assert_eq(wh_key_seed(rfc8032_raw, PLATFORM_A, salt, seed), 0);
	cr_assert_eq(wh_key_derive(rfc8032_raw, PLATFORM_A, salt, id, &pub), 0);
	stored[0] = PLATFORM_A, stored[1] = salt, stored[2] = id, stored[3] = pub;
	for (size_t i = 0; i < WH_SEED_LEN; i++)
		snprintf((char *)hexs + 2 * i, 3, "%02x", seed[i]);
	for (size_t i = 0; i < WH_MASTER_LEN; i++)
		snprintf((char *)hexm + 2 * i, 3, "%02x", rfc8032_raw[i]);
	EVP_EncodeBlock(b64, seed, WH_SEED_LEN);
	for (int i = 0; i < 4; i++) {
		const unsigned char *t = (const unsigned char *)stored[i];
		size_t n = strlen(stored[i]);

		cr_expect(!leaks(t, n, seed, WH_SEED_LEN), "stored[%d]: no run of the seed", i);
		cr_expect(!leaks(t, n, rfc8032_raw, WH_MASTER_LEN), "stored[%d]: no run of the master", i);
		cr_expect(!leaks(t, n, hexs, 2 * WH_SEED_LEN), "stored[%d]: no run of the seed in hex", i);
		cr_expect(!leaks(t, n, hexm, 2 * WH_MASTER_LEN), "stored[%d]: no run of the master in hex", i);
		cr_expect(!has_bytes(t, n, b64, 12), "stored[%d]: not the seed in base64", i);
	}
	/* The PEM is a public key only: its DER holds neither secret. */
	cr_assert_not_null(b = BIO_new_mem_buf(pub, -1));
	cr_assert_not_null(pkey = PEM_read_bio_PUBKEY(b, NULL, NULL, NULL));
	BIO_free(b);
	{
		unsigned char *p = der;

		dlen = i2d_PUBKEY(pkey, &p);
	}
	cr_assert(dlen > 0 && dlen <= (int)sizeof(der));
	cr_expect(!leaks(der, (size_t)dlen, seed, WH_SEED_LEN), "the public DER holds no run of the seed");
	cr_expect(!leaks(der, (size_t)dlen, rfc8032_raw, WH_MASTER_LEN), "nor of the master");
	EVP_PKEY_free(pkey);
	cr_assert_not_null(b = BIO_new_mem_buf(pub, -1));
	cr_expect_null(PEM_read_bio_PrivateKey(b, NULL, NULL, NULL), "no private key in the PEM");
	BIO_free(b);
	free(pub);
}

Test(wh_sign, salts)
{
	char a[WH_SALT_LEN + 1], b[WH_SALT_LEN + 1];

	cr_assert_eq(wh_salt_new(a), 0);
	cr_assert_eq(wh_salt_new(b), 0);
	cr_expect(wh_salt_valid(a), "%s", a);
	cr_expect(wh_salt_valid(b), "%s", b);
	cr_expect_str_neq(a, b);
	cr_expect(!wh_salt_valid("000102030405060708090A0B0C0D0E0F"), "upper case");
	cr_expect(!wh_salt_valid("000102030405060708090a0b0c0d0e0"), "31 digits");
	cr_expect(!wh_salt_valid("000102030405060708090a0b0c0d0e0f0"), "33 digits");
	cr_expect(!wh_salt_valid(""));
}

Test(wh_sign, derivation_refuses_malformed_inputs)
{
	unsigned char seed[WH_SEED_LEN];
	char id[WH_KEY_ID_LEN + 1], *pub = (char *)"x";

	cr_expect_eq(wh_key_seed(rfc8032_raw, PLATFORM_A, "xyz", seed), -1, "bad salt");
	cr_expect_eq(wh_key_seed(rfc8032_raw, "", SALT_1, seed), -1, "empty platform");
	cr_expect_eq(wh_key_seed(rfc8032_raw, NULL, SALT_1, seed), -1, "no platform");
	cr_expect_eq(wh_key_derive(rfc8032_raw, PLATFORM_A, NULL, id, &pub), -1, "no salt");
	cr_expect_null(pub);
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
	cr_assert_eq(wh_master_current(path, cur, &pub2, err, sizeof(err)), 0, "%s", err);
	cr_expect_str_eq(cur, id);
	cr_expect_str_eq(pub2, pub);
	/* Without pub_pem, and from the cache. */
	cr_assert_eq(wh_master_current(path, cur, NULL, err, sizeof(err)), 0, "%s", err);
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

Test(wh_sign, platform_signature_verifies_with_its_key_only)
{
	static const char *body = "{\"id\":\"Webhook:1\",\"type\":\"TEST\",\"data\":{}}";
	char mid[WH_KEY_ID_LEN + 1], ida[WH_KEY_ID_LEN + 1], idb[WH_KEY_ID_LEN + 1];
	char out[WH_SIG_HEADER_MAX], err[256] = "", *puba, *pubb, *master_pub;
	const char *b64;
	regex_t re;

	free(install_new_key(mid));
	cr_assert_eq(wh_platform_key(path, PLATFORM_A, SALT_1, mid, ida, &puba, err,
	    sizeof(err)), 0, "%s", err);
	cr_assert_eq(wh_platform_key(path, PLATFORM_B, SALT_1, mid, idb, &pubb, err,
	    sizeof(err)), 0, "%s", err);
	cr_assert_eq(wh_master_current(path, mid, &master_pub, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(wh_sign_platform(path, mid, PLATFORM_A, SALT_1, ida, 1767225600, body,
	    strlen(body), out, sizeof(out), err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(regcomp(&re, "^t=1767225600,ed25519=[A-Za-z0-9+/]{86}==$",
	    REG_EXTENDED | REG_NOSUB), 0);
	cr_expect_eq(regexec(&re, out, 0, NULL, 0), 0, "%s", out);
	regfree(&re);
	b64 = strstr(out, "ed25519=") + 8;
	cr_expect(verifies(puba, "1767225600", body, b64), "A's key verifies A's signature");
	cr_expect(!verifies(pubb, "1767225600", body, b64), "B's key does not");
	cr_expect(!verifies(master_pub, "1767225600", body, b64), "nor the master's public key");
	cr_expect(!verifies(puba, "1767225601", body, b64), "another t");
	cr_expect(!verifies(puba, "1767225600", "{\"id\":\"Webhook:2\",\"type\":\"TEST\",\"data\":{}}",
	    b64), "another body");
	/* Again, from the per-process cache of derived keys. */
	cr_assert_eq(wh_sign_platform(path, mid, PLATFORM_B, SALT_1, idb, 7, "{}", 2, out,
	    sizeof(out), err, sizeof(err)), 0, "%s", err);
	cr_expect(verifies(pubb, "7", "{}", strstr(out, "ed25519=") + 8));
	cr_assert_eq(wh_sign_platform(path, mid, PLATFORM_A, SALT_1, ida, 7, "{}", 2, out,
	    sizeof(out), err, sizeof(err)), 0, "%s", err);
	cr_expect(verifies(puba, "7", "{}", strstr(out, "ed25519=") + 8));
	free(puba);
	free(pubb);
	free(master_pub);
}

Test(wh_sign, sign_refuses_a_row_that_does_not_match)
{
	char mid[WH_KEY_ID_LEN + 1], id[WH_KEY_ID_LEN + 1], out[WH_SIG_HEADER_MAX];
	char err[256] = "", *pub;

	free(install_new_key(mid));
	cr_assert_eq(wh_platform_key(path, PLATFORM_A, SALT_1, mid, id, &pub, err,
	    sizeof(err)), 0, "%s", err);
	free(pub);
	cr_expect_eq(wh_sign_platform(path, "0000000000000000", PLATFORM_A, SALT_1, id, 1, "{}",
	    2, out, sizeof(out), err, sizeof(err)), -1, "another master");
	cr_expect(strstr(err, "master") != NULL, "%s", err);
	cr_expect_eq(wh_sign_platform(path, mid, PLATFORM_B, SALT_1, id, 1, "{}", 2, out,
	    sizeof(out), err, sizeof(err)), -1, "another platform's row");
	cr_expect_eq(wh_sign_platform(path, mid, PLATFORM_A, SALT_2, id, 1, "{}", 2, out,
	    sizeof(out), err, sizeof(err)), -1, "another salt");
	cr_expect_eq(wh_sign_platform(path, mid, PLATFORM_A, "nohex", id, 1, "{}", 2, out,
	    sizeof(out), err, sizeof(err)), -1, "a malformed salt");
}

Test(wh_sign, sign_empty_body_and_small_buffer)
{
	char out[WH_SIG_HEADER_MAX], err[256] = "";

	write_file(rfc8032_priv);
	cr_expect_eq(wh_sign_platform(path, RFC8032_ID, PLATFORM_A, SALT_1, KAT_ID, 0, "", 0,
	    out, sizeof(out), err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(strncmp(out, "t=0,ed25519=", 12), 0, "%s", out);
	cr_expect(verifies(kat_pub, "0", "", out + 12));
	cr_expect_eq(wh_sign_platform(path, RFC8032_ID, PLATFORM_A, SALT_1, KAT_ID, 0, "", 0,
	    out, 20, err, sizeof(err)), -1);
	cr_expect_str_neq(err, "");
}

Test(wh_sign, a_new_master_is_seen_without_a_restart)
{
	char m1[WH_KEY_ID_LEN + 1], m2[WH_KEY_ID_LEN + 1], cur[WH_KEY_ID_LEN + 1];
	char id1[WH_KEY_ID_LEN + 1], id2[WH_KEY_ID_LEN + 1], out[WH_SIG_HEADER_MAX];
	char err[256] = "", *pub1, *pub2;

	free(install_new_key(m1));
	cr_assert_eq(wh_platform_key(path, PLATFORM_A, SALT_1, cur, id1, &pub1, err,
	    sizeof(err)), 0, "%s", err);
	cr_expect_str_eq(cur, m1);
	cr_assert_eq(wh_sign_platform(path, m1, PLATFORM_A, SALT_1, id1, 5, "{}", 2, out,
	    sizeof(out), err, sizeof(err)), 0, "%s", err);
	/* wh_key_write renames a new file into place: a new inode. */
	free(install_new_key(m2));
	cr_assert_str_neq(m1, m2);
	cr_assert_eq(wh_master_current(path, cur, NULL, err, sizeof(err)), 0, "%s", err);
	cr_expect_str_eq(cur, m2);
	cr_expect_eq(wh_sign_platform(path, m1, PLATFORM_A, SALT_1, id1, 5, "{}", 2, out,
	    sizeof(out), err, sizeof(err)), -1, "a key of the old master signs no more");
	cr_assert_eq(wh_platform_key(path, PLATFORM_A, SALT_1, cur, id2, &pub2, err,
	    sizeof(err)), 0, "%s", err);
	cr_expect_str_neq(id1, id2, "the same platform and salt, another master: another key");
	cr_assert_eq(wh_sign_platform(path, m2, PLATFORM_A, SALT_1, id2, 5, "{}", 2, out,
	    sizeof(out), err, sizeof(err)), 0, "%s", err);
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
	cr_assert_eq(wh_master_current(path, cur, NULL, err, sizeof(err)), 0, "%s", err);
	cr_expect_str_eq(cur, id);
	/* Same inode, another key (an editor's save), with a distinct mtime. */
	write_file(rfc8032_priv);
	cr_assert_eq(utimensat(AT_FDCWD, path, ts, 0), 0);
	cr_assert_eq(wh_master_current(path, cur, NULL, err, sizeof(err)), 0, "%s", err);
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
	char id[WH_KEY_ID_LEN + 1], kid[WH_KEY_ID_LEN + 1], out[WH_SIG_HEADER_MAX];
	char err[256] = "", *pub = NULL;

	cr_expect_eq(wh_master_current(path, id, &pub, err, sizeof(err)), -1, "%s", why);
	cr_expect_null(pub);
	cr_expect(strstr(err, path) != NULL, "%s: %s", why, err);
	err[0] = '\0';
	cr_expect_eq(wh_platform_key(path, PLATFORM_A, SALT_1, id, kid, &pub, err, sizeof(err)),
	    -1, "%s", why);
	cr_expect_null(pub);
	err[0] = '\0';
	cr_expect_eq(wh_sign_platform(path, RFC8032_ID, PLATFORM_A, SALT_1, KAT_ID, 1, "{}", 2,
	    out, sizeof(out), err, sizeof(err)), -1, "%s", why);
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

	cr_expect_eq(wh_master_current("", id, NULL, err, sizeof(err)), -1);
	cr_expect_str_eq(err, "webhook_signing_key is not set");
}

Test(wh_sign, missing_file_after_a_good_one)
{
	char id[WH_KEY_ID_LEN + 1], err[256] = "";
	char *pub;

	pub = install_new_key(id);
	cr_assert_eq(wh_master_current(path, id, NULL, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(unlink(path), 0);
	cr_expect_eq(wh_master_current(path, id, NULL, err, sizeof(err)), -1);
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
