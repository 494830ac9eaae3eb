/*
 * otf2_umap.c -- the open-addressing hash map (see otf2_umap.h) and grow().
 */
#include "otf2_umap.h"

#include <stdlib.h>
#include <string.h>

static int umap_grow(umap *m)
{
    size_t ncap = m->cap ? m->cap * 2 : 64;
    uint64_t *nk = calloc(ncap, sizeof *nk);
    int32_t *nv = calloc(ncap, sizeof *nv);
    if (!nk || !nv) {
        free(nk);
        free(nv);
        return -1;
    }
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->vals[i])
            continue;
        size_t j = mix64(m->keys[i]) & (ncap - 1);
        while (nv[j])
            j = (j + 1) & (ncap - 1);
        nk[j] = m->keys[i];
        nv[j] = m->vals[i];
    }
    free(m->keys);
    free(m->vals);
    m->keys = nk;
    m->vals = nv;
    m->cap = ncap;
    return 0;
}

/* Insert or overwrite. */
int umap_put(umap *m, uint64_t k, int32_t v)
{
    if ((m->n + 1) * 2 > m->cap && umap_grow(m))
        return -1;
    size_t i = mix64(k) & (m->cap - 1);
    while (m->vals[i]) {
        if (m->keys[i] == k) {
            m->vals[i] = v + 1;
            return 0;
        }
        i = (i + 1) & (m->cap - 1);
    }
    m->keys[i] = k;
    m->vals[i] = v + 1;
    m->n++;
    return 0;
}

/* Remove (backward-shift deletion); returns 1 if it was there. */
int umap_del(umap *m, uint64_t k)
{
    if (!m->cap)
        return 0;
    size_t mask = m->cap - 1, i = mix64(k) & mask;
    while (m->vals[i] && m->keys[i] != k)
        i = (i + 1) & mask;
    if (!m->vals[i])
        return 0;
    m->vals[i] = 0;
    m->n--;
    size_t j = i;
    for (;;) {
        j = (j + 1) & mask;
        if (!m->vals[j])
            break;
        size_t home = mix64(m->keys[j]) & mask;
        /* move j into the hole i if its home is not in (i, j] */
        if ((j > i && (home <= i || home > j)) || (j < i && (home <= i && home > j))) {
            m->keys[i] = m->keys[j];
            m->vals[i] = m->vals[j];
            m->vals[j] = 0;
            i = j;
        }
    }
    return 1;
}

void umap_free(umap *m)
{
    free(m->keys);
    free(m->vals);
    memset(m, 0, sizeof *m);
}

/* Grow a dynamic array to hold at least `need` elements. */
int grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t n = *cap ? *cap : 16;
    while (n < need)
        n *= 2;
    void *q = realloc(*p, n * elem);
    if (!q)
        return -1;
    *p = q;
    *cap = n;
    return 0;
}
