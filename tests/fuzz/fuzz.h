/* fuzz.h - the libFuzzer entry point every harness defines
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One harness per parser of untrusted input.  Built two ways: with
 * --enable-fuzzing (clang -fsanitize=fuzzer) as real fuzzers, and always
 * as plain programs linked with run-corpus.c, which make check runs over
 * the seed corpus in tests/fuzz/corpus/<harness>/ so every parser sees
 * its odd inputs on every build.
 */
#ifndef KS_FUZZ_H
#define KS_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include "keysafe.h"

/* fuzz-combine's fixed encryption key E: KS_KEY_LEN bytes of this.  */
#define FUZZ_COMBINE_KEY 0x4b

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

/* Initialise the library once per process; every harness calls it
 * first.  */
static inline void
fuzz_init (void)
{
  static int done;

  if (!done)
    {
      if (ks_init ())
        abort ();
      done = 1;
    }
}

#endif /* KS_FUZZ_H */
