#ifndef RECORDKIT_CFFMPEG_SHIM_H
#define RECORDKIT_CFFMPEG_SHIM_H
#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavutil/avutil.h>
#include <libavutil/opt.h>
#include <libavutil/imgutils.h>
#include <libavutil/channel_layout.h>
#include <libavutil/audio_fifo.h>
#include <libavutil/error.h>
#include <libswscale/swscale.h>
#include <libswresample/swresample.h>

/* Macros Swift cannot import (its importer skips function-like macros), as inline functions. */
static inline int shim_averror(int e) { return AVERROR(e); }
static inline int shim_averror_eof(void) { return AVERROR_EOF; }
static inline int shim_averror_eagain(void) { return AVERROR(EAGAIN); }
static inline int64_t shim_av_nopts_value(void) { return AV_NOPTS_VALUE; }
static inline AVRational shim_av_time_base_q(void) { return AV_TIME_BASE_Q; }

/* yuv420p pictures from a buffer pool (reused memory, no fresh pages per picture): rows 64-byte
   aligned as av_frame_get_buffer makes them. */
static inline size_t shim_yuv420p_pool_size(int width, int height) {
    size_t luma = (size_t)FFALIGN(width, 64) * (size_t)height;
    size_t chroma = (size_t)FFALIGN((width + 1) / 2, 64) * (size_t)((height + 1) / 2);
    return luma + 2 * chroma + 64;
}
/* Gives `frame` (format, width and height set, no buffer yet) a buffer from `pool`, made with
   shim_yuv420p_pool_size(width, height). 0, or AVERROR(ENOMEM). */
static inline int shim_yuv420p_frame_from_pool(AVFrame *frame, AVBufferPool *pool) {
    AVBufferRef *buffer = av_buffer_pool_get(pool);
    if (!buffer) return AVERROR(ENOMEM);
    int width = frame->width, height = frame->height;
    uint8_t *base = (uint8_t *)FFALIGN((uintptr_t)buffer->data, 64);
    int luma = FFALIGN(width, 64), chroma = FFALIGN((width + 1) / 2, 64);
    frame->buf[0] = buffer;
    frame->data[0] = base;
    frame->data[1] = base + (size_t)luma * (size_t)height;
    frame->data[2] = frame->data[1] + (size_t)chroma * (size_t)((height + 1) / 2);
    frame->linesize[0] = luma;
    frame->linesize[1] = chroma;
    frame->linesize[2] = chroma;
    frame->extended_data = frame->data;
    return 0;
}
#endif
