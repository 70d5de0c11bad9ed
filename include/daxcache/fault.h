/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * daxcache/fault.h - fault injection for tests (userspace build only).
 *
 * Every allocation the library makes goes through one hook.  Tests arm it to
 * make the N-th allocation after arming fail, and check that the operation
 * under test returns a clean -ENOMEM with nothing leaked.
 */
#ifndef DAXCACHE_FAULT_H
#define DAXCACHE_FAULT_H

#ifdef __cplusplus
extern "C" {
#endif

/**
 * dc_fault_alloc_fail_nth() - make the @nth allocation from now on fail.
 * @nth: 1 for the very next allocation; 0 disarms the hook.
 *
 * Resets the counters read by dc_fault_alloc_count() and
 * dc_fault_alloc_failed().  Only one allocation fails per arming.
 *
 * Context: any; global to the process, so tests that use it must not run
 * other allocating threads they do not expect to count.
 */
void dc_fault_alloc_fail_nth(unsigned long nth);

/**
 * dc_fault_alloc_count() - allocations attempted since the hook was armed.
 *
 * Context: any.
 * Return: the count (0 while disarmed).
 */
unsigned long dc_fault_alloc_count(void);

/**
 * dc_fault_alloc_failed() - allocations failed on purpose since arming.
 *
 * Context: any.
 * Return: 0 or 1.
 */
unsigned long dc_fault_alloc_failed(void);

#ifdef __cplusplus
}
#endif

#endif /* DAXCACHE_FAULT_H */
