// RecordKit's C edge to the ScreenCast portal (sd-bus) and to PipeWire video streams
// (libpipewire-0.3). Written in C because the calls it needs are variadic or macros that Swift
// cannot import (sd_bus_call_method, sd_bus_message_append, spa_pod_builder_add_object,
// SPA_POD_*): see docs/WAYLAND.md. Only plain C types cross this header.
#ifndef RK_PIPEWIRE_H
#define RK_PIPEWIRE_H

#include <stddef.h>
#include <stdint.h>

// MARK: The ScreenCast portal (org.freedesktop.portal.ScreenCast on the session bus)

/// One D-Bus connection to the portal and at most one ScreenCast session. Not thread-safe: one
/// thread at a time (the owner hands it over with a happens-before edge, e.g. thread creation).
typedef struct rk_portal rk_portal;

/// A stream the portal handed out: a PipeWire node and where it lies on the desktop.
typedef struct rk_portal_stream {
    uint32_t node_id;
    int32_t x, y;            // position in the compositor's space; INT32_MIN when not given
    int32_t width, height;   // size; 0 when not given
    uint32_t source_type;    // as reported (1 monitor, 2 window, 4 virtual); not trusted
} rk_portal_stream;

/// Connects to the session bus ($DBUS_SESSION_BUS_ADDRESS); NULL with `err` filled on failure.
rk_portal *rk_portal_open(char *err, size_t errlen);

/// The ScreenCast interface's properties; 0 on success, a negative errno with `err` otherwise.
int rk_portal_properties(rk_portal *p, uint32_t *source_types, uint32_t *cursor_modes, uint32_t *version,
                         char *err, size_t errlen);

/// CreateSession, SelectSources (types, cursor_mode, persist_mode, restore_token if not NULL or
/// empty) and Start, each waiting up to `timeout_ms` for the portal's Response. On success
/// fills up to `max_streams` streams and `*count`, and the new restore token into `token_out`
/// (empty when the portal gave none). The session stays open until rk_portal_close().
/// Returns 0, or: -ECANCELED the user cancelled (response 1), -EPERM refused (response 2),
/// -ETIMEDOUT no response, another negative errno for a D-Bus failure; `err` says which.
int rk_portal_start(rk_portal *p, uint32_t types, uint32_t cursor_mode, uint32_t persist_mode,
                    const char *restore_token, int timeout_ms,
                    rk_portal_stream *streams, int max_streams, int *count,
                    char *token_out, size_t token_len, char *err, size_t errlen);

/// OpenPipeWireRemote for the started session: a new file descriptor (the caller owns it) to
/// connect libpipewire with, or a negative errno with `err`.
int rk_portal_open_pipewire_remote(rk_portal *p, char *err, size_t errlen);

/// Processes what the bus delivered, without blocking. Returns 1 once the portal closed the
/// session (Session.Closed) or the bus connection was lost, 0 otherwise.
int rk_portal_poll_closed(rk_portal *p);

/// Closes the session (Session.Close) and the connection; frees `p`. NULL is ignored.
void rk_portal_close(rk_portal *p);

/// The Camera portal (org.freedesktop.portal.Camera, what sandboxed apps reach cameras by):
/// AccessCamera, waiting up to `timeout_ms` for its Response. 0 when access is granted;
/// -ENOENT when no Camera portal answers (xdg-desktop-portal offers it only with an Access
/// backend); -ECANCELED/-EPERM when it refused (the user said no, or the permission store
/// says no); another negative errno for a D-Bus failure. `err` says which.
int rk_portal_camera_access(rk_portal *p, int timeout_ms, char *err, size_t errlen);

/// The Camera portal's OpenPipeWireRemote, after rk_portal_camera_access granted access: a new
/// file descriptor (the caller owns it) of a PipeWire connection that sees the cameras only;
/// one per connection (list, then open). A negative errno with `err` otherwise.
int rk_portal_camera_open_remote(rk_portal *p, char *err, size_t errlen);

// MARK: A PipeWire video stream (copy path: SHM/memfd buffers mapped read-only)

