/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ktap.h - what the KTAP runner of daxcache_test.ko shares with the kernel
 * test environment (test_env.c).
 */
#ifndef DC_KTAP_H
#define DC_KTAP_H

/* The scale module parameter (iteration count factor, at least 1). */
extern unsigned int dc_ktap_scale;

#endif /* DC_KTAP_H */
