/* pow.c - the servers' stateless proof of work
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>
#include "pow.h"