enum { RK_PW_BGRX = 0, RK_PW_BGRA = 1, RK_PW_RGBX = 2, RK_PW_RGBA = 3 };
/// A camera's packed 4:2:2 YUV (Y0 U Y1 V, what most USB cameras send uncompressed at low
/// rates), and its planar 4:2:0 YUV (NV12: a Y plane then interleaved U V; I420: Y, U, V
/// planes); never handed to a frame callback: converted to BGRx on the stream's thread first
/// (rk_pw_yuv.c).
enum { RK_PW_YUY2 = 4, RK_PW_NV12 = 5, RK_PW_I420 = 6 };
/// A camera's Motion JPEG (what most USB cameras send at 720p and 1080p): each frame is one
/// JPEG picture of `size` bytes at `data` (stride 0), handed to the frame callback as it came;
/// the caller decodes it.
enum { RK_PW_MJPEG = 7 };
/// rk_pw_camera_open_fd's `options`: offer MJPEG besides the raw formats (the caller can decode it).
enum { RK_PW_CAMERA_ACCEPT_MJPEG = 1 };
enum { RK_PW_MAX_DAMAGE = 16 };

/// A changed rectangle, in stream pixels.
typedef struct rk_pw_rect { int32_t x, y; uint32_t width, height; } rk_pw_rect;

/// One buffer, valid only during the frame callback.
typedef struct rk_pw_frame {
    const uint8_t *data;      // first pixel row
    uint32_t stride;          // bytes between rows
    uint32_t width, height;   // pixels
    uint32_t format;          // RK_PW_*
    int64_t capture_ns;       // CLOCK_MONOTONIC: the buffer's PTS when it is on that clock, else arrival
    int64_t pts_ns;           // the buffer's own PTS (0 if none)
    uint32_t size;            // bytes at `data`: the JPEG for RK_PW_MJPEG, else height rows of `stride`
    uint32_t damage_count;    // 0 with damage_valid: nothing changed; damage_valid 0: unknown
    int32_t damage_valid;
    rk_pw_rect damage[RK_PW_MAX_DAMAGE];
} rk_pw_frame;

enum { RK_PW_EVENT_STREAMING = 0, RK_PW_EVENT_PAUSED = 1, RK_PW_EVENT_ERROR = 2, RK_PW_EVENT_GONE = 3 };

typedef void (*rk_pw_frame_fn)(void *userdata, const rk_pw_frame *frame);
typedef void (*rk_pw_event_fn)(void *userdata, int event, const char *message);

/// A stream of one node, run by its own PipeWire thread loop: callbacks come on that thread.
typedef struct rk_pw_capture rk_pw_capture;

/// Connects to the remote `fd` (taken over; -1: the default daemon) and to node `node_id`,
/// negotiating raw BGRx/BGRA/RGBx/RGBA in memfd/SHM buffers at up to `max_fps`. Callbacks may
/// start before it returns. NULL with `err` on failure (`fd` is closed then too).
rk_pw_capture *rk_pw_capture_open(int fd, uint32_t node_id, uint32_t max_fps, rk_pw_frame_fn on_frame,
                                  rk_pw_event_fn on_event, void *userdata, char *err, size_t errlen);

/// One format a camera offers at one size: what rk_pw_camera_formats lists and
/// rk_pw_camera_open_fd can be asked for.
typedef struct rk_pw_camera_format {
    uint32_t format;          // RK_PW_* (the source format: RK_PW_YUY2, RK_PW_MJPEG, ...)
    uint32_t width, height;   // pixels
    uint32_t max_fps;         // the highest whole frame rate offered at this size (0: unknown)
} rk_pw_camera_format;

/// The formats and sizes the camera node `node_id` offers that RecordKit reads (its output
/// port's EnumFormat; choices and ranges of sizes give their default), through the remote
/// `fd` (taken over; -1: the default daemon), after one round trip (at most `timeout_ms`).
/// Blocking; any thread. Up to `max` into `formats` and `*count`; 0, or a negative errno with
/// `err` (-ENOENT: no such node or no output port).
int rk_pw_camera_formats(int fd, uint32_t node_id, rk_pw_camera_format *formats, int max, int *count, int timeout_ms,
                         char *err, size_t errlen);

