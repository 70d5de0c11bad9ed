// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * creds.c - the caller's credentials: run as root, daxfs makes new nodes
 * with the fsuid, fsgid and groups of the process that asked.
 */
#include "daxfs.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/fsuid.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Run as root: files are made with the caller's fsuid, fsgid and groups. */
bool dfs_as_root;
static uid_t daemon_uid;
static gid_t daemon_gid;
static gid_t *daemon_groups;
static int daemon_ngroups;

/*
 * Make the calling thread create files as the caller of @req would: its
 * fsuid, fsgid and supplementary groups (the source then also checks the
 * caller's permissions).  Only when run as root; setfsuid(), setfsgid()
 * and the raw setgroups system call change the calling thread only.
 * 0, or -errno with nothing changed.
 */
int dfs_caller_creds_enter(fuse_req_t req)
{
	const struct fuse_ctx *ctx = fuse_req_ctx(req);
	gid_t small[64], *groups = small;
	int size = 64, n;

	if (!dfs_as_root)
		return 0;
	/* The number of the caller's groups, of which the first @size filled. */
	n = fuse_req_getgroups(req, size, small);
	if (n > size) {
		size = n;
		groups = calloc((size_t)size, sizeof(*groups));
		if (!groups)
			return -ENOMEM;
		n = fuse_req_getgroups(req, size, groups);
	}
	if (n > size)
		n = size;	/* it joined groups since: the first @size */
	if (n < 0)
		n = 0;		/* no /proc entry of the caller: no groups */
	if (syscall(SYS_setgroups, (size_t)n, groups)) {
		n = -errno;
		goto out;
	}
	setfsgid(ctx->gid);
	setfsuid(ctx->uid);
	n = 0;
	if ((uid_t)setfsuid((uid_t)-1) != ctx->uid || (gid_t)setfsgid((gid_t)-1) != ctx->gid) {
		setfsuid(daemon_uid);
		setfsgid(daemon_gid);
		n = -EPERM;
	}
	if (n)
		syscall(SYS_setgroups, (size_t)daemon_ngroups, daemon_groups);
out:
	if (groups != small)
		free(groups);
	return n;
}

/* Whether the caller of @req has @gid as its group or one of its groups. */
bool dfs_caller_in_group(fuse_req_t req, gid_t gid)
{
	gid_t groups[64];
	int i, n;

	if (fuse_req_ctx(req)->gid == gid)
		return true;
	n = fuse_req_getgroups(req, 64, groups);
	for (i = 0; i < n && i < 64; i++)
		if (groups[i] == gid)
			return true;
	return false;
}

/* Back to the daemon's own credentials (a no-op when not run as root). */
void dfs_caller_creds_exit(void)
{
	if (!dfs_as_root)
		return;
	setfsuid(daemon_uid);
	setfsgid(daemon_gid);
	syscall(SYS_setgroups, (size_t)daemon_ngroups, daemon_groups);
}

/* Remember the daemon's credentials, which dfs_caller_creds_exit() restores. */
int dfs_creds_init(void)
{
	int n;

	daemon_uid = geteuid();
	daemon_gid = getegid();
	dfs_as_root = !daemon_uid;
	n = getgroups(0, NULL);
	if (n < 0)
		return -1;
	daemon_groups = calloc((size_t)n + 1, sizeof(*daemon_groups));
	if (!daemon_groups)
		return -1;
	daemon_ngroups = getgroups(n, daemon_groups);
	return daemon_ngroups < 0 ? -1 : 0;
}

/* Free what dfs_creds_init() took. */
void dfs_creds_free(void)
{
	free(daemon_groups);
	daemon_groups = NULL;
}
