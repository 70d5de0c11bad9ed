// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * version.c - the version of the library that runs (dc_version()).
 */
#include "platform.h"

#include <daxcache/version.h>

unsigned int dc_version(void)
{
	return DC_VERSION;
}
DCI_EXPORT(dc_version);
