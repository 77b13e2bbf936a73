// A PipeWire video stream of one node on its own thread loop (see rk_pipewire.h).
#define _GNU_SOURCE
#include "rk_pipewire.h"
#include "rk_pw_spa.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pipewire/pipewire.h>
#include <spa/param/video/format-utils.h>
#include <spa/param/video/type-info.h>
#include <spa/debug/types.h>
#include <spa/buffer/meta.h>

struct rk_pw_capture {
    struct pw_thread_loop *loop;
    struct pw_context *context;
    struct pw_core *core;
    struct pw_stream *stream;
    struct pw_registry *registry;
    struct spa_hook stream_listener, core_listener, registry_listener;
    uint32_t node_id;
    uint32_t max_fps;
    rk_pw_frame_fn on_frame;
    rk_pw_event_fn on_event;
    void *userdata;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int have_format, failed, gone;
    uint32_t width, height, format;
    int is_camera;              // a camera: YUY2, NV12 and I420 are offered too, converted to BGRx
    int accept_mjpeg;           // a camera whose caller decodes MJPEG: offered after the raw formats
    int has_want;               // a camera asked for exactly `want`
    rk_pw_camera_format want;
    uint32_t source_format;     // what the node sends (RK_PW_YUY2, RK_PW_NV12, RK_PW_I420 when converted)
    uint8_t *converted;         // the BGRx picture of a converted camera (stream thread only)
    size_t converted_size;
};

static void once_init(void) { pw_init(NULL, NULL); }

/// One EnumFormat object: raw (`formats`, `n_formats` of them; 0: MJPEG) at `size` (NULL: any
/// size, 1920x1080 preferred), at up to `max_fps`.
static const struct spa_pod *format_pod(struct spa_pod_builder *b, const uint32_t *formats, int n_formats,
                                        const struct spa_rectangle *size, uint32_t max_fps) {
    struct spa_pod_frame frame;
    spa_pod_builder_push_object(b, &frame, SPA_TYPE_OBJECT_Format, SPA_PARAM_EnumFormat);
    spa_pod_builder_add(b, SPA_FORMAT_mediaType, SPA_POD_Id(SPA_MEDIA_TYPE_video),
        SPA_FORMAT_mediaSubtype, SPA_POD_Id(n_formats > 0 ? SPA_MEDIA_SUBTYPE_raw : SPA_MEDIA_SUBTYPE_mjpg), 0);
    if (n_formats == 1) {
        spa_pod_builder_add(b, SPA_FORMAT_VIDEO_format, SPA_POD_Id(formats[0]), 0);
    } else if (n_formats > 1) {
        struct spa_pod_frame choice;
        spa_pod_builder_prop(b, SPA_FORMAT_VIDEO_format, 0);
        spa_pod_builder_push_choice(b, &choice, SPA_CHOICE_Enum, 0);
        spa_pod_builder_id(b, formats[0]);  // the default, then every alternative
        for (int i = 0; i < n_formats; i++) spa_pod_builder_id(b, formats[i]);
        spa_pod_builder_pop(b, &choice);
    }
    if (size) {
        spa_pod_builder_add(b, SPA_FORMAT_VIDEO_size, SPA_POD_Rectangle(size), 0);
    } else {
        spa_pod_builder_add(b, SPA_FORMAT_VIDEO_size, SPA_POD_CHOICE_RANGE_Rectangle(&SPA_RECTANGLE(1920, 1080), &SPA_RECTANGLE(1, 1),
                                                                                    &SPA_RECTANGLE(16384, 16384)), 0);
    }
    spa_pod_builder_add(b,
        SPA_FORMAT_VIDEO_framerate, SPA_POD_CHOICE_RANGE_Fraction(&SPA_FRACTION(0, 1), &SPA_FRACTION(0, 1),
                                                                  &SPA_FRACTION(1000, 1)),
        SPA_FORMAT_VIDEO_maxFramerate, SPA_POD_CHOICE_RANGE_Fraction(&SPA_FRACTION(max_fps, 1), &SPA_FRACTION(1, 1),
                                                                     &SPA_FRACTION(max_fps, 1)), 0);
    return spa_pod_builder_pop(b, &frame);
}

