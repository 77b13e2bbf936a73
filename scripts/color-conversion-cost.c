// What one 1920x1080 BGR0 -> yuv420p (BT.709 limited range) conversion costs: libswscale as
// recordctl used it and as FFmpeg's command line does it (BGRA in, SWS_BILINEAR, same size),
// against CColorConversion's rk_bgr0_to_yuv420p_bt709. Thread CPU time per picture; the source
// cycles through 8 different pictures (64 MB) so that it comes from memory, as a fresh capture
// does, not from the cache. Also prints the largest difference between the two pictures.
// Built and run by scripts/color-conversion-cost.sh.
#include <libavutil/pixfmt.h>
#include <libswscale/swscale.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "color_conversion.h"

enum { W = 1920, H = 1080, SOURCES = 8 };

static double cpu_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

int main(int argc, char **argv) {
    int pictures = argc > 1 ? atoi(argv[1]) : 300;
    uint8_t *sources[SOURCES];
    srand(1);
    for (int s = 0; s < SOURCES; s++) {
        sources[s] = malloc((size_t)W * H * 4);
        for (int i = 0; i < W * H; i++) {  // gradients, blocks and noise
            int x = i % W, y = i / W;
            sources[s][4 * i] = (uint8_t)(x * 255 / W + s);
            sources[s][4 * i + 1] = ((x / 37 + y / 23 + s) % 3) ? (uint8_t)(y + x) : 255;
            sources[s][4 * i + 2] = (uint8_t)(rand() & 255);
            sources[s][4 * i + 3] = 0;
        }
    }
    uint8_t *y1 = malloc(W * H), *u1 = malloc(W * H / 4), *v1 = malloc(W * H / 4);
    uint8_t *y2 = malloc(W * H), *u2 = malloc(W * H / 4), *v2 = malloc(W * H / 4);
    void *scratch = malloc(rk_yuv420p_scratch_bytes(W));
    struct SwsContext *sws = sws_getContext(W, H, AV_PIX_FMT_BGRA, W, H, AV_PIX_FMT_YUV420P, SWS_BILINEAR, NULL, NULL, NULL);
    const int *bt709 = sws_getCoefficients(SWS_CS_ITU709);
    sws_setColorspaceDetails(sws, bt709, 1, bt709, 0, 0, 1 << 16, 1 << 16);
    int strides[4] = {W * 4, 0, 0, 0}, out_strides[4] = {W, W / 2, W / 2, 0};
    uint8_t *out[4] = {y1, u1, v1, NULL};

    for (int round = 0; round < 3; round++) {
        double t0 = cpu_ms();
        for (int i = 0; i < pictures; i++) {
            const uint8_t *in[4] = {sources[i % SOURCES], NULL, NULL, NULL};
            sws_scale(sws, in, strides, 0, H, out, out_strides);
        }
        double t1 = cpu_ms();
        for (int i = 0; i < pictures; i++) {
            rk_bgr0_to_yuv420p_bt709(sources[i % SOURCES], W * 4, W, H, y2, W, u2, W / 2, v2, W / 2, scratch);
        }
        double t2 = cpu_ms();
        printf("round %d: libswscale %.2f ms, rk_bgr0_to_yuv420p_bt709 %.2f ms per picture: %.2fx\n", round + 1,
               (t1 - t0) / pictures, (t2 - t1) / pictures, (t2 - t1) / (t1 - t0));
    }
    int largest = 0;
    for (int i = 0; i < W * H; i++) largest = abs(y1[i] - y2[i]) > largest ? abs(y1[i] - y2[i]) : largest;
    for (int i = 0; i < W * H / 4; i++) {
        largest = abs(u1[i] - u2[i]) > largest ? abs(u1[i] - u2[i]) : largest;
        largest = abs(v1[i] - v2[i]) > largest ? abs(v1[i] - v2[i]) : largest;
    }
    printf("largest difference between the two pictures: %d\n", largest);
    return largest > 1;
}
