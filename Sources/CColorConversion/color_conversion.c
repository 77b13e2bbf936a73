// BGR0 -> yuv420p (BT.709, limited range) without libswscale's general machinery: one pass over
// the picture, written so that clang vectorizes it (the same C body is compiled three times, for
// AVX-512, AVX2 and the baseline, and picked at run time). It takes 0.42x sws_scale's time
// for 1080p on this machine's CPUs (scripts/color-conversion-cost.sh; docs/BENCHMARKS.md).
#include "color_conversion.h"

// Fixed-point coefficients: luma in 1/32768, chroma on sums of 16 samples (8 weights x 2 pixels).
// Y = 16 + 219/255 (0.2126 R + 0.7152 G + 0.0722 B); U, V = 128 + 224/255 (B - Y') / 1.8556, (R - Y') / 1.5748.
enum {
    YR = 5983, YG = 20127, YB = 2032,
    UR = -3298, UG = -11094, UB = 14392,
    VR = 14392, VG = -13073, VB = -1319,
};

// One luma row, and the row's horizontal pair sums of R, G and B (for chroma).
static inline __attribute__((always_inline)) void luma_row(const uint8_t *restrict s, int w, uint8_t *restrict y,
                                                           int16_t *restrict pr, int16_t *restrict pg, int16_t *restrict pb) {
    for (int x = 0; x < w; x++) {
        int b = s[4 * x], g = s[4 * x + 1], r = s[4 * x + 2];
        y[x] = (uint8_t)((YR * r + YG * g + YB * b + (16 << 15) + (1 << 14)) >> 15);
    }
    for (int x = 0; x < w / 2; x++) {
        pb[x] = (int16_t)(s[8 * x] + s[8 * x + 4]);
        pg[x] = (int16_t)(s[8 * x + 1] + s[8 * x + 5]);
        pr[x] = (int16_t)(s[8 * x + 2] + s[8 * x + 6]);
    }
}

// One chroma row from the pair sums of four luma rows, weights 1 3 3 1.
static inline __attribute__((always_inline)) void chroma_row(
    const int16_t *restrict r0, const int16_t *restrict r1, const int16_t *restrict r2, const int16_t *restrict r3,
    const int16_t *restrict g0, const int16_t *restrict g1, const int16_t *restrict g2, const int16_t *restrict g3,
    const int16_t *restrict b0, const int16_t *restrict b1, const int16_t *restrict b2, const int16_t *restrict b3,
    int cw, uint8_t *restrict u, uint8_t *restrict v) {
    for (int x = 0; x < cw; x++) {
        int r = r0[x] + 3 * (r1[x] + r2[x]) + r3[x];
        int g = g0[x] + 3 * (g1[x] + g2[x]) + g3[x];
        int b = b0[x] + 3 * (b1[x] + b2[x]) + b3[x];
        u[x] = (uint8_t)((UR * r + UG * g + UB * b + (128 << 19) + (1 << 18)) >> 19);
        v[x] = (uint8_t)((VR * r + VG * g + VB * b + (128 << 19) + (1 << 18)) >> 19);
    }
}

// The pair sums of the last four luma rows live in a ring of 4 (row index & 3): chroma row k needs
// rows 2k-1 .. 2k+2 (clamped to the picture), computed just before it.
static inline __attribute__((always_inline)) void convert(const uint8_t *src, ptrdiff_t stride, int w, int h,
                                                          uint8_t *y, ptrdiff_t ys, uint8_t *u, ptrdiff_t us,
                                                          uint8_t *v, ptrdiff_t vs, int16_t *ring) {
    int cw = w / 2;
    int16_t *R[4], *G[4], *B[4];
    for (int i = 0; i < 4; i++) {
        R[i] = ring + (3 * i) * cw;
        G[i] = ring + (3 * i + 1) * cw;
        B[i] = ring + (3 * i + 2) * cw;
    }
    int done = 0;  // luma rows converted so far
    for (int k = 0; k < h / 2; k++) {
        int last = 2 * k + 2 > h - 1 ? h - 1 : 2 * k + 2;
        for (; done <= last; done++) {
            luma_row(src + done * stride, w, y + done * ys, R[done & 3], G[done & 3], B[done & 3]);
        }
        int a = 2 * k - 1 < 0 ? 0 : 2 * k - 1, b = 2 * k, c = 2 * k + 1, d = last;
        chroma_row(R[a & 3], R[b & 3], R[c & 3], R[d & 3], G[a & 3], G[b & 3], G[c & 3], G[d & 3],
                   B[a & 3], B[b & 3], B[c & 3], B[d & 3], cw, u + k * us, v + k * vs);
    }
}

__attribute__((target("avx512f,avx512bw,avx512vl,avx2")))
static void convert_avx512(const uint8_t *src, ptrdiff_t stride, int w, int h, uint8_t *y, ptrdiff_t ys,
                           uint8_t *u, ptrdiff_t us, uint8_t *v, ptrdiff_t vs, int16_t *ring) {
    convert(src, stride, w, h, y, ys, u, us, v, vs, ring);
}

__attribute__((target("avx2")))
static void convert_avx2(const uint8_t *src, ptrdiff_t stride, int w, int h, uint8_t *y, ptrdiff_t ys,
                         uint8_t *u, ptrdiff_t us, uint8_t *v, ptrdiff_t vs, int16_t *ring) {
    convert(src, stride, w, h, y, ys, u, us, v, vs, ring);
}

static void convert_baseline(const uint8_t *src, ptrdiff_t stride, int w, int h, uint8_t *y, ptrdiff_t ys,
                             uint8_t *u, ptrdiff_t us, uint8_t *v, ptrdiff_t vs, int16_t *ring) {
    convert(src, stride, w, h, y, ys, u, us, v, vs, ring);
}

size_t rk_yuv420p_scratch_bytes(int width) {
    return (size_t)(width / 2) * 12 * sizeof(int16_t);  // 4 rows x 3 colours
}

typedef void (*converter)(const uint8_t *, ptrdiff_t, int, int, uint8_t *, ptrdiff_t, uint8_t *, ptrdiff_t,
                          uint8_t *, ptrdiff_t, int16_t *);

static converter pick(void) {
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl")) return convert_avx512;
    if (__builtin_cpu_supports("avx2")) return convert_avx2;
    return convert_baseline;
}

void rk_bgr0_to_yuv420p_bt709(const uint8_t *src, ptrdiff_t src_stride, int width, int height,
                              uint8_t *y, ptrdiff_t y_stride, uint8_t *u, ptrdiff_t u_stride,
                              uint8_t *v, ptrdiff_t v_stride, void *scratch) {
    static converter chosen;  // a benign race: every thread computes the same pointer
    converter f = __atomic_load_n(&chosen, __ATOMIC_RELAXED);
    if (!f) {
        f = pick();
        __atomic_store_n(&chosen, f, __ATOMIC_RELAXED);
    }
    if (width < 2 || height < 2 || (width & 1) || (height & 1)) return;
    f(src, src_stride, width, height, y, y_stride, u, u_stride, v, v_stride, (int16_t *)scratch);
}