static int64_t monotonic_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void signal_state(struct rk_pw_capture *c, int failed) {
    pthread_mutex_lock(&c->lock);
    if (failed) c->failed = 1;
    pthread_cond_broadcast(&c->cond);
    pthread_mutex_unlock(&c->lock);
}

static void on_state_changed(void *data, enum pw_stream_state old, enum pw_stream_state state, const char *error) {
    (void)old;
    struct rk_pw_capture *c = data;
    switch (state) {
    case PW_STREAM_STATE_ERROR:
        signal_state(c, 1);
        c->on_event(c->userdata, RK_PW_EVENT_ERROR, error ? error : "stream error");
        break;
    case PW_STREAM_STATE_UNCONNECTED:
        signal_state(c, 1);
        c->on_event(c->userdata, RK_PW_EVENT_GONE, "the stream was disconnected");
        break;
    case PW_STREAM_STATE_PAUSED:
        c->on_event(c->userdata, RK_PW_EVENT_PAUSED, "paused");
        break;
    case PW_STREAM_STATE_STREAMING:
        c->on_event(c->userdata, RK_PW_EVENT_STREAMING, "streaming");
        break;
    default:
        break;
    }
}

static void on_param_changed(void *data, uint32_t id, const struct spa_pod *param) {
    struct rk_pw_capture *c = data;
    if (param == NULL || id != SPA_PARAM_Format) return;
    uint32_t media_type, media_subtype;
    if (spa_format_parse(param, &media_type, &media_subtype) < 0) return;
    if (media_type != SPA_MEDIA_TYPE_video) return;
    struct spa_rectangle size;
    uint32_t fmt, source;
    if (media_subtype == SPA_MEDIA_SUBTYPE_mjpg) {
        struct spa_video_info_mjpg mjpg;
        if (!c->accept_mjpeg || spa_format_video_mjpg_parse(param, &mjpg) < 0) return;
        size = mjpg.size;
        fmt = RK_PW_MJPEG;
    } else if (media_subtype == SPA_MEDIA_SUBTYPE_raw) {
        struct spa_video_info_raw raw;
        if (spa_format_video_raw_parse(param, &raw) < 0) return;
        size = raw.size;
        fmt = rk_pw_format_of_spa(raw.format);
        if (fmt == UINT32_MAX || (fmt >= RK_PW_YUY2 && !c->is_camera)) return;
        // The 4:2:2 and 4:2:0 layouts come in pairs of columns (and rows).
        if (fmt >= RK_PW_YUY2 && (size.width < 2 || size.width % 2 != 0 || (fmt != RK_PW_YUY2 && size.height % 2 != 0))) return;
    } else {
        return;
    }
    struct { uint32_t width, height; } raw = { size.width, size.height };
    source = fmt;
    if (fmt == RK_PW_YUY2 || fmt == RK_PW_NV12 || fmt == RK_PW_I420) {
        // Converted once, on this thread, into a BGRx picture of our own.
        size_t need = (size_t)raw.width * raw.height * 4;
        if (need > c->converted_size) {
            uint8_t *grown = realloc(c->converted, need);
            if (!grown) return;
            c->converted = grown;
            c->converted_size = need;
        }
        fmt = RK_PW_BGRX;
    }
    uint8_t buffer[1024];
    struct spa_pod_builder b = SPA_POD_BUILDER_INIT(buffer, sizeof(buffer));
    const struct spa_pod *params[3];
    params[0] = spa_pod_builder_add_object(&b, SPA_TYPE_OBJECT_ParamBuffers, SPA_PARAM_Buffers,
        SPA_PARAM_BUFFERS_buffers, SPA_POD_CHOICE_RANGE_Int(4, 2, 8),
        SPA_PARAM_BUFFERS_dataType, SPA_POD_CHOICE_FLAGS_Int((1 << SPA_DATA_MemFd) | (1 << SPA_DATA_MemPtr)));
    params[1] = spa_pod_builder_add_object(&b, SPA_TYPE_OBJECT_ParamMeta, SPA_PARAM_Meta,
        SPA_PARAM_META_type, SPA_POD_Id(SPA_META_Header),
        SPA_PARAM_META_size, SPA_POD_Int(sizeof(struct spa_meta_header)));
    params[2] = spa_pod_builder_add_object(&b, SPA_TYPE_OBJECT_ParamMeta, SPA_PARAM_Meta,
        SPA_PARAM_META_type, SPA_POD_Id(SPA_META_VideoDamage),
        SPA_PARAM_META_size, SPA_POD_CHOICE_RANGE_Int(sizeof(struct spa_meta_region) * RK_PW_MAX_DAMAGE,
                                                      sizeof(struct spa_meta_region) * 1,
                                                      sizeof(struct spa_meta_region) * RK_PW_MAX_DAMAGE));
    pw_stream_update_params(c->stream, params, 3);
    pthread_mutex_lock(&c->lock);
    c->width = raw.width;
    c->height = raw.height;
    c->format = fmt;
    c->source_format = source;
    c->have_format = 1;
    pthread_cond_broadcast(&c->cond);
    pthread_mutex_unlock(&c->lock);
}

