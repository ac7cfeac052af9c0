/*
 * Unit tests of db_datetime_text(): the text of a fetched DATETIME must be
 * byte for byte what MariaDB Connector/C makes of it in a string buffer
 * ("%04u-%02u-%02u %02u:%02u:%02u", then ".%06lu" cut to the column's
 * decimals), which every reader of a timestamp parses.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include <mysql.h>

#include "xborder/db.h"

/* The library's own way, as a reference. */
static size_t
reference(const MYSQL_TIME *t, unsigned decimals, char *out, size_t n)
{
	int len = snprintf(out, n, "%04u-%02u-%02u %02u:%02u:%02u", t->year, t->month,
	    t->day, t->hour, t->minute, t->second);

	if (decimals > 0 && decimals <= 6) {
		char ms[16];

		snprintf(ms, sizeof(ms), ".%06lu", t->second_part);
		if (decimals < 6)
			ms[decimals + 1] = '\0';
		len += snprintf(out + len, n - (size_t)len, "%s", ms);
	}
	return (size_t)len;
}

static MYSQL_TIME
at(unsigned y, unsigned mo, unsigned d, unsigned h, unsigned mi, unsigned s,
    unsigned long us)
{
	MYSQL_TIME t;

	memset(&t, 0, sizeof(t));
	t.year = y;
	t.month = mo;
	t.day = d;
	t.hour = h;
	t.minute = mi;
	t.second = s;
	t.second_part = us;
	t.time_type = MYSQL_TIMESTAMP_DATETIME;
	return t;
}

Test(db_datetime_text, milliseconds_as_the_service_stores_them)
{
	MYSQL_TIME t = at(2026, 11, 24, 6, 40, 49, 123000);
	char out[DB_DATETIME_TEXT_MAX];

	cr_assert_eq(db_datetime_text(&t, 3, out), 23);
	cr_assert_str_eq(out, "2026-11-24 06:40:49.123");
	t = at(2026, 1, 2, 3, 4, 5, 7000);
	db_datetime_text(&t, 3, out);
	cr_assert_str_eq(out, "2026-01-02 03:04:05.007", "leading zeros of the fraction kept");
}

Test(db_datetime_text, no_decimals_and_six)
{
	MYSQL_TIME t = at(9999, 12, 31, 23, 59, 59, 999999);
	char out[DB_DATETIME_TEXT_MAX];

	cr_assert_eq(db_datetime_text(&t, 0, out), 19);
	cr_assert_str_eq(out, "9999-12-31 23:59:59");
	db_datetime_text(&t, 6, out);
	cr_assert_str_eq(out, "9999-12-31 23:59:59.999999");
	t = at(1, 1, 1, 0, 0, 0, 0);
	db_datetime_text(&t, 1, out);
	cr_assert_str_eq(out, "0001-01-01 00:00:00.0");
}

Test(db_datetime_text, same_as_the_library_for_every_width)
{
	static const unsigned long parts[] = { 0, 1, 9, 10, 999, 1000, 123456, 500000, 999999 };
	char got[DB_DATETIME_TEXT_MAX], want[DB_DATETIME_TEXT_MAX];

	for (unsigned dec = 0; dec <= 6; dec++)
		for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
			for (unsigned y = 0; y <= 12000; y += 1999) {
				MYSQL_TIME t = at(y, 1 + i % 12, 1 + i * 3, i, 59 - i, i * 7 % 60,
				    parts[i]);
				size_t n = db_datetime_text(&t, dec, got);

				cr_assert_eq(n, reference(&t, dec, want, sizeof(want)));
				cr_assert_str_eq(got, want, "decimals %u, year %u", dec, y);
				cr_assert_eq(strlen(got), n);
			}
}
