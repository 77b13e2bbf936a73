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

/* Macros Swift cannot import (STACK-NOTES.md), as inline functions. */
static inline int shim_averror(int e) { return AVERROR(e); }
static inline int shim_averror_eof(void) { return AVERROR_EOF; }
static inline int shim_averror_eagain(void) { return AVERROR(EAGAIN); }
static inline int64_t shim_av_nopts_value(void) { return AV_NOPTS_VALUE; }
static inline AVRational shim_av_time_base_q(void) { return AV_TIME_BASE_Q; }
#endif