/// Fills `f`'s data, stride and size from the buffer, converting YUY2, NV12 and I420 to BGRx;
/// 0 when the buffer is too small for what the format says (skipped).
static int frame_pixels(struct rk_pw_capture *c, struct spa_buffer *buf, rk_pw_frame *f) {
    struct spa_data *d = &buf->datas[0];
    if (d->chunk->offset > d->maxsize) return 0;
    const uint8_t *base = (const uint8_t *)d->data + d->chunk->offset;
    uint64_t available = d->maxsize - d->chunk->offset;
    uint32_t w = c->width, h = c->height;
    switch (c->source_format) {
    case RK_PW_MJPEG:
        if (d->chunk->size > available) return 0;
        f->data = base;
        f->size = d->chunk->size;
        f->stride = 0;
        return 1;
    case RK_PW_YUY2:
    case RK_PW_NV12:
    case RK_PW_I420: {
        if (!c->converted || c->converted_size < (size_t)w * h * 4) return 0;
        uint32_t bpp = c->source_format == RK_PW_YUY2 ? 2 : 1;
        uint32_t stride = d->chunk->stride > 0 ? (uint32_t)d->chunk->stride : w * bpp;
        if (stride < w * bpp) return 0;
        if (c->source_format == RK_PW_YUY2) {
            if ((uint64_t)stride * h > available) return 0;
            rk_pw_yuy2_to_bgrx(base, stride, c->converted, w * 4, w, h);
        } else {
            // The chroma plane(s): a data block of their own each (a producer that splits the
            // planes), else after the Y plane in the same block (V4L2's and GStreamer's layout:
            // NV12's U V rows `stride` apart, I420's U then V rows half as far apart).
            uint32_t uv_stride = c->source_format == RK_PW_NV12 ? stride : stride / 2;
            uint64_t uv_bytes = (uint64_t)uv_stride * (h / 2);
            const uint8_t *u = NULL, *v = NULL;
            uint32_t planes = c->source_format == RK_PW_NV12 ? 1 : 2;
            if (buf->n_datas > planes) {
                if ((uint64_t)stride * h > available) return 0;
                for (uint32_t i = 1; i <= planes; i++) {
                    struct spa_data *p = &buf->datas[i];
                    if (p->data == NULL || p->chunk == NULL || p->chunk->offset > p->maxsize) return 0;
                    uint32_t ps = p->chunk->stride > 0 ? (uint32_t)p->chunk->stride : uv_stride;
                    if (ps < (c->source_format == RK_PW_NV12 ? w : w / 2) || (uint64_t)ps * (h / 2) > p->maxsize - p->chunk->offset) return 0;
                    uv_stride = ps;
                    if (i == 1) u = (const uint8_t *)p->data + p->chunk->offset;
                    else v = (const uint8_t *)p->data + p->chunk->offset;
                }
            } else {
                if ((uint64_t)stride * h + uv_bytes * planes > available) return 0;
                u = base + (size_t)stride * h;
                if (planes == 2) v = u + uv_bytes;
            }
            rk_pw_yuv420_to_bgrx(base, stride, u, v, uv_stride, c->converted, w * 4, w, h);
        }
        f->data = c->converted;
        f->stride = w * 4;
        f->size = w * 4 * h;
        return 1;
    }
    default: {
        uint32_t stride = d->chunk->stride > 0 ? (uint32_t)d->chunk->stride : w * 4;
        if (stride < w * 4 || (uint64_t)stride * h > available) return 0;
        f->data = base;
        f->stride = stride;
        f->size = stride * h;
        return 1;
    }
    }
}

