// Bilinear scaling of a camera picture to the size of its corner (CameraPictureScaler), written
// so that clang vectorizes it: the same C body is compiled for AVX-512, AVX2 and the baseline
// and picked at run time, as in color_conversion.c. Separable: each source row an output row
// needs is scaled horizontally once into 16-bit lanes, one per channel (the channel times
// 256 - wx plus the next one's times wx: at most 65280), and output rows are blended vertically
// from two such lines in one plain loop over their lanes.
#include "bilinear_scaling.h"
#include <string.h>

// One source row's pixels with each channel in a 16-bit lane of its own, in output order (B, G,
// R, then 0 for X): one 64-bit multiplication then weighs all four at once without carries.
static inline __attribute__((always_inline)) void expand_row(const uint8_t *restrict row, int sw, int red_first,
                                                             uint64_t *restrict expanded) {
    for (int i = 0; i < sw; i++) {
        uint32_t p;
        memcpy(&p, row + 4 * (size_t)i, 4);
        uint64_t c0 = p & 0xFF, c1 = (p >> 8) & 0xFF, c2 = (p >> 16) & 0xFF;
        expanded[i] = red_first ? (c2 | c1 << 16 | c0 << 32) : (c0 | c1 << 16 | c2 << 32);
    }
}

// The horizontal pass: output pixel x of the row from source pixels left[x] and right[x].
static inline __attribute__((always_inline)) void scale_row(const uint64_t *restrict expanded, const int32_t *restrict left,
                                                            const int32_t *restrict right, const uint16_t *restrict weight,
                                                            int w, uint64_t *restrict line) {
    for (int x = 0; x < w; x++) {
        uint64_t wb = weight[x], wa = 256 - wb;
        line[x] = expanded[left[x]] * wa + expanded[right[x]] * wb;
    }
}

// The vertical pass: `n` lanes of two horizontally scaled lines, the bottom one weighted wy / 256.
static inline __attribute__((always_inline)) void blend_rows(const uint16_t *restrict t, const uint16_t *restrict b, uint32_t wy,
                                                             int n, uint8_t *restrict out) {
    uint32_t wt = 256 - wy;
    for (int i = 0; i < n; i++) out[i] = (uint8_t)(((uint32_t)t[i] * wt + (uint32_t)b[i] * wy) >> 16);
}

static inline __attribute__((always_inline)) void scale(const uint8_t *src, ptrdiff_t stride, int sw, int red_first,
                                                        const int32_t *left, const int32_t *right, const uint16_t *wx, int w,
                                                        const int32_t *top, const int32_t *bottom, const uint16_t *wy, int h,
                                                        uint8_t *out, uint64_t *scratch) {
    uint64_t *expanded = scratch, *lines[2] = { scratch + sw, scratch + sw + w };
    int held[2] = { -1, -1 };  // the source row each line holds
    for (int y = 0; y < h; y++) {
        int index[2];
        int want[2] = { top[y], bottom[y] };
        for (int k = 0; k < 2; k++) {
            int r = want[k];
            if (held[0] == r) { index[k] = 0; continue; }
            if (held[1] == r) { index[k] = 1; continue; }
            // Rows only go down: the line holding the lower-numbered row is no longer needed
            // (never the one the top row just took).
            int i = k == 1 ? 1 - index[0] : (held[0] < held[1] ? 0 : 1);
            held[i] = r;
            if (red_first) expand_row(src + (ptrdiff_t)r * stride, sw, 1, expanded);
            else expand_row(src + (ptrdiff_t)r * stride, sw, 0, expanded);
            scale_row(expanded, left, right, wx, w, lines[i]);
            index[k] = i;
        }
        blend_rows((const uint16_t *)lines[index[0]], (const uint16_t *)lines[index[1]], wy[y], 4 * w, out + (size_t)y * w * 4);
    }
}

__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx2")))
static void scale_avx512(const uint8_t *src, ptrdiff_t stride, int sw, int red_first, const int32_t *left, const int32_t *right,
                         const uint16_t *wx, int w, const int32_t *top, const int32_t *bottom, const uint16_t *wy, int h,
                         uint8_t *out, uint64_t *scratch) {
    scale(src, stride, sw, red_first, left, right, wx, w, top, bottom, wy, h, out, scratch);
}

__attribute__((target("avx2")))
static void scale_avx2(const uint8_t *src, ptrdiff_t stride, int sw, int red_first, const int32_t *left, const int32_t *right,
                       const uint16_t *wx, int w, const int32_t *top, const int32_t *bottom, const uint16_t *wy, int h,
                       uint8_t *out, uint64_t *scratch) {
    scale(src, stride, sw, red_first, left, right, wx, w, top, bottom, wy, h, out, scratch);
}

static void scale_baseline(const uint8_t *src, ptrdiff_t stride, int sw, int red_first, const int32_t *left, const int32_t *right,
                           const uint16_t *wx, int w, const int32_t *top, const int32_t *bottom, const uint16_t *wy, int h,
                           uint8_t *out, uint64_t *scratch) {
    scale(src, stride, sw, red_first, left, right, wx, w, top, bottom, wy, h, out, scratch);
}

size_t rk_bilinear_scratch_bytes(int source_width, int width) {
    return ((size_t)source_width + 2 * (size_t)width) * sizeof(uint64_t);  // one expanded row, two lines
}

typedef void (*scaler)(const uint8_t *, ptrdiff_t, int, int, const int32_t *, const int32_t *, const uint16_t *, int,
                       const int32_t *, const int32_t *, const uint16_t *, int, uint8_t *, uint64_t *);

static scaler pick(void) {
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq")) return scale_avx512;
    if (__builtin_cpu_supports("avx2")) return scale_avx2;
    return scale_baseline;
}

void rk_bgrx_scale_bilinear(const uint8_t *src, ptrdiff_t src_stride, int source_width, int red_first,
                            const int32_t *left, const int32_t *right, const uint16_t *column_weight, int width,
                            const int32_t *top, const int32_t *bottom, const uint16_t *row_weight, int height,
                            uint8_t *out, void *scratch) {
    static scaler chosen;  // a benign race: every thread computes the same pointer
    scaler f = __atomic_load_n(&chosen, __ATOMIC_RELAXED);
    if (!f) {
        f = pick();
        __atomic_store_n(&chosen, f, __ATOMIC_RELAXED);
    }
    if (source_width < 1 || width < 1 || height < 1) return;
    f(src, src_stride, source_width, red_first, left, right, column_weight, width, top, bottom, row_weight, height, out,
      (uint64_t *)scratch);
}
