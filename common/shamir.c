/* shamir.c - Shamir k-of-n over GF(2^8), constant time
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>
#include "shamir.h"