/// The same stream for a camera: node `node_id` through the remote `fd` (the Camera portal's;
/// taken over, -1: the default daemon: `PIPEWIRE_REMOTE`, else the user's socket), with the
/// Camera media role. With `want` (not NULL) only that format at that size is asked for (from
/// rk_pw_camera_formats); otherwise the raw formats at any size (1920x1080 preferred) come
/// first, then MJPEG when `options` has RK_PW_CAMERA_ACCEPT_MJPEG. YUY2, NV12 and I420 are
/// converted once per picture to BGRx on the stream's thread, and frames (and
/// rk_pw_capture_wait_format's `format`) say RK_PW_BGRX; MJPEG frames say RK_PW_MJPEG and
/// carry the JPEG. `source_format` below tells which format the camera sends.
rk_pw_capture *rk_pw_camera_open_fd(int fd, uint32_t node_id, uint32_t max_fps, const rk_pw_camera_format *want, uint32_t options,
                                    rk_pw_frame_fn on_frame, rk_pw_event_fn on_event, void *userdata, char *err, size_t errlen);

/// Waits up to `timeout_ms` for the format; 0 with the size and RK_PW_* format, -ETIMEDOUT, or
/// -EIO when the stream failed first.
int rk_pw_capture_wait_format(rk_pw_capture *c, int timeout_ms, uint32_t *width, uint32_t *height, uint32_t *format);

/// The format the node sends (RK_PW_*: RK_PW_YUY2, RK_PW_NV12 or RK_PW_I420 for a camera
/// converted to BGRx), once rk_pw_capture_wait_format returned 0.
uint32_t rk_pw_capture_source_format(rk_pw_capture *c);

/// Converts `height` rows of YUY2 (`src_stride` bytes apart, `width` even) to BGRx (`dst_stride`
/// apart), BT.601 limited range, as USB cameras (UVC) send it. Plain C, any thread.
void rk_pw_yuy2_to_bgrx(const uint8_t *src, uint32_t src_stride, uint8_t *dst, uint32_t dst_stride, uint32_t width, uint32_t height);

/// Converts 4:2:0 YUV to BGRx (`dst_stride` apart), BT.601 limited range: the Y plane
/// (`y_stride`), and either NV12's interleaved U V plane (`v` NULL, `uv_stride`) or I420's U
/// and V planes (`uv_stride` each). `width` and `height` even. Plain C, any thread.
void rk_pw_yuv420_to_bgrx(const uint8_t *y, uint32_t y_stride, const uint8_t *u, const uint8_t *v, uint32_t uv_stride,
                          uint8_t *dst, uint32_t dst_stride, uint32_t width, uint32_t height);

/// Stops the thread loop and frees everything; no callback runs after it returns. Never call
/// it from a callback. NULL is ignored.
void rk_pw_capture_close(rk_pw_capture *c);

// MARK: Video source nodes in PipeWire's registry (cameras)

/// One `Video/Source` node of the registry.
typedef struct rk_pw_node {
    uint32_t id;
    char name[128];          // node.name
    char description[128];   // node.description (or node.nick), may be empty
    char role[32];           // media.role ("Camera" for cameras), may be empty
    char api[32];            // device.api ("v4l2", "libcamera"), empty for a program's node
} rk_pw_node;

/// Lists the `Video/Source` nodes of the default PipeWire daemon (`PIPEWIRE_REMOTE`, else the
/// user's socket), up to `max`, into `nodes` and `*count`, after one round trip (at most
/// `timeout_ms`). Blocking; any thread. 0, or a negative errno with `err` (no daemon: -ECONNREFUSED
/// or -ENOENT; no answer in time: -ETIMEDOUT).
int rk_pw_list_video_sources(rk_pw_node *nodes, int max, int *count, int timeout_ms, char *err, size_t errlen);

/// rk_pw_list_video_sources through the remote `fd` (the Camera portal's; taken over, -1: the default daemon).
int rk_pw_list_video_sources_fd(int fd, rk_pw_node *nodes, int max, int *count, int timeout_ms, char *err, size_t errlen);

#endif