static void on_process(void *data) {
    struct rk_pw_capture *c = data;
    struct pw_buffer *b = NULL, *n;
    // Only the newest buffer matters: give older ones straight back.
    while ((n = pw_stream_dequeue_buffer(c->stream)) != NULL) {
        if (b) pw_stream_queue_buffer(c->stream, b);
        b = n;
    }
    if (!b) return;
    struct spa_buffer *buf = b->buffer;
    struct spa_data *d = &buf->datas[0];
    if (!c->have_format || d->data == NULL || d->chunk == NULL || d->chunk->size == 0 ||
        (d->chunk->flags & SPA_CHUNK_FLAG_CORRUPTED)) {
        pw_stream_queue_buffer(c->stream, b);
        return;
    }
    struct spa_meta_header *h = spa_buffer_find_meta_data(buf, SPA_META_Header, sizeof(*h));
    if (h && (h->flags & SPA_META_HEADER_FLAG_CORRUPTED)) {
        pw_stream_queue_buffer(c->stream, b);
        return;
    }
    rk_pw_frame f;
    memset(&f, 0, offsetof(rk_pw_frame, damage));
    f.width = c->width;
    f.height = c->height;
    f.format = c->format;
    if (!frame_pixels(c, buf, &f)) {
        pw_stream_queue_buffer(c->stream, b);
        return;
    }
    int64_t now = monotonic_ns();
    f.pts_ns = h ? h->pts : 0;
    // The compositor stamps frames on its presentation clock, CLOCK_MONOTONIC with wlroots;
    // a stamp not on that clock (in the future, or more than a second old) gives way to arrival.
    f.capture_ns = (f.pts_ns > 0 && f.pts_ns <= now && now - f.pts_ns < 1000000000) ? f.pts_ns : now;
    struct spa_meta *dm = spa_buffer_find_meta(buf, SPA_META_VideoDamage);
    if (dm) {
        struct spa_meta_region *r;
        f.damage_valid = 1;
        spa_meta_for_each(r, dm) {
            if (!spa_meta_region_is_valid(r)) break;
            if (f.damage_count == RK_PW_MAX_DAMAGE) { f.damage_valid = 0; break; }
            f.damage[f.damage_count].x = r->region.position.x;
            f.damage[f.damage_count].y = r->region.position.y;
            f.damage[f.damage_count].width = r->region.size.width;
            f.damage[f.damage_count].height = r->region.size.height;
            f.damage_count++;
        }
        // A frame that says nothing changed is still a frame the compositor chose to send:
        // treat "no region" as unknown.
        if (f.damage_count == 0) f.damage_valid = 0;
    }
    c->on_frame(c->userdata, &f);
    pw_stream_queue_buffer(c->stream, b);
}

static const struct pw_stream_events stream_events = {
    PW_VERSION_STREAM_EVENTS,
    .state_changed = on_state_changed,
    .param_changed = on_param_changed,
    .process = on_process,
};

static void on_core_error(void *data, uint32_t id, int seq, int res, const char *message) {
    (void)seq;
    struct rk_pw_capture *c = data;
    if (id != PW_ID_CORE || res != -EPIPE) return;
    signal_state(c, 1);
    c->on_event(c->userdata, RK_PW_EVENT_GONE, message ? message : "the PipeWire connection was lost");
}

static const struct pw_core_events core_events = { PW_VERSION_CORE_EVENTS, .error = on_core_error };

