/* mw_fs — file-system helpers shared by the run store and the commands that write
 * directories (mw record, import, sweep, plot, report).
 *
 * Hostile links. A run or output directory may hold links planted by someone else. Files mw
 * writes there are made under a fresh temporary name (O_CREAT|O_EXCL|O_NOFOLLOW: never an
 * existing file, never through a link) and renamed into place (mw_fs_create_tmp, then
 * mw_fs_commit): rename replaces a link at the final name, it never writes through it.
 * A directory mw made and now removes is emptied through a descriptor opened with
 * O_NOFOLLOW|O_DIRECTORY and unlinkat (mw_fs_remove_dir): a link in its place is reported
 * and left alone, never followed. */
#ifndef MW_FS_H
#define MW_FS_H
#include <sys/types.h>
#include <stddef.h>
#include <stdio.h>

/* Makes directory path and its missing parents (mode 0777 less the umask), like mkdir -p;
 * trailing slashes are ignored. *made (may be NULL) is how many trailing components of path
 * it created (0 when path existed), for undoing with rmdir. Returns 0, or -1 with errno set
 * and "PATH: cannot create directory COMPONENT: reason" in err (err may be NULL); then the
 * directories it had made are removed again (rmdir). */
int mw_fs_mkdirs(const char *path, int *made, char *err, size_t errlen);

/* The first readable file of: each rel[] (NULL-terminated) taken from the folder of the
 * running executable (/proc/self/exe), e.g. "../share/megawatt/plots/trace.gp" for an
 * install under any PREFIX or "../firmware/megawatt.elf" for a build tree; then the
 * absolute fallback (may be NULL). Writes it into out and returns 0; or -1, out then
 * holding the last candidate tried (for the message). */
int mw_fs_find_beside_exe(const char *const rel[], const char *fallback, char *out, size_t outlen);

/* Creates a new empty file DIR/.NAME.XXXXXX (mode 0666 less the umask) with
 * O_CREAT|O_EXCL|O_NOFOLLOW, its path into tmp. Returns the open descriptor (O_WRONLY,
 * O_CLOEXEC), or -1 with errno set and "DIR/NAME: reason" in err (err may be NULL). */
int mw_fs_create_tmp(const char *dir, const char *name, char *tmp, size_t tmplen, char *err,
                     size_t errlen);

/* mw_fs_create_tmp as a stdio stream ("w"); NULL on failure (errno, err set). */
FILE *mw_fs_fopen_tmp(const char *dir, const char *name, char *tmp, size_t tmplen, char *err,
                      size_t errlen);

/* Renames the file tmp (from mw_fs_create_tmp) to DIR/NAME, replacing whatever is there (a
 * link is replaced, not followed). On failure tmp is unlinked. Returns 0, or -1 with errno
 * set and "DIR/NAME: reason" in err (err may be NULL). */
int mw_fs_commit(const char *tmp, const char *dir, const char *name, char *err, size_t errlen);

/* The same for an output file named by a path (a command's -o/--table/--profile-out FILE):
 * the temporary DIR/.NAME.XXXXXX beside it, then renamed over path (a link there is
 * replaced, never written through; an error leaves path as it was). NULL/-1 with errno set
 * and "PATH: reason" in err. */
FILE *mw_fs_fopen_replace(const char *path, char *tmp, size_t tmplen, char *err, size_t errlen);
int mw_fs_commit_replace(const char *tmp, const char *path, char *err, size_t errlen);

/* Removes directory path that mw made, with the plain files in it, without following any
 * link: a link (or anything not a directory) at path is left alone and reported; entries are
 * unlinked by name relative to a descriptor of the directory (a link inside is removed, not
 * followed; a sub-directory is left, and so is path then). Returns 0 (also when path does not
 * exist), or -1 with errno set and "PATH: reason" in err (err may be NULL). */
int mw_fs_remove_dir(const char *path, char *err, size_t errlen);

/* Makes path a new, empty directory of mw's own, whatever was there: a link or
 * other non-directory in its place is unlinked (the link itself, never its target; *replaced
 * = 1, for a warning), a directory is emptied and removed as mw_fs_remove_dir does (a link
 * inside is removed, not followed), then mkdir (mode 0777 less the umask), which never
 * follows a link. For a directory other processes then write into (RUN/probe, the simulated
 * cluster's RUN/traffic). Returns 0, or -1
 * with errno set and "PATH: reason" in err (err may be NULL). */
int mw_fs_fresh_dir(const char *path, int *replaced, char *err, size_t errlen);

/* The process's umask without changing it (a library may share the process with threads
 * creating files): /proc/self/status "Umask:", else the set-and-restore of umask(2). */
mode_t mw_fs_umask(void);
#endif
