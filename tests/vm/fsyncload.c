// SPDX-License-Identifier: GPL-2.0
/*
 * fsyncload DIR: write files of pseudo-random data into DIR, fsync each
 * and remember its checksum, until SIGTERM or SIGINT; then drop the page
 * cache (if allowed), read every file back and verify its checksum.
 * Prints "files=N verified=V bad=B"; exits 1 if any file is wrong.
 * A guest-side workload for the stress test.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_FILES	256
#define FILE_SIZE	(64 * 1024)

static volatile sig_atomic_t stop;
static uint64_t sums[MAX_FILES];

static void on_signal(int sig)
{
	stop = 1;
}

static uint64_t fnv(const unsigned char *p, size_t n, uint64_t h)
{
	while (n--)
		h = (h ^ *p++) * 0x100000001b3ULL;
	return h;
}

static void fill(unsigned char *buf, unsigned int seed)
{
	uint64_t x = seed * 0x9e3779b97f4a7c15ULL + 1;
	size_t i;

	for (i = 0; i < FILE_SIZE; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		buf[i] = x;
	}
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	static unsigned char buf[FILE_SIZE];
	unsigned int n = 0, i, bad = 0, ok = 0;
	char path[4096];
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: fsyncload DIR\n");
		return 2;
	}
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	printf("ready\n");
	fflush(stdout);
	while (!stop) {
		i = n % MAX_FILES;
		snprintf(path, sizeof(path), "%s/f%04u", argv[1], i);
		fill(buf, n);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || write(fd, buf, FILE_SIZE) != FILE_SIZE ||
		    fsync(fd) || close(fd)) {
			perror(path);
			return 1;
		}
		sums[i] = fnv(buf, FILE_SIZE, 0xcbf29ce484222325ULL);
		n++;
	}
	sync();
	fd = open("/proc/sys/vm/drop_caches", O_WRONLY);
	if (fd >= 0) {
		if (write(fd, "3\n", 2) != 2)
			perror("drop_caches");
		close(fd);
	}
	for (i = 0; i < n && i < MAX_FILES; i++) {
		snprintf(path, sizeof(path), "%s/f%04u", argv[1], i);
		fd = open(path, O_RDONLY);
		if (fd < 0 || read(fd, buf, FILE_SIZE) != FILE_SIZE ||
		    fnv(buf, FILE_SIZE, 0xcbf29ce484222325ULL) != sums[i]) {
			printf("BAD-FILE: %s\n", path);
			bad++;
		} else {
			ok++;
		}
		if (fd >= 0)
			close(fd);
	}
	printf("files=%u verified=%u bad=%u\n", n, ok, bad);
	return bad || !n ? 1 : 0;
}