static void on_global_remove(void *data, uint32_t id) {
    struct rk_pw_capture *c = data;
    if (id != c->node_id || c->gone) return;
    c->gone = 1;
    signal_state(c, 1);
    c->on_event(c->userdata, RK_PW_EVENT_GONE, "the PipeWire node went away");
}

static const struct pw_registry_events registry_events = { PW_VERSION_REGISTRY_EVENTS, .global_remove = on_global_remove };

static void set_err(char *err, size_t len, const char *what, int res) {
    if (err && len) snprintf(err, len, "%s (%s)", what, strerror(res < 0 ? -res : res));
}

static rk_pw_capture *capture_open(int fd, uint32_t node_id, uint32_t max_fps, const char *name, const char *role,
                                   const rk_pw_camera_format *want, uint32_t options,
                                   rk_pw_frame_fn on_frame, rk_pw_event_fn on_event, void *userdata, char *err, size_t errlen);

rk_pw_capture *rk_pw_capture_open(int fd, uint32_t node_id, uint32_t max_fps, rk_pw_frame_fn on_frame,
                                  rk_pw_event_fn on_event, void *userdata, char *err, size_t errlen) {
    return capture_open(fd, node_id, max_fps, "RecordKit screen", "Screen", NULL, 0, on_frame, on_event, userdata, err, errlen);
}

rk_pw_capture *rk_pw_camera_open_fd(int fd, uint32_t node_id, uint32_t max_fps, const rk_pw_camera_format *want, uint32_t options,
                                    rk_pw_frame_fn on_frame, rk_pw_event_fn on_event, void *userdata, char *err, size_t errlen) {
    return capture_open(fd, node_id, max_fps, "RecordKit camera", "Camera", want, options, on_frame, on_event, userdata, err, errlen);
}

uint32_t rk_pw_capture_source_format(rk_pw_capture *c) {
    pthread_mutex_lock(&c->lock);
    uint32_t format = c->source_format;
    pthread_mutex_unlock(&c->lock);
    return format;
}

