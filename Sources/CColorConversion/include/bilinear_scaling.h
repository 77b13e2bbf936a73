#ifndef RECORDKIT_BILINEAR_SCALING_H
#define RECORDKIT_BILINEAR_SCALING_H
#include <stddef.h>
#include <stdint.h>

/// Bytes of scratch memory rk_bgrx_scale_bilinear needs from a picture `source_width` pixels wide
/// to one `width` pixels wide.
size_t rk_bilinear_scratch_bytes(int source_width, int width);

/// Scales a picture of 4-byte pixels (B G R X, or R G B X when `red_first`; rows `src_stride`
/// bytes apart, `source_width` pixels used of each) bilinearly with 8-bit weights to `width` x
/// `height` B G R 0 pixels at `out` (rows `width` pixels apart). Output column x blends source
/// columns `left[x]` and `right[x]`, the right one weighted `column_weight[x]` / 256 (0-255);
/// output row y blends source rows `top[y]` and `bottom[y]` likewise, and rows only go down
/// (`top` and `bottom` never decrease). Each channel is the exact fixed-point value
/// (T (256 - wy) + B wy) >> 16, where T and B are L (256 - wx) + R wx of the two source rows.
/// `scratch` holds rk_bilinear_scratch_bytes(source_width, width) bytes, 8-byte aligned; it is
/// the caller's, so that several threads can scale at once. Uses AVX-512 or AVX2 code when the
/// CPU has it (checked once).
void rk_bgrx_scale_bilinear(const uint8_t *src, ptrdiff_t src_stride, int source_width, int red_first,
                            const int32_t *left, const int32_t *right, const uint16_t *column_weight, int width,
                            const int32_t *top, const int32_t *bottom, const uint16_t *row_weight, int height,
                            uint8_t *out, void *scratch);

#endif
