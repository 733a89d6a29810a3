/* object.h - padding, chunking and the AES-256-GCM objects
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The secret becomes the stream be32(len) || secret || zeros, cut into
 * chunks of ks_profile_chunk_size bytes.  Chunk J is sealed as
 *   IV (12) || AES-256-GCM(E, IV, AD = tag || "/object/" || be32 J) || tag (16)
 * so every object of a profile is exactly profile->object_size bytes.
 */
#ifndef KS_OBJECT_H
#define KS_OBJECT_H

#include "profile.h"

/* Number of chunks for a secret of LEN bytes; GPG_ERR_TOO_LARGE over
 * KS_MAX_SECRET.  */
gpg_error_t ks_object_count (const ks_profile_t *profile, size_t len,
                             uint32_t *r_count);

/* The most chunks any backup of PROFILE has: those of a secret of
 * KS_MAX_SECRET bytes.  A restore fetches chunks 0.. until a 404 but
 * never past this count.  */
uint32_t ks_object_max_chunks (const ks_profile_t *profile);

/* Write chunk J of the padded stream of SECRET into CHUNK
 * (chunk-size bytes).  */
void ks_object_chunk (const ks_profile_t *profile, const uint8_t *secret,
                      size_t len, uint32_t j, uint8_t *chunk);

/* Seal CHUNK as object J under EKEY with IV (12 bytes, fresh random for
 * every object) into OBJ (object_size bytes).  */
gpg_error_t ks_object_seal (const ks_profile_t *profile, const uint8_t *ekey,
                            uint32_t j, const uint8_t *iv,
                            const uint8_t *chunk, uint8_t *obj);

/* Open object J into CHUNK; GPG_ERR_CHECKSUM when the tag does not
 * verify (wrong key, wrong chunk, any flipped bit).  CHUNK is wiped on
 * failure.  */
gpg_error_t ks_object_open (const ks_profile_t *profile, const uint8_t *ekey,
                            uint32_t j, const uint8_t *obj, uint8_t *chunk);

/* Read the secret length from chunk 0; GPG_ERR_INV_LENGTH when it is
 * over KS_MAX_SECRET.  */
gpg_error_t ks_object_secret_len (const ks_profile_t *profile,
                                  const uint8_t *chunk0, size_t *r_len);

#endif /* KS_OBJECT_H */
