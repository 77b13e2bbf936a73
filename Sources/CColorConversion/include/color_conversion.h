#ifndef RECORDKIT_COLOR_CONVERSION_H
#define RECORDKIT_COLOR_CONVERSION_H
#include <stddef.h>
#include <stdint.h>

// This module's pixel loops in C (vectorized): the conversion to yuv420p here, the camera
// picture's bilinear scaling in bilinear_scaling.h.

/// Bytes of scratch memory rk_bgr0_to_yuv420p_bt709 needs for a picture `width` pixels wide.
size_t rk_yuv420p_scratch_bytes(int width);

/// Converts a `width`x`height` BGR0 picture (4 bytes per pixel, blue first, the 4th byte ignored;
/// rows `src_stride` bytes apart) to yuv420p with BT.709 limited-range coefficients, the same
/// picture libswscale makes for BGRA -> yuv420p with SWS_BILINEAR at the same size (luma and
/// chroma within 1 of it): luma per pixel; chroma from each 2-pixel pair, filtered vertically
/// with taps 1/8 3/8 3/8 1/8 around the pair of rows (edge rows repeated), centre sited.
///
/// `width` and `height` must be even and at least 2. `scratch` must hold
/// rk_yuv420p_scratch_bytes(width) bytes, 2-byte aligned; it is the caller's so that several
/// threads can convert at once. Uses AVX-512 or AVX2 code when the CPU has it (checked once).
void rk_bgr0_to_yuv420p_bt709(const uint8_t *src, ptrdiff_t src_stride, int width, int height,
                              uint8_t *y, ptrdiff_t y_stride, uint8_t *u, ptrdiff_t u_stride,
                              uint8_t *v, ptrdiff_t v_stride, void *scratch);

#endif