static rk_pw_capture *capture_open(int fd, uint32_t node_id, uint32_t max_fps, const char *name, const char *role,
                                   const rk_pw_camera_format *want, uint32_t options,
                                   rk_pw_frame_fn on_frame, rk_pw_event_fn on_event, void *userdata, char *err, size_t errlen) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, once_init);
    struct rk_pw_capture *c = calloc(1, sizeof(*c));
    if (!c) { if (fd >= 0) close(fd); return NULL; }
    c->node_id = node_id;
    c->max_fps = max_fps ? max_fps : 30;
    c->is_camera = strcmp(role, "Camera") == 0;
    c->accept_mjpeg = c->is_camera && (options & RK_PW_CAMERA_ACCEPT_MJPEG) != 0;
    if (c->is_camera && want) {
        c->has_want = 1;
        c->want = *want;
    }
    c->on_frame = on_frame;
    c->on_event = on_event;
    c->userdata = userdata;
    pthread_mutex_init(&c->lock, NULL);
    pthread_cond_init(&c->cond, NULL);
    c->loop = pw_thread_loop_new("rk-pipewire", NULL);
    if (!c->loop) { set_err(err, errlen, "cannot create a PipeWire thread loop", errno); if (fd >= 0) close(fd); free(c); return NULL; }
    c->context = pw_context_new(pw_thread_loop_get_loop(c->loop), NULL, 0);
    if (!c->context) { set_err(err, errlen, "cannot create a PipeWire context", errno); if (fd >= 0) close(fd); goto fail; }
    if (pw_thread_loop_start(c->loop) < 0) { set_err(err, errlen, "cannot start the PipeWire thread", errno); if (fd >= 0) close(fd); goto fail; }
    pw_thread_loop_lock(c->loop);
    c->core = fd >= 0 ? pw_context_connect_fd(c->context, fd, NULL, 0) : pw_context_connect(c->context, NULL, 0);
    if (!c->core) {
        pw_thread_loop_unlock(c->loop);
        set_err(err, errlen, "cannot connect to PipeWire", errno);
        goto fail;
    }
    pw_core_add_listener(c->core, &c->core_listener, &core_events, c);
    c->registry = pw_core_get_registry(c->core, PW_VERSION_REGISTRY, 0);
    if (c->registry) pw_registry_add_listener(c->registry, &c->registry_listener, &registry_events, c);
    c->stream = pw_stream_new(c->core, name,
        pw_properties_new(PW_KEY_MEDIA_TYPE, "Video", PW_KEY_MEDIA_CATEGORY, "Capture", PW_KEY_MEDIA_ROLE, role, NULL));
    if (!c->stream) {
        pw_thread_loop_unlock(c->loop);
        set_err(err, errlen, "cannot create a PipeWire stream", errno);
        goto fail;
    }
    pw_stream_add_listener(c->stream, &c->stream_listener, &stream_events, c);
    uint8_t buffer[2048];
    struct spa_pod_builder b = SPA_POD_BUILDER_INIT(buffer, sizeof(buffer));
    const struct spa_pod *params[2];
    uint32_t n_params = 0;
    // In order of preference (the first of ours the node can send wins): the raw formats
    // (RGB, then a camera's YUY2, NV12 and I420, converted to BGRx here), then a camera's
    // MJPEG (decoded by the caller); or exactly the format the caller chose.
    static const uint32_t rgb[] = { SPA_VIDEO_FORMAT_BGRx, SPA_VIDEO_FORMAT_BGRA, SPA_VIDEO_FORMAT_RGBx, SPA_VIDEO_FORMAT_RGBA,
                                    SPA_VIDEO_FORMAT_YUY2, SPA_VIDEO_FORMAT_NV12, SPA_VIDEO_FORMAT_I420 };
    if (c->has_want) {
        struct spa_rectangle size = SPA_RECTANGLE(c->want.width, c->want.height);
        uint32_t spa = rk_pw_spa_of_format(c->want.format);
        params[n_params++] = format_pod(&b, &spa, c->want.format == RK_PW_MJPEG ? 0 : 1, &size, c->max_fps);
    } else {
        params[n_params++] = format_pod(&b, rgb, c->is_camera ? 7 : 4, NULL, c->max_fps);
        if (c->accept_mjpeg) params[n_params++] = format_pod(&b, NULL, 0, NULL, c->max_fps);
    }
    int r = pw_stream_connect(c->stream, PW_DIRECTION_INPUT, node_id,
                              PW_STREAM_FLAG_AUTOCONNECT | PW_STREAM_FLAG_MAP_BUFFERS, params, n_params);
    pw_thread_loop_unlock(c->loop);
    if (r < 0) { set_err(err, errlen, "cannot connect the PipeWire stream", r); goto fail; }
    return c;
fail:
    rk_pw_capture_close(c);
    return NULL;
}

int rk_pw_capture_wait_format(rk_pw_capture *c, int timeout_ms, uint32_t *width, uint32_t *height, uint32_t *format) {
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += timeout_ms / 1000;
    deadline.tv_nsec += (long)(timeout_ms % 1000) * 1000000;
    if (deadline.tv_nsec >= 1000000000) { deadline.tv_sec++; deadline.tv_nsec -= 1000000000; }
    int r = 0;
    pthread_mutex_lock(&c->lock);
    while (!c->have_format && !c->failed && r == 0) r = pthread_cond_timedwait(&c->cond, &c->lock, &deadline);
    int result = c->have_format ? 0 : (c->failed ? -EIO : -ETIMEDOUT);
    *width = c->width;
    *height = c->height;
    *format = c->format;
    pthread_mutex_unlock(&c->lock);
    return result;
}

void rk_pw_capture_close(rk_pw_capture *c) {
    if (!c) return;
    if (c->loop) pw_thread_loop_stop(c->loop);
    if (c->stream) pw_stream_destroy(c->stream);
    if (c->registry) pw_proxy_destroy((struct pw_proxy *)c->registry);
    if (c->core) pw_core_disconnect(c->core);
    if (c->context) pw_context_destroy(c->context);
    if (c->loop) pw_thread_loop_destroy(c->loop);
    pthread_mutex_destroy(&c->lock);
    pthread_cond_destroy(&c->cond);
    free(c->converted);
    free(c);
}
