/*
 * otf2_umap.h -- the plugin's one hash map, and a growable-array helper.
 *
 * OTF2 names everything by 32- or 64-bit references (strings, locations,
 * regions, metrics, communicators, request IDs) that are sparse and chosen by
 * the writer, while the reader wants dense indices into its own arrays. A
 * `umap` maps such a reference to a small non-negative int32 (the dense index,
 * or a value such as a thread counter): open addressing with linear probing,
 * a power-of-two table kept at most half full, and backward-shift deletion so
 * that removing request IDs (the one map that shrinks, per location) leaves
 * no tombstones behind. Memory follows what is in the map: a map that never
 * receives a key allocates nothing.
 */
#ifndef SLOG2_OTF2_UMAP_H
#define SLOG2_OTF2_UMAP_H

#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__)
#pragma GCC visibility push(hidden)
#endif

/* Open-addressing map uint64 -> int32 (>= 0). */
typedef struct {
    uint64_t *keys;
    int32_t *vals; /* value + 1; 0 = empty slot */
    size_t cap, n;
} umap;

/* A 64-bit finaliser (MurmurHash3's): spreads sequential references.
 * Inline, with umap_get: a lookup or two per event. */
static inline uint64_t mix64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

/* The value stored for k, or -1. */
static inline int umap_get(const umap *m, uint64_t k)
{
    if (!m->cap)
        return -1;
    size_t i = mix64(k) & (m->cap - 1);
    while (m->vals[i]) {
        if (m->keys[i] == k)
            return m->vals[i] - 1;
        i = (i + 1) & (m->cap - 1);
    }
    return -1;
}
/* Insert or overwrite; -1 when out of memory. */
int umap_put(umap *m, uint64_t k, int32_t v);
/* Remove; returns 1 if it was there. */
int umap_del(umap *m, uint64_t k);
void umap_free(umap *m);

/* Grow a dynamic array *p of capacity *cap (elements of `elem` bytes) to hold
 * at least `need` elements, doubling; -1 when out of memory (*p unchanged). */
int grow(void **p, size_t *cap, size_t need, size_t elem);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#endif
