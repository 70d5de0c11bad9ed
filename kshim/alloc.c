// SPDX-License-Identifier: GPL-2.0-only
/*
 * alloc.c - the library's allocations in the kernel: kvmalloc, cache-line
 * aligned (behind the fault-injection hook of fault.c in test builds), and
 * a count of live objects that the test module checks for leaks after each
 * case.
 */
#include "platform.h"

#include <linux/export.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/slab.h>

#include "kshim.h"

/*
 * Live objects: per CPU so that the count costs no shared cache line; an
 * object freed on another CPU than it was allocated on makes one CPU's
 * count negative, only the sum means something.
 */
static DEFINE_PER_CPU(long, dci_live);

/*
 * The size to ask for so that the memory is DCI_CACHELINE aligned.  kmalloc
 * only promises ARCH_KMALLOC_MINALIGN, and natural alignment for power-of-
 * two sizes (whatever slub_debug adds around objects); beyond its largest
 * cache, kvmalloc hands out whole pages or vmalloc memory.  So small sizes
 * are rounded up to a power of two: that only costs anything for the
 * requests the 96- and 192-byte caches would have served.
 */
static size_t dci_alloc_size(size_t size)
{
	if (size > KMALLOC_MAX_CACHE_SIZE)
		return size;
	return roundup_pow_of_two(max_t(size_t, size, DCI_CACHELINE));
}

/**
 * dci_plat_alloc() - allocate memory for the library.
 * @site: the call site, for the fault-injection hook: NULL (the kernel
 *	keeps no descriptor per site).
 * @size: bytes.
 * @zero: whether to zero them.
 *
 * Large requests (the range array of a big window) may come from vmalloc.
 *
 * Context: process context; may sleep (GFP_KERNEL).
 * Return: memory aligned to DCI_CACHELINE, or NULL when out of memory or made
 * to fail by dci_fault_alloc_fail_nth().
 */
void *dci_plat_alloc(struct dci_alloc_site *site, size_t size, bool zero)
{
	void *p;

	if (dci_fault_should_fail(site))
		return NULL;
	p = kvmalloc(dci_alloc_size(size), GFP_KERNEL | (zero ? __GFP_ZERO : 0));
	if (p)
		this_cpu_inc(dci_live);
	return p;
}
DCI_TEST_EXPORT(dci_plat_alloc);

/**
 * dci_free() - free memory from dci_plat_alloc().
 * @p: the memory, or NULL.
 *
 * Context: any, including RCU callbacks (vmalloc memory is then freed
 * later by the kernel).
 */
void dci_free(void *p)
{
	if (!p)
		return;
	this_cpu_dec(dci_live);
	kvfree(p);
}
DCI_TEST_EXPORT(dci_free);

/**
 * dci_kshim_live_allocs() - objects allocated by the library and not freed.
 *
 * Context: any; exact only when nothing allocates or frees concurrently
 * (call dc_barrier() first so that deferred frees have run).
 * Return: the number of live objects.
 */
long dci_kshim_live_allocs(void)
{
	long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu(dci_live, cpu);
	return sum;
}
DCI_TEST_EXPORT(dci_kshim_live_allocs);

/**
 * dci_pcounters_init() - allocate a set of per-CPU counters, zeroed.
 * @pc: the set.
 * @n: counters in it.
 *
 * Behind the same fault-injection hook as dci_plat_alloc(), and counted
 * among the live objects.
 *
 * Context: process context; may sleep.
 * Return: 0, or -ENOMEM.
 */
int dci_pcounters_init(struct dci_pcounters *pc, unsigned int n)
{
	pc->n = n;
	pc->p = NULL;
	if (dci_fault_should_fail(NULL))
		return -ENOMEM;
	pc->p = __alloc_percpu(n * sizeof(u64), __alignof__(u64));
	if (!pc->p)
		return -ENOMEM;
	this_cpu_inc(dci_live);
	return 0;
}

/**
 * dci_pcounters_destroy() - free a set of per-CPU counters.
 * @pc: the set; nobody adds to it any more.
 *
 * Context: process context.
 */
void dci_pcounters_destroy(struct dci_pcounters *pc)
{
	if (!pc->p)
		return;
	free_percpu(pc->p);
	pc->p = NULL;
	this_cpu_dec(dci_live);
}

/**
 * dci_pcounters_sum() - add up the counters of every possible CPU.
 * @pc: the set.
 * @sum: receives, added to what it holds, the total of each counter.
 *
 * Context: any.
 */
void dci_pcounters_sum(const struct dci_pcounters *pc, uint64_t *sum)
{
	unsigned int i;
	int cpu;

	for_each_possible_cpu(cpu) {
		const u64 *v = per_cpu_ptr(pc->p, cpu);

		for (i = 0; i < pc->n; i++)
			sum[i] += READ_ONCE(v[i]);
	}
}
