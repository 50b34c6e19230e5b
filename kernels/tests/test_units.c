#include <string.h>

#include "../units.h"
#include "test.h"

int main(void)
{
    char err[256];
    long long b, sizes[64];
    int n;
    double x;

    check(units_scan_size("64", &b, err, sizeof err) == 0 && b == 64);
    check(units_scan_size("4K", &b, err, sizeof err) == 0 && b == 4096);
    check(units_scan_size("4kib", &b, err, sizeof err) == 0 && b == 4096);
    check(units_scan_size("64M", &b, err, sizeof err) == 0 && b == 64LL << 20);
    check(units_scan_size("2G", &b, err, sizeof err) == 0 && b == 2LL << 30);
    check(units_scan_size("-1", &b, err, sizeof err) == -1 && strstr(err, "negative"));
    check(units_scan_size("abc", &b, err, sizeof err) == -1 && strstr(err, "cannot read"));
    check(units_scan_size("4X", &b, err, sizeof err) == -1 && strstr(err, "unknown unit"));

    check(units_scan_sizes("0:64M", sizes, 64, &n, err, sizeof err) == 0 && n == 28 && sizes[0] == 0 &&
          sizes[1] == 1 && sizes[27] == 64LL << 20);
    check(units_scan_sizes("1:1K:4", sizes, 64, &n, err, sizeof err) == 0 && n == 6 && sizes[5] == 1024);
    check(units_scan_sizes("3,1K,8", sizes, 64, &n, err, sizeof err) == 0 && n == 3 && sizes[1] == 1024);
    check(units_scan_sizes("8:1", sizes, 64, &n, err, sizeof err) == -1 && strstr(err, "ends below"));
    check(units_scan_sizes("1:8:1", sizes, 64, &n, err, sizeof err) == -1);
    check(units_scan_sizes("", sizes, 64, &n, err, sizeof err) == -1);
    check(units_scan_sizes("1:1G", sizes, 4, &n, err, sizeof err) == -1 && strstr(err, "too many"));

    check(units_scan_seconds("1.5", &x, err, sizeof err) == 0 && x == 1.5);
    check(units_scan_seconds("500ms", &x, err, sizeof err) == 0 && x > 0.4999 && x < 0.5001);
    check(units_scan_seconds("2s", &x, err, sizeof err) == 0 && x == 2.0);
    check(units_scan_seconds("fast", &x, err, sizeof err) == -1);
    check(units_scan_fraction("1%", &x, err, sizeof err) == 0 && x > 0.00999 && x < 0.01001);
    check(units_scan_fraction("0.05", &x, err, sizeof err) == 0 && x == 0.05);
    check(units_scan_fraction("1%%", &x, err, sizeof err) == -1);
    return done("test_units");
}
