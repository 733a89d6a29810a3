/* keysafe.h - umbrella header of the keysafe common library
 * Copyright (C) 2026 The keysafe authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Both programs include this one header.  Each module has its own
 * header with the contract of its functions; nothing in common/ includes
 * anything from agent-helper/ or server/.
 */
#ifndef KS_KEYSAFE_H
#define KS_KEYSAFE_H

#include "util.h"
#include "i18n.h"
#include "init.h"
#include "buffer.h"
#include "random.h"
#include "file.h"
#include "kdf.h"
#include "shamir.h"
#include "profile.h"
#include "derive.h"
#include "object.h"
#include "puzzle.h"
#include "shardset.h"
#include "pow.h"

#endif /* KS_KEYSAFE_H */
