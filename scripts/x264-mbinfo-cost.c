/*
 * x264-mbinfo-cost: what libx264 spends on a repeated picture, with and without per-macroblock
 * "constant" hints (x264_picture_t.prop.mb_info, X264_MBINFO_CONSTANT, param.analyse.b_mb_info).
 *
 * Settings are RecordKit's constant-mode ones: preset veryfast, crf 23, keyint 60, 1920x1080 I420,
 * 30 fps, BT.709 VUI, High profile. Cases, 300 pictures each:
 *   moving    300 changing pictures (testsrc2 frames read from SRC, a raw yuv420p file)
 *   same      the first picture 300 times, no mb_info
 *   same-mbi  the same with b_mb_info=1 and every macroblock X264_MBINFO_CONSTANT
 *   square    the first picture with one 64x64 square changing every picture, no mb_info
 *   square-mbi the same with mb_info: the square's macroblocks changed, all others constant
 * CPU = process CPU (all x264 threads) minus the main thread's CPU spent reading/drawing pictures,
 * per picture, encoder open and flush included. Prints min and median over RUNS runs.
 *
 * Build and run: scripts/x264-mbinfo-cost.sh (it makes SRC with ffmpeg and compiles this file).
 *   usage: x264-mbinfo-cost SRC THREADS RUNS [OUTDIR [CASE]]
 *   THREADS 0 = x264's default (auto). OUTDIR: the first run of each case writes CASE.h264 there
 *   ("-": none). CASE: run only that case (e.g. under perf).
 *   Environment X264_COST_PARAMS="key=value:key=value" applies further x264 options (x264_param_parse)
 *   to every case, to find what a repeated picture's cost is made of.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>
#include <x264.h>

enum { W = 1920, H = 1080, N = 300, MBW = (W + 15) / 16, MBH = (H + 15) / 16 };
static const size_t FRAME = (size_t)W * H * 3 / 2;

static double cpu_of(clockid_t id) {
    struct timespec t;
    clock_gettime(id, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

/* Draws picture i of a case into pic (I420); returns the macroblock rectangle that changed. */
static void draw(const char *c, int i, uint8_t *pic, const uint8_t *first, FILE *src,
                 int *sx, int *sy) {
    if (!strcmp(c, "moving")) {
        if (fseek(src, (long)(FRAME * (size_t)i), SEEK_SET) || fread(pic, 1, FRAME, src) != FRAME) {
            fprintf(stderr, "short read of SRC\n");
            exit(1);
        }
        return;
    }
    memcpy(pic, first, FRAME);
    if (!strncmp(c, "square", 6)) {
        /* a 64x64 square, moving along a diagonal by 16 px every picture, its colour changing */
        *sx = 256 + (i % 40) * 16;
        *sy = 128 + (i % 40) * 16;
        for (int y = 0; y < 64; y++) memset(pic + (size_t)(*sy + y) * W + *sx, 40 + (i * 37) % 180, 64);
        uint8_t *u = pic + (size_t)W * H, *v = u + (size_t)W * H / 4;
        for (int y = 0; y < 32; y++) {
            memset(u + (size_t)(*sy / 2 + y) * (W / 2) + *sx / 2, (i * 53) % 256, 32);
            memset(v + (size_t)(*sy / 2 + y) * (W / 2) + *sx / 2, (i * 91) % 256, 32);
        }
    }
}

