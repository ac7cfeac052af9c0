/*
 * Unit tests of the logfmt logger: quoting of every kind of value, the
 * fixed fields of a line, fields that do not fit, the level threshold,
 * the journal's priority prefix and reopening after logrotate.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "xborder/log.h"

static char dir[64], path[128];

static void
setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/xb-log-XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/x.log", dir);
	log_set_level(LOG_LVL_INFO);
}

static void
teardown(void)
{
	char p[160];

	log_open("test", NULL);
	unlink(path);
	snprintf(p, sizeof(p), "%s.1", path);
	unlink(p);
	rmdir(dir);
	unsetenv("JOURNAL_STREAM");
}

TestSuite(log, .init = setup, .fini = teardown);

/* The whole file at p (static buffer). */
static const char *
slurp(const char *p)
{
	static char buf[8192];
	FILE *f = fopen(p, "r");
	size_t n;

	cr_assert_not_null(f, "%s exists", p);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return buf;
}

static const char *
quoted(const char *v)
{
	static char out[256];

	log_quote(out, sizeof(out), v);
	return out;
}

Test(log, quoting)
{
	cr_expect_str_eq(quoted("GET"), "GET");
	cr_expect_str_eq(quoted("/tokens/{tokenId}"), "/tokens/{tokenId}");
	cr_expect_str_eq(quoted(""), "\"\"");
	cr_expect_str_eq(quoted("two words"), "\"two words\"");
	cr_expect_str_eq(quoted("a=b"), "\"a=b\"");
	cr_expect_str_eq(quoted("say \"hi\""), "\"say \\\"hi\\\"\"");
	cr_expect_str_eq(quoted("back\\slash"), "\"back\\\\slash\"");
	cr_expect_str_eq(quoted("line\nbreak\ttab"), "\"line\\nbreak\\ttab\"");
	cr_expect_str_eq(quoted("bell\a"), "\"bell\\x07\"");
	cr_expect_str_eq(quoted("caf\xc3\xa9"), "\"caf\\xc3\\xa9\"");
}

Test(log, quote_never_cuts_a_value)
{
	char out[8];

	cr_expect_eq(log_quote(out, sizeof(out), "1234567"), 7);
	cr_expect_eq(log_quote(out, sizeof(out), "12345678"), 0);
	cr_expect_str_eq(out, "");
	cr_expect_eq(log_quote(out, sizeof(out), "a b c d"), 0, "9 bytes quoted");
}

Test(log, line_fields)
{
	struct logline l;
	char want[64];

	cr_assert_eq(log_open("xborder-test", path), 0);
	log_begin(&l, LOG_LVL_WARN, "request");
	log_str(&l, "route", "/customers/{customerId}");
	log_str(&l, "code", NULL);
	log_int(&l, "status", 404);
	log_str(&l, "note", "has space");
	log_end(&l);
	log_msg(LOG_LVL_ERROR, "abc123", "store failure %d", -2);
	log_msg(LOG_LVL_DEBUG, NULL, "below the threshold");

	const char *s = slurp(path);
	snprintf(want, sizeof(want), " prog=xborder-test pid=%d msg=request ", (int)getpid());
	cr_expect(strncmp(s, "ts=", 3) == 0, "starts with ts: %s", s);
	cr_expect(s[7] == '-' && s[26] == 'Z' && s[27] == ' ', "ts is UTC with ms: %s", s);
	cr_expect_not_null(strstr(s, " level=warn prog=xborder-test "), "%s", s);
	cr_expect_not_null(strstr(s, want), "%s", s);
	cr_expect_not_null(strstr(s, " route=/customers/{customerId} code=- status=404"
	    " note=\"has space\"\n"), "%s", s);
	cr_expect_not_null(strstr(s, " level=error "), "%s", s);
	cr_expect_not_null(strstr(s, " msg=\"store failure -2\" request_id=abc123\n"), "%s", s);
	cr_expect_null(strstr(s, "below the threshold"), "debug is dropped at info");
}

Test(log, fields_that_do_not_fit_are_dropped_whole)
{
	struct logline l;
	char big[600];
	int lines = 0;

	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	cr_assert_eq(log_open("t", path), 0);
	log_begin(&l, LOG_LVL_INFO, "big");
	for (int i = 0; i < 6; i++)
		log_str(&l, "v", big);
	log_int(&l, "after", 1);
	log_end(&l);

	const char *s = slurp(path);
	for (const char *p = s; *p; p++)
		lines += *p == '\n';
	cr_expect_eq(lines, 1);
	cr_expect_lt(strlen(s), (size_t)LOG_LINE_MAX + 1);
	cr_expect_not_null(strstr(s, " after=1"), "a small field after a dropped one fits");
	cr_expect_not_null(strstr(s, " dropped_fields=3\n"), "%s", s + strlen(s) - 40);
}

Test(log, journal_priority_prefix)
{
	struct stat st;
	char v[64];
	int fd, saved = dup(STDERR_FILENO);

	cr_assert_geq(fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600), 0);
	cr_assert_eq(fstat(fd, &st), 0);
	dup2(fd, STDERR_FILENO);
	close(fd);
	snprintf(v, sizeof(v), "%llu:%llu", (unsigned long long)st.st_dev,
	    (unsigned long long)st.st_ino);
	setenv("JOURNAL_STREAM", v, 1);
	log_open("t", NULL);
	log_msg(LOG_LVL_WARN, NULL, "to the journal");
	log_msg(LOG_LVL_INFO, NULL, "info too");
	setenv("JOURNAL_STREAM", "1:2", 1);	/* another stream: not ours */
	log_open("t", NULL);
	log_msg(LOG_LVL_ERROR, NULL, "plain");
	dup2(saved, STDERR_FILENO);
	close(saved);

	const char *s = slurp(path);
	cr_expect(strncmp(s, "<4>ts=", 6) == 0, "%s", s);
	cr_expect_not_null(strstr(s, "\n<6>ts="), "%s", s);
	cr_expect_not_null(strstr(s, "\nts="), "no prefix when stderr is not the journal: %s", s);
}

Test(log, reopen_after_rotation)
{
	char rotated[160];

	snprintf(rotated, sizeof(rotated), "%s.1", path);
	cr_assert_eq(log_open("t", path), 0);
	log_msg(LOG_LVL_INFO, NULL, "before");
	cr_assert_eq(rename(path, rotated), 0);
	log_msg(LOG_LVL_INFO, NULL, "still the old file");
	log_reopen_request();
	log_msg(LOG_LVL_INFO, NULL, "after");
	cr_expect_not_null(strstr(slurp(rotated), "msg=before"));
	cr_expect_not_null(strstr(slurp(rotated), "msg=\"still the old file\""));
	cr_expect_null(strstr(slurp(rotated), "msg=after"));
	cr_expect_not_null(strstr(slurp(path), "msg=after"));
}

Test(log, open_failure_is_reported)
{
	cr_expect_eq(log_open("t", "/nonexistent-dir/x.log"), -1);
	log_msg(LOG_LVL_DEBUG, NULL, "still usable");
}
