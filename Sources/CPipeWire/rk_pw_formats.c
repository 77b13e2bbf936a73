// The formats a camera node offers (see rk_pipewire.h): its output port's EnumFormat params,
// or the node's own when this connection sees no port of it (the Camera portal's connection
// is granted the camera node only), read over one connection on a main loop of its own, two
// round trips (the registry, then the params).
#define _GNU_SOURCE
#include "rk_pipewire.h"
#include "rk_pw_spa.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pipewire/pipewire.h>
#include <spa/param/format-utils.h>
#include <spa/param/video/format-utils.h>
#include <spa/pod/iter.h>

struct enumeration {
    struct pw_main_loop *loop;
    struct pw_core *core;
    struct pw_registry *registry;
    struct pw_proxy *port;         // the port or node whose params are asked for
    struct spa_hook port_listener;
    uint32_t port_id;              // the node's output port, SPA_ID_INVALID until seen
    int node_seen;
    uint32_t node_id;
    rk_pw_camera_format *formats;
    int max, count, registry_seq, params_seq, done;
    // Through the Camera portal: the session manager grants the portal's connection its
    // cameras a moment after the portal handed it out, so a node missing from the first
    // answer is waited for (until the timeout).
    int wait_for_node, registry_done;
};

/// The values of property `key` of `obj`: the one value, an enum's alternatives, or a range's
/// or step's default (`*n` of them, each `size` bytes of `type`); NULL when absent.
static const void *prop_values(const struct spa_pod_object *obj, uint32_t key, uint32_t type, uint32_t *n) {
    const struct spa_pod_prop *prop = spa_pod_object_find_prop(obj, NULL, key);
    if (!prop) return NULL;
    uint32_t count, choice;
    const struct spa_pod *values = spa_pod_get_values(&prop->value, &count, &choice);
    if (!values || values->type != type || count == 0) return NULL;
    const uint8_t *first = SPA_POD_BODY_CONST(values);
    if (choice == SPA_CHOICE_Enum && count > 1) {
        *n = count - 1;  // the default comes first, then every alternative
        return first + values->size;
    }
    *n = 1;  // one value, or a range's or step's default
    return first;
}

/// The highest whole frame rate `prop` offers (a value, an enum's alternatives, a range's or
/// step's maximum); 0 when absent.
static uint32_t max_rate(const struct spa_pod_object *obj, uint32_t key) {
    const struct spa_pod_prop *prop = spa_pod_object_find_prop(obj, NULL, key);
    if (!prop) return 0;
    uint32_t count, choice;
    const struct spa_pod *values = spa_pod_get_values(&prop->value, &count, &choice);
    if (!values || values->type != SPA_TYPE_Fraction || count == 0) return 0;
    const struct spa_fraction *f = SPA_POD_BODY_CONST(values);
    uint32_t best = 0;
    for (uint32_t i = 0; i < count; i++) {
        if (choice == SPA_CHOICE_Step && i == 3) break;  // default, min, max, step
        if (f[i].denom > 0 && f[i].num / f[i].denom > best) best = f[i].num / f[i].denom;
    }
    return best;
}

static void add(struct enumeration *e, uint32_t format, const struct spa_rectangle *size, uint32_t fps) {
    if (e->count >= e->max || size->width == 0 || size->height == 0) return;
    e->formats[e->count++] = (rk_pw_camera_format){ .format = format, .width = size->width, .height = size->height, .max_fps = fps };
}