/* One run of one case: CPU-seconds per picture. */
static double run(const char *c, int threads, const uint8_t *first, FILE *src, const char *out,
                  long *bytes) {
    int mbi = strstr(c, "-mbi") != NULL;
    x264_param_t p;
    if (x264_param_default_preset(&p, "veryfast", NULL) < 0) exit(1);
    p.i_width = W;
    p.i_height = H;
    p.i_csp = X264_CSP_I420;
    p.i_fps_num = 30;
    p.i_fps_den = 1;
    p.i_timebase_num = 1;
    p.i_timebase_den = 30;
    p.i_keyint_max = 60;
    p.rc.i_rc_method = X264_RC_CRF;
    p.rc.f_rf_constant = 23;
    p.vui.i_colorprim = 1;
    p.vui.i_transfer = 1;
    p.vui.i_colmatrix = 1;
    p.vui.b_fullrange = 0;
    p.i_threads = threads ? threads : X264_THREADS_AUTO;
    p.i_log_level = X264_LOG_ERROR;
    p.b_annexb = 1;
    p.b_repeat_headers = 1;
    p.analyse.b_mb_info = mbi;
    const char *extra = getenv("X264_COST_PARAMS");
    if (extra && *extra) {
        char buf[1024];
        snprintf(buf, sizeof buf, "%s", extra);
        for (char *save = NULL, *kv = strtok_r(buf, ":", &save); kv; kv = strtok_r(NULL, ":", &save)) {
            char *eq = strchr(kv, '=');
            if (eq) *eq++ = 0;
            if (x264_param_parse(&p, kv, eq) < 0) { fprintf(stderr, "bad x264 option %s\n", kv); exit(2); }
        }
    }
    if (x264_param_apply_profile(&p, "high") < 0) exit(1);

    double t0 = cpu_of(CLOCK_PROCESS_CPUTIME_ID), drawing = 0;
    x264_t *enc = x264_encoder_open(&p);
    if (!enc) { fprintf(stderr, "x264_encoder_open failed\n"); exit(1); }
    FILE *f = out ? fopen(out, "wb") : NULL, *raw = NULL;
    if (out && !strcmp(c, "square")) { /* the pictures themselves, to check the decoded streams against */
        char path[4200];
        snprintf(path, sizeof path, "%.*s.yuv", (int)(strlen(out) - 5), out);
        raw = fopen(path, "wb");
    }
    x264_picture_t in, outp;
    x264_picture_alloc(&in, X264_CSP_I420, W, H);
    uint8_t *pic = malloc(FRAME);
    static uint8_t info[MBW * MBH];
    x264_nal_t *nals;
    int nnal;
    *bytes = 0;
    for (int i = 0; i < N; i++) {
        double d0 = cpu_of(CLOCK_THREAD_CPUTIME_ID);
        int sx = -1, sy = -1;
        draw(c, i, pic, first, src, &sx, &sy);
        memcpy(in.img.plane[0], pic, (size_t)W * H);
        memcpy(in.img.plane[1], pic + (size_t)W * H, (size_t)W * H / 4);
        memcpy(in.img.plane[2], pic + (size_t)W * H * 5 / 4, (size_t)W * H / 4);
        if (mbi) {
            memset(info, X264_MBINFO_CONSTANT, sizeof info);
            int px = i ? 256 + ((i - 1) % 40) * 16 : sx, py = i ? 128 + ((i - 1) % 40) * 16 : sy;
            if (sx >= 0) /* the square now and where it was: both changed against the previous picture */
                for (int k = 0; k < 2; k++) {
                    int x0 = (k ? px : sx) / 16, y0 = (k ? py : sy) / 16;
                    for (int y = y0; y < y0 + 4 && y < MBH; y++)
                        for (int x = x0; x < x0 + 4 && x < MBW; x++) info[y * MBW + x] = 0;
                }
            in.prop.mb_info = info;
            in.prop.mb_info_free = NULL;
        }
        if (raw) fwrite(pic, 1, FRAME, raw);
        in.i_pts = i;
        in.i_type = X264_TYPE_AUTO;
        drawing += cpu_of(CLOCK_THREAD_CPUTIME_ID) - d0;
        int n = x264_encoder_encode(enc, &nals, &nnal, &in, &outp);
        if (n < 0) exit(1);
        if (n > 0) { *bytes += n; if (f) fwrite(nals[0].p_payload, 1, (size_t)n, f); }
    }
    while (x264_encoder_delayed_frames(enc)) {
        int n = x264_encoder_encode(enc, &nals, &nnal, NULL, &outp);
        if (n < 0) exit(1);
        if (n > 0) { *bytes += n; if (f) fwrite(nals[0].p_payload, 1, (size_t)n, f); }
    }
    x264_encoder_close(enc);
    x264_picture_clean(&in);
    free(pic);
    if (f) fclose(f);
    if (raw) fclose(raw);
    return (cpu_of(CLOCK_PROCESS_CPUTIME_ID) - t0 - drawing) / N;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
    if (argc < 4) { fprintf(stderr, "usage: %s SRC THREADS RUNS [OUTDIR]\n", argv[0]); return 2; }
    FILE *src = fopen(argv[1], "rb");
    if (!src) { perror(argv[1]); return 1; }
    int threads = atoi(argv[2]), runs = atoi(argv[3]);
    uint8_t *first = malloc(FRAME);
    if (fread(first, 1, FRAME, src) != FRAME) { fprintf(stderr, "short SRC\n"); return 1; }
    const char *cases[] = {"moving", "same", "same-mbi", "square", "square-mbi"};
    enum { C = sizeof cases / sizeof *cases };
    double t[C][32], med[C];
    long bytes[C];
    if (runs > 32) runs = 32;
    for (int r = 0; r < runs; r++)
        for (int k = 0; k < C; k++) {  /* cases interleaved, so load changes hit all of them */
            char path[4096];
            const char *out = NULL;
            if (argc > 5 && strcmp(argv[5], cases[k])) { t[k][r] = 0; bytes[k] = 0; continue; }
            if (r == 0 && argc > 4 && strcmp(argv[4], "-")) { snprintf(path, sizeof path, "%s/%s.h264", argv[4], cases[k]); out = path; }
            t[k][r] = run(cases[k], threads, first, src, out, &bytes[k]);
        }
    printf("%s%s", getenv("X264_COST_PARAMS") ? getenv("X264_COST_PARAMS") : "", getenv("X264_COST_PARAMS") ? ", " : "");
    printf("threads %s, %d runs of %d pictures, 1920x1080 veryfast crf 23 keyint 60\n",
           threads ? argv[2] : "auto", runs, N);
    printf("%-11s %9s %9s %8s %10s\n", "case", "min ms", "median ms", "/moving", "bytes");
    for (int k = 0; k < C; k++) {
        qsort(t[k], (size_t)runs, sizeof(double), cmp);
        med[k] = t[k][runs / 2];
    }
    for (int k = 0; k < C; k++)
        printf("%-11s %9.2f %9.2f %8.3f %10ld\n", cases[k], t[k][0] * 1e3, med[k] * 1e3, med[0] > 0 ? med[k] / med[0] : 0, bytes[k]);
    return 0;
}
