/*
 * otf2_payload.h -- the encoder of a drawable's info bytes.
 *
 * A TRACE-API drawable carries its values ("comm=%d tag=%d size=%l") as raw
 * bytes that the category's label describes field by field; SLOG-2 stores
 * them big-endian, as Java's DataOutputStream writes them (slog2sdk reads
 * them with DataInputStream): %d is a 4-byte int, %l and %E an 8-byte long or
 * double, %s a 2-byte length followed by that many bytes. Each put* writes one
 * field at offset `at` and returns the offset after it; the caller sizes the
 * buffer (INFO_MAX bytes per drawable is enough for every label used here).
 */
#ifndef SLOG2_OTF2_PAYLOAD_H
#define SLOG2_OTF2_PAYLOAD_H

#include <stdint.h>
#include <string.h>

static inline int put32(unsigned char *b, int at, int32_t v)
{
    uint32_t u = (uint32_t)v;
    b[at] = (unsigned char)(u >> 24);
    b[at + 1] = (unsigned char)(u >> 16);
    b[at + 2] = (unsigned char)(u >> 8);
    b[at + 3] = (unsigned char)u;
    return at + 4;
}

static inline int put64(unsigned char *b, int at, uint64_t u)
{
    for (int i = 0; i < 8; i++)
        b[at + i] = (unsigned char)(u >> (56 - 8 * i));
    return at + 8;
}

/* At most maxlen bytes of s. */
static inline int put_str(unsigned char *b, int at, const char *s, int maxlen)
{
    int n = (int)strlen(s);
    if (n > maxlen)
        n = maxlen;
    b[at] = (unsigned char)(n >> 8);
    b[at + 1] = (unsigned char)n;
    memcpy(b + at + 2, s, (size_t)n);
    return at + 2 + n;
}

/* A count as a %d field: saturated at INT32_MAX. */
static inline int32_t clamp32(uint64_t v)
{
    return v > INT32_MAX ? INT32_MAX : (int32_t)v;
}

#endif
