/* inband_rapl — RAPL domains through the powercap sysfs (mw_inband.h, docs/inband.md).
 *
 * The root is /sys/class/powercap, or MW_POWERCAP_ROOT (a tree shaped like it, for tests
 * and for machines that mount sysfs elsewhere); past the root the code is the same. A
 * domain is a directory named intel-rapl:N (a package, or psys), intel-rapl:N:M (one of its
 * parts: core, uncore, or dram, which lies beside the package, not inside it),
 * intel-rapl-mmio:N or amd-rapl:N[:M], holding `name`, `energy_uj` and
 * `max_energy_range_uj`. Its source is named rapl:NAME, a part rapl:PARENT/NAME.
 *
 * energy_uj is kept open and read with pread from offset 0, which sysfs answers afresh each
 * time (a few microseconds, no path lookup); after each read fstat tells whether the file
 * was replaced or removed (st_nlink 0: a rename over it in a test tree, or the domain
 * going away), and then the path is opened again. A domain that vanished fails its reads
 * until it is back. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "inband_internal.h"
#include "mw_alloc.h"

#define RAPL_DEFAULT_ROOT "/sys/class/powercap"

static const char *rapl_root(void)
{
    const char *r = getenv("MW_POWERCAP_ROOT");
    return r && *r ? r : RAPL_DEFAULT_ROOT;
}

/* the number a sysfs file holds ("123\n"): 0, or -1 with why */
static int parse_u64(const char *buf, ssize_t n, uint64_t *v, char *why, size_t whylen)
{
    char *end;
    if (n <= 0 || buf[0] < '0' || buf[0] > '9') {
        snprintf(why, whylen, "%s", n < 0 ? strerror(errno) : "not a number");
        return -1;
    }
    errno = 0;
    unsigned long long x = strtoull(buf, &end, 10);
    if (errno || (*end && strcmp(end, "\n"))) {
        snprintf(why, whylen, "not a number");
        return -1;
    }
    *v = x;
    return 0;
}

/* open a file to read, never blocking (a FIFO planted in a test tree would hang the
 * recorder) and only a regular file (sysfs attributes are): the fd, or -1 with errno */
static int open_regular(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    struct stat st;
    if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) {
        close(fd);
        errno = EINVAL;
        return -1;
    }
    return fd;
}

/* read a small file whole: its bytes (NUL-terminated, newline cut), or -1 with errno */
static ssize_t read_small(const char *path, char *buf, size_t len)
{
    int fd = open_regular(path);
    if (fd < 0) return -1;
    ssize_t n = read(fd, buf, len - 1);
    int e = errno;
    close(fd);
    errno = e;
    if (n < 0) return -1;
    buf[n] = 0;
    if (n && buf[n - 1] == '\n') buf[--n] = 0;
    return n;
}

static int pread_u64(mw_inband_src *s, uint64_t *v, char *why, size_t whylen)
{
    char buf[32];
    ssize_t n = pread(s->fd, buf, sizeof buf - 1, 0);
    if (n >= 0) buf[n] = 0;
    return parse_u64(buf, n, v, why, whylen);
}

int mw_inband_rapl_read(mw_inband_src *s, uint64_t *energy_uj, char *why, size_t whylen)
{
    struct stat st;
    if (s->fd >= 0) {
        int rc = pread_u64(s, energy_uj, why, whylen);
        if (fstat(s->fd, &st) == 0 && st.st_nlink > 0) return rc;
        close(s->fd); /* replaced or gone: open the path again */
        s->fd = -1;
    }
    s->fd = open_regular(s->path);
    if (s->fd < 0) {
        snprintf(why, whylen, "%s: %s", s->path, errno == EINVAL ? "not a regular file" : strerror(errno));
        return -1;
    }
    return pread_u64(s, energy_uj, why, whylen);
}

