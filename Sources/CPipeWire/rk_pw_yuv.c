// YUY2 (packed 4:2:2), NV12 and I420 (planar 4:2:0) to BGRx for cameras (see rk_pipewire.h).
// Written here rather than through libswscale because this C target does not link FFmpeg, and
// a camera picture is small: 640x480 is 0.3 Mpixel, converted once per picture on the camera's
// own thread.
#include "rk_pipewire.h"

static inline uint8_t clamp255(int v) { return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v); }

void rk_pw_yuy2_to_bgrx(const uint8_t *src, uint32_t src_stride, uint8_t *dst, uint32_t dst_stride, uint32_t width, uint32_t height) {
    // BT.601 limited range, 16.16 fixed point: R = 1.164 (Y-16) + 1.596 (V-128),
    // G = 1.164 (Y-16) - 0.392 (U-128) - 0.813 (V-128), B = 1.164 (Y-16) + 2.017 (U-128).
    for (uint32_t y = 0; y < height; y++) {
        const uint8_t *s = src + (size_t)y * src_stride;
        uint8_t *d = dst + (size_t)y * dst_stride;
        for (uint32_t x = 0; x + 1 < width; x += 2, s += 4, d += 8) {
            int u = s[1] - 128, v = s[3] - 128;
            int rv = 104597 * v, guv = -25675 * u - 53279 * v, bu = 132201 * u;
            for (int i = 0; i < 2; i++) {
                int luma = 76309 * (s[2 * i] - 16) + 32768;
                d[4 * i + 0] = clamp255((luma + bu) >> 16);
                d[4 * i + 1] = clamp255((luma + guv) >> 16);
                d[4 * i + 2] = clamp255((luma + rv) >> 16);
                d[4 * i + 3] = 255;
            }
        }
    }
}

void rk_pw_yuv420_to_bgrx(const uint8_t *y, uint32_t y_stride, const uint8_t *u, const uint8_t *v, uint32_t uv_stride,
                          uint8_t *dst, uint32_t dst_stride, uint32_t width, uint32_t height) {
    // The same BT.601 limited-range coefficients as YUY2; one chroma sample per 2x2 pixels.
    for (uint32_t row = 0; row < height; row++) {
        const uint8_t *luma = y + (size_t)row * y_stride;
        const uint8_t *cu = u + (size_t)(row / 2) * uv_stride;
        const uint8_t *cv = v ? v + (size_t)(row / 2) * uv_stride : NULL;
        uint8_t *d = dst + (size_t)row * dst_stride;
        for (uint32_t x = 0; x + 1 < width; x += 2, d += 8) {
            int cb, cr;
            if (cv) { cb = cu[x / 2] - 128; cr = cv[x / 2] - 128; }   // I420: U and V planes
            else { cb = cu[x] - 128; cr = cu[x + 1] - 128; }           // NV12: U V interleaved
            int rv = 104597 * cr, guv = -25675 * cb - 53279 * cr, bu = 132201 * cb;
            for (int i = 0; i < 2; i++) {
                int l = 76309 * (luma[x + i] - 16) + 32768;
                d[4 * i + 0] = clamp255((l + bu) >> 16);
                d[4 * i + 1] = clamp255((l + guv) >> 16);
                d[4 * i + 2] = clamp255((l + rv) >> 16);
                d[4 * i + 3] = 255;
            }
        }
    }
}