static void on_param(void *data, int seq, uint32_t id, uint32_t index, uint32_t next, const struct spa_pod *param) {
    (void)seq; (void)index; (void)next;
    struct enumeration *e = data;
    if (id != SPA_PARAM_EnumFormat || !param || !spa_pod_is_object_type(param, SPA_TYPE_OBJECT_Format)) return;
    uint32_t media_type, media_subtype;
    if (spa_format_parse(param, &media_type, &media_subtype) < 0 || media_type != SPA_MEDIA_TYPE_video) return;
    const struct spa_pod_object *obj = (const struct spa_pod_object *)param;
    uint32_t n_sizes = 0;
    const struct spa_rectangle *sizes = prop_values(obj, SPA_FORMAT_VIDEO_size, SPA_TYPE_Rectangle, &n_sizes);
    if (!sizes) return;
    uint32_t fps = max_rate(obj, SPA_FORMAT_VIDEO_framerate);
    uint32_t most = max_rate(obj, SPA_FORMAT_VIDEO_maxFramerate);  // a variable rate says its maximum here
    if (fps == 0 || most > fps) fps = most;
    if (media_subtype == SPA_MEDIA_SUBTYPE_mjpg) {
        for (uint32_t s = 0; s < n_sizes; s++) add(e, RK_PW_MJPEG, &sizes[s], fps);
        return;
    }
    if (media_subtype != SPA_MEDIA_SUBTYPE_raw) return;
    uint32_t n_formats = 0;
    const uint32_t *formats = prop_values(obj, SPA_FORMAT_VIDEO_format, SPA_TYPE_Id, &n_formats);
    for (uint32_t f = 0; formats && f < n_formats; f++) {
        uint32_t format = rk_pw_format_of_spa(formats[f]);
        if (format == UINT32_MAX) continue;
        for (uint32_t s = 0; s < n_sizes; s++) add(e, format, &sizes[s], fps);
    }
}

static const struct pw_port_events port_events = { PW_VERSION_PORT_EVENTS, .param = on_param };
static const struct pw_node_events node_events = { PW_VERSION_NODE_EVENTS, .param = on_param };

/// Once the registry answered: asks the output port for its formats, else the node itself;
/// the params come before the answer to the sync that follows.
static void ask(struct enumeration *e) {
    if (e->port || !e->registry_done) return;
    if (e->port_id != SPA_ID_INVALID) {
        e->port = pw_registry_bind(e->registry, e->port_id, PW_TYPE_INTERFACE_Port, PW_VERSION_PORT, 0);
        if (!e->port) return;
        pw_port_add_listener((struct pw_port *)e->port, &e->port_listener, &port_events, e);
        pw_port_enum_params((struct pw_port *)e->port, 0, SPA_PARAM_EnumFormat, 0, UINT32_MAX, NULL);
    } else if (e->node_seen) {
        e->port = pw_registry_bind(e->registry, e->node_id, PW_TYPE_INTERFACE_Node, PW_VERSION_NODE, 0);
        if (!e->port) return;
        pw_node_add_listener((struct pw_node *)e->port, &e->port_listener, &node_events, e);
        pw_node_enum_params((struct pw_node *)e->port, 0, SPA_PARAM_EnumFormat, 0, UINT32_MAX, NULL);
    } else {
        return;
    }
    e->params_seq = pw_core_sync(e->core, PW_ID_CORE, 0);
}

static void on_global(void *data, uint32_t id, uint32_t permissions, const char *type, uint32_t version,
                      const struct spa_dict *props) {
    (void)permissions; (void)version;
    struct enumeration *e = data;
    if (strcmp(type, PW_TYPE_INTERFACE_Node) == 0 && id == e->node_id) {
        e->node_seen = 1;
    } else if (props && strcmp(type, PW_TYPE_INTERFACE_Port) == 0 && e->port_id == SPA_ID_INVALID) {
        const char *node = spa_dict_lookup(props, PW_KEY_NODE_ID);
        const char *direction = spa_dict_lookup(props, PW_KEY_PORT_DIRECTION);
        if (!node || !direction || strcmp(direction, "out") != 0 || strtoul(node, NULL, 10) != e->node_id) return;
        e->port_id = id;
    } else {
        return;
    }
    ask(e);  // granted late (the portal's connection)
}

static const struct pw_registry_events registry_events = { PW_VERSION_REGISTRY_EVENTS, .global = on_global };

