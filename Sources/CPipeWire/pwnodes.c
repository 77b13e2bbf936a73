// The Video/Source nodes of PipeWire's registry (see rk_pipewire.h): one connection, one
// round trip, on a main loop of its own.
#define _GNU_SOURCE
#include "rk_pipewire.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <pipewire/pipewire.h>

struct listing {
    struct pw_main_loop *loop;
    struct pw_core *core;
    rk_pw_node *nodes;
    int max, count, seq, done;
    // Through the Camera portal: the session manager grants the portal's connection its cameras
    // a moment after the portal handed it out, so an empty first answer waits for them.
    int wait_for_nodes;
};

static void copy_prop(char *dst, size_t len, const struct spa_dict *props, const char *key) {
    const char *v = spa_dict_lookup(props, key);
    snprintf(dst, len, "%s", v ? v : "");
}

static void on_global(void *data, uint32_t id, uint32_t permissions, const char *type, uint32_t version,
                      const struct spa_dict *props) {
    (void)permissions; (void)version;
    struct listing *l = data;
    if (!props || strcmp(type, PW_TYPE_INTERFACE_Node) != 0) return;
    const char *cls = spa_dict_lookup(props, PW_KEY_MEDIA_CLASS);
    if (!cls || strcmp(cls, "Video/Source") != 0 || l->count >= l->max) return;
    rk_pw_node *n = &l->nodes[l->count++];
    n->id = id;
    copy_prop(n->name, sizeof(n->name), props, PW_KEY_NODE_NAME);
    copy_prop(n->description, sizeof(n->description), props, PW_KEY_NODE_DESCRIPTION);
    if (!n->description[0]) copy_prop(n->description, sizeof(n->description), props, PW_KEY_NODE_NICK);
    copy_prop(n->role, sizeof(n->role), props, PW_KEY_MEDIA_ROLE);
    copy_prop(n->api, sizeof(n->api), props, "device.api");
    if (l->done && l->wait_for_nodes) pw_main_loop_quit(l->loop);
}

static const struct pw_registry_events registry_events = { PW_VERSION_REGISTRY_EVENTS, .global = on_global };

static void on_done(void *data, uint32_t id, int seq) {
    struct listing *l = data;
    if (id == PW_ID_CORE && seq == l->seq) {
        l->done = 1;
        if (!l->wait_for_nodes || l->count > 0) pw_main_loop_quit(l->loop);
    }
}

static void on_error(void *data, uint32_t id, int seq, int res, const char *message) {
    (void)id; (void)seq; (void)res; (void)message;
    struct listing *l = data;
    pw_main_loop_quit(l->loop);
}

static const struct pw_core_events core_events = { PW_VERSION_CORE_EVENTS, .done = on_done, .error = on_error };

static void on_timeout(void *data, uint64_t expirations) {
    (void)expirations;
    pw_main_loop_quit(((struct listing *)data)->loop);
}

static void once_init(void) { pw_init(NULL, NULL); }

int rk_pw_list_video_sources(rk_pw_node *nodes, int max, int *count, int timeout_ms, char *err, size_t errlen) {
    return rk_pw_list_video_sources_fd(-1, nodes, max, count, timeout_ms, err, errlen);
}

int rk_pw_list_video_sources_fd(int fd, rk_pw_node *nodes, int max, int *count, int timeout_ms, char *err, size_t errlen) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, once_init);
    *count = 0;
    struct listing l = { .nodes = nodes, .max = max, .wait_for_nodes = fd >= 0 };
    l.loop = pw_main_loop_new(NULL);
    if (!l.loop) { if (fd >= 0) close(fd); snprintf(err, errlen, "cannot create a PipeWire loop"); return -ENOMEM; }
    struct pw_context *context = pw_context_new(pw_main_loop_get_loop(l.loop), NULL, 0);
    if (!context) { if (fd >= 0) close(fd); pw_main_loop_destroy(l.loop); snprintf(err, errlen, "cannot create a PipeWire context"); return -ENOMEM; }
    l.core = fd >= 0 ? pw_context_connect_fd(context, fd, NULL, 0) : pw_context_connect(context, NULL, 0);
    if (!l.core) {
        int e = errno ? errno : ECONNREFUSED;
        snprintf(err, errlen, "cannot connect to PipeWire (%s): is a PipeWire daemon running for this user?", strerror(e));
        pw_context_destroy(context);
        pw_main_loop_destroy(l.loop);
        return -e;
    }
    struct spa_hook core_listener, registry_listener;
    spa_zero(core_listener);
    spa_zero(registry_listener);
    pw_core_add_listener(l.core, &core_listener, &core_events, &l);
    struct pw_registry *registry = pw_core_get_registry(l.core, PW_VERSION_REGISTRY, 0);
    pw_registry_add_listener(registry, &registry_listener, &registry_events, &l);
    l.seq = pw_core_sync(l.core, PW_ID_CORE, 0);
    struct spa_source *timer = pw_loop_add_timer(pw_main_loop_get_loop(l.loop), on_timeout, &l);
    struct timespec value = { .tv_sec = timeout_ms / 1000, .tv_nsec = (long)(timeout_ms % 1000) * 1000000 };
    pw_loop_update_timer(pw_main_loop_get_loop(l.loop), timer, &value, NULL, false);
    pw_main_loop_run(l.loop);
    int result = l.done ? 0 : -ETIMEDOUT;  // through the portal: answered, maybe with no camera
    if (!l.done) snprintf(err, errlen, "PipeWire did not answer within %d ms", timeout_ms);
    *count = l.count;
    pw_loop_destroy_source(pw_main_loop_get_loop(l.loop), timer);
    spa_hook_remove(&registry_listener);
    spa_hook_remove(&core_listener);
    pw_proxy_destroy((struct pw_proxy *)registry);
    pw_core_disconnect(l.core);
    pw_context_destroy(context);
    pw_main_loop_destroy(l.loop);
    return result;
}
