/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * daxcache/log.h - where the library's messages go.
 *
 * By default messages (configuration errors, failed backend calls, misuse
 * warnings) are printed to stderr, one line each.  A program can route them
 * elsewhere.
 *
 * So that nothing floods the log: the failed calls of each backend op are
 * logged, per cache, at the 1st, 2nd, 4th, 8th... failure (each line says
 * which; struct dc_cache_stats counts them all), and each misuse warning is
 * printed the first time it is detected at its place in the library.
 */
#ifndef DAXCACHE_LOG_H
#define DAXCACHE_LOG_H

#ifdef __cplusplus
extern "C" {
#endif

/* Levels follow syslog: 3 error, 4 warning, 6 info, 7 debug. */
typedef void (*dc_log_fn_t)(void *priv, int level, const char *msg);

/**
 * dc_set_log_fn() - route the library's messages to @fn.
 * @fn: called with each message (no trailing newline); NULL restores stderr.
 * @priv: passed to @fn.
 *
 * Context: any; @fn may be called from any thread, including library
 * threads, and must not call back into the library.
 * Return: nothing.
 */
void dc_set_log_fn(dc_log_fn_t fn, void *priv);

/**
 * dc_warn_count() - how many misuse warnings the library has detected.
 *
 * Description:
 * Each detection counts, although only the first at each place is printed.
 *
 * Context: any.
 * Return: the number of warnings since the process started.
 */
unsigned long dc_warn_count(void);

#ifdef __cplusplus
}
#endif

#endif /* DAXCACHE_LOG_H */