static void on_done(void *data, uint32_t id, int seq) {
    struct enumeration *e = data;
    if (id != PW_ID_CORE) return;
    if (seq == e->registry_seq) {
        // Every global this connection sees now is known.
        e->registry_done = 1;
        ask(e);
        if (!e->port && !e->wait_for_node) { e->done = 1; pw_main_loop_quit(e->loop); }
    } else if (seq == e->params_seq) {
        e->done = 1;
        pw_main_loop_quit(e->loop);
    }
}

static void on_error(void *data, uint32_t id, int seq, int res, const char *message) {
    (void)id; (void)seq; (void)res; (void)message;
    pw_main_loop_quit(((struct enumeration *)data)->loop);
}

static const struct pw_core_events core_events = { PW_VERSION_CORE_EVENTS, .done = on_done, .error = on_error };

static void on_timeout(void *data, uint64_t expirations) {
    (void)expirations;
    pw_main_loop_quit(((struct enumeration *)data)->loop);
}

static void once_init(void) { pw_init(NULL, NULL); }

int rk_pw_camera_formats(int fd, uint32_t node_id, rk_pw_camera_format *formats, int max, int *count, int timeout_ms,
                         char *err, size_t errlen) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, once_init);
    *count = 0;
    struct enumeration e = { .node_id = node_id, .formats = formats, .max = max, .registry_seq = -1, .params_seq = -1,
                           .wait_for_node = fd >= 0, .port_id = SPA_ID_INVALID };
    e.loop = pw_main_loop_new(NULL);
    if (!e.loop) { if (fd >= 0) close(fd); snprintf(err, errlen, "cannot create a PipeWire loop"); return -ENOMEM; }
    struct pw_context *context = pw_context_new(pw_main_loop_get_loop(e.loop), NULL, 0);
    if (!context) { if (fd >= 0) close(fd); pw_main_loop_destroy(e.loop); snprintf(err, errlen, "cannot create a PipeWire context"); return -ENOMEM; }
    e.core = fd >= 0 ? pw_context_connect_fd(context, fd, NULL, 0) : pw_context_connect(context, NULL, 0);
    if (!e.core) {
        int r = errno ? errno : ECONNREFUSED;
        snprintf(err, errlen, "cannot connect to PipeWire (%s)", strerror(r));
        pw_context_destroy(context);
        pw_main_loop_destroy(e.loop);
        return -r;
    }
    struct spa_hook core_listener, registry_listener;
    spa_zero(core_listener);
    spa_zero(registry_listener);
    spa_zero(e.port_listener);
    pw_core_add_listener(e.core, &core_listener, &core_events, &e);
    e.registry = pw_core_get_registry(e.core, PW_VERSION_REGISTRY, 0);
    pw_registry_add_listener(e.registry, &registry_listener, &registry_events, &e);
    e.registry_seq = pw_core_sync(e.core, PW_ID_CORE, 0);
    struct spa_source *timer = pw_loop_add_timer(pw_main_loop_get_loop(e.loop), on_timeout, &e);
    struct timespec value = { .tv_sec = timeout_ms / 1000, .tv_nsec = (long)(timeout_ms % 1000) * 1000000 };
    pw_loop_update_timer(pw_main_loop_get_loop(e.loop), timer, &value, NULL, false);
    pw_main_loop_run(e.loop);
    int result = 0;
    if (!e.done && !(e.registry_done && !e.port)) { result = -ETIMEDOUT; snprintf(err, errlen, "PipeWire did not answer within %d ms", timeout_ms); }
    else if (!e.port) { result = -ENOENT; snprintf(err, errlen, "node %u is not seen by this connection", node_id); }
    *count = e.count;
    pw_loop_destroy_source(pw_main_loop_get_loop(e.loop), timer);
    if (e.port) { spa_hook_remove(&e.port_listener); pw_proxy_destroy(e.port); }
    spa_hook_remove(&registry_listener);
    spa_hook_remove(&core_listener);
    pw_proxy_destroy((struct pw_proxy *)e.registry);
    pw_core_disconnect(e.core);
    pw_context_destroy(context);
    pw_main_loop_destroy(e.loop);
    return result;
}
