// What the C files share and Swift never sees: RK_PW_* formats to SPA's video formats and back.
#ifndef RK_PW_SPA_H
#define RK_PW_SPA_H

#include <stdint.h>
#include <spa/param/video/raw.h>

#include "rk_pipewire.h"

/// RK_PW_* of a raw SPA video format RecordKit reads; UINT32_MAX for any other.
static inline uint32_t rk_pw_format_of_spa(uint32_t spa_format) {
    switch (spa_format) {
    case SPA_VIDEO_FORMAT_BGRx: return RK_PW_BGRX;
    case SPA_VIDEO_FORMAT_BGRA: return RK_PW_BGRA;
    case SPA_VIDEO_FORMAT_RGBx: return RK_PW_RGBX;
    case SPA_VIDEO_FORMAT_RGBA: return RK_PW_RGBA;
    case SPA_VIDEO_FORMAT_YUY2: return RK_PW_YUY2;
    case SPA_VIDEO_FORMAT_NV12: return RK_PW_NV12;
    case SPA_VIDEO_FORMAT_I420: return RK_PW_I420;
    default: return UINT32_MAX;
    }
}

/// The SPA video format of a raw RK_PW_* format; SPA_VIDEO_FORMAT_UNKNOWN for RK_PW_MJPEG.
static inline uint32_t rk_pw_spa_of_format(uint32_t format) {
    switch (format) {
    case RK_PW_BGRX: return SPA_VIDEO_FORMAT_BGRx;
    case RK_PW_BGRA: return SPA_VIDEO_FORMAT_BGRA;
    case RK_PW_RGBX: return SPA_VIDEO_FORMAT_RGBx;
    case RK_PW_RGBA: return SPA_VIDEO_FORMAT_RGBA;
    case RK_PW_YUY2: return SPA_VIDEO_FORMAT_YUY2;
    case RK_PW_NV12: return SPA_VIDEO_FORMAT_NV12;
    case RK_PW_I420: return SPA_VIDEO_FORMAT_I420;
    default: return SPA_VIDEO_FORMAT_UNKNOWN;
    }
}

#endif