/* "intel-rapl:0" and the like: 1 for a package-level domain, 2 for a part, else 0 */
static int domain_level(const char *d)
{
    static const char *const prefix[] = {"intel-rapl:", "intel-rapl-mmio:", "amd-rapl:"};
    for (size_t i = 0; i < sizeof prefix / sizeof prefix[0]; i++) {
        size_t n = strlen(prefix[i]);
        if (strncmp(d, prefix[i], n) || !d[n]) continue;
        int colons = 0;
        for (const char *p = d + n; *p; p++) {
            if (*p == ':')
                colons++;
            else if (*p < '0' || *p > '9')
                return 0;
        }
        return colons == 0 ? 1 : colons == 1 ? 2 : 0;
    }
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* the names of the domain directories under root, sorted: a malloc'd array */
static char **list_domains(const char *root, int *n)
{
    *n = 0;
    DIR *d = opendir(root);
    if (!d) return NULL;
    char **v = NULL;
    int cap = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!domain_level(e->d_name)) continue;
        if (*n == cap) v = mw_xrealloc(v, (size_t)(cap = cap ? 2 * cap : 16) * sizeof *v);
        v[(*n)++] = mw_xstrdup(e->d_name);
    }
    closedir(d);
    if (*n) qsort(v, (size_t)*n, sizeof *v, by_name);
    return v;
}

/* the domain's name file: "package-0" */
static int domain_name(const char *root, const char *dir, char *out, size_t outlen)
{
    char p[4200];
    snprintf(p, sizeof p, "%s/%s/name", root, dir);
    return read_small(p, out, outlen) > 0 ? 0 : -1;
}

/* fill s from directory dir (level 1 or 2); -1 with a note when it cannot be used, -2
 * when its energy_uj may not be read (permission) */
static int rapl_domain(mw_inband_src *s, const char *root, const char *dir, mw_inband_notes *notes)
{
    char name[64], parent[64] = "", p[4200], buf[64], why[256];
    if (domain_name(root, dir, name, sizeof name)) return -1; /* not a domain */
    if (domain_level(dir) == 2) {
        snprintf(buf, sizeof buf, "%s", dir);
        *strrchr(buf, ':') = 0;
        if (domain_name(root, buf, parent, sizeof parent)) snprintf(parent, sizeof parent, "%s", buf);
    }
    snprintf(s->info.name, sizeof s->info.name, "rapl:%.40s%s%.40s", parent,
             parent[0] ? "/" : "", name);
    s->info.kind = "rapl";
    snprintf(s->info.domain, sizeof s->info.domain, "%.*s", (int)strcspn(name, "-"), name);
    snprintf(s->info.device, sizeof s->info.device, "%s", dir);
    s->info.additive = !strcmp(s->info.domain, "package") || !strcmp(s->info.domain, "dram");
    snprintf(p, sizeof p, "%s/%s/max_energy_range_uj", root, dir);
    ssize_t n = read_small(p, buf, sizeof buf);
    if (parse_u64(buf, n, &s->info.range_uj, why, sizeof why)) s->info.range_uj = 0;
    snprintf(s->path, sizeof s->path, "%s/%s/energy_uj", root, dir);
    s->fd = open_regular(s->path);
    if (s->fd < 0) {
        int e = errno;
        if (e == EACCES || e == EPERM) return -2;
        mw_inband_note(notes, "%s: left out: %s: %s", s->info.name, s->path,
                       e == EINVAL ? "not a regular file" : strerror(e));
        return -1;
    }
    uint64_t v;
    if (pread_u64(s, &v, why, sizeof why) == 0) return 0;
    mw_inband_note(notes, "%s: left out: %s: %s", s->info.name, s->path, why);
    close(s->fd);
    return -1;
}

int mw_inband_rapl_find(mw_inband_src **src, int max, mw_inband_notes *notes)
{
    const char *root = rapl_root();
    int n, added = 0, denied = 0;
    char **dirs = list_domains(root, &n);
    for (int i = 0; i < n; i++) {
        mw_inband_src *s = mw_xcalloc(1, sizeof *s);
        int rc = added < max ? rapl_domain(s, root, dirs[i], notes) : -1;
        if (rc == 0)
            src[added++] = s;
        else
            free(s);
        denied += rc == -2;
        free(dirs[i]);
    }
    free(dirs);
    if (denied) /* said once, however many domains */
        mw_inband_note(notes,
                       "rapl: %d domain%s under %s not readable (permission denied: energy_uj "
                       "is root-only on recent kernels): left out; to record them grant read "
                       "access, e.g. 'sudo chmod a+r %s/intel-rapl:*/energy_uj "
                       "%s/intel-rapl:*/intel-rapl:*/energy_uj' (or a udev rule)",
                       denied, denied > 1 ? "s" : "", root, root, root);
    if (!n) mw_inband_note(notes, "rapl: no RAPL domain under %s: not recorded", root);
    return added;
}
