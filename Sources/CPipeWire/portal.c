// The ScreenCast portal client (see rk_pipewire.h). Requests follow the portal's Request
// pattern: the request object path is known in advance from the handle_token, the Response
// signal is matched before the call, then the bus is processed until the response arrives.
#define _GNU_SOURCE
#include "rk_pipewire.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>
#include <time.h>
#include <unistd.h>

#define PORTAL_NAME "org.freedesktop.portal.Desktop"
#define PORTAL_PATH "/org/freedesktop/portal/desktop"
#define SCREENCAST_IFACE "org.freedesktop.portal.ScreenCast"
#define CAMERA_IFACE "org.freedesktop.portal.Camera"

struct rk_portal {
    sd_bus *bus;
    char sender[256];
    char session[512];
    unsigned counter;
    int have_response;
    uint32_t response_code;
    sd_bus_message *response;
    sd_bus_slot *closed_slot;
    int closed;
    const char *what;  // the portal's name in messages: "ScreenCast" or "Camera"
};

static void set_err(char *err, size_t len, const char *fmt, const char *detail) {
    if (err && len) snprintf(err, len, fmt, detail ? detail : "");
}

rk_portal *rk_portal_open(char *err, size_t errlen) {
    rk_portal *p = calloc(1, sizeof(*p));
    if (!p) return NULL;
    int r = sd_bus_open_user(&p->bus);
    if (r < 0) {
        set_err(err, errlen, "cannot connect to the session bus (%s): is DBUS_SESSION_BUS_ADDRESS set?", strerror(-r));
        free(p);
        return NULL;
    }
    const char *unique = NULL;
    r = sd_bus_get_unique_name(p->bus, &unique);
    if (r < 0 || !unique) {
        set_err(err, errlen, "the session bus gave no unique name (%s)", strerror(-r));
        sd_bus_flush_close_unref(p->bus);
        free(p);
        return NULL;
    }
    // ":1.42" -> "1_42", as the portal names request and session objects.
    size_t j = 0;
    for (const char *c = unique + 1; *c && j + 1 < sizeof(p->sender); c++) p->sender[j++] = *c == '.' ? '_' : *c;
    p->sender[j] = 0;
    p->what = "ScreenCast";
    return p;
}

int rk_portal_properties(rk_portal *p, uint32_t *source_types, uint32_t *cursor_modes, uint32_t *version,
                         char *err, size_t errlen) {
    sd_bus_error e = SD_BUS_ERROR_NULL;
    int r = sd_bus_get_property_trivial(p->bus, PORTAL_NAME, PORTAL_PATH, SCREENCAST_IFACE, "AvailableSourceTypes", &e, 'u', source_types);
    if (r >= 0) r = sd_bus_get_property_trivial(p->bus, PORTAL_NAME, PORTAL_PATH, SCREENCAST_IFACE, "AvailableCursorModes", &e, 'u', cursor_modes);
    if (r >= 0) r = sd_bus_get_property_trivial(p->bus, PORTAL_NAME, PORTAL_PATH, SCREENCAST_IFACE, "version", &e, 'u', version);
    if (r < 0) set_err(err, errlen, "the ScreenCast portal does not answer (%s): is xdg-desktop-portal running with a backend that offers ScreenCast?",
                       e.message ? e.message : strerror(-r));
    sd_bus_error_free(&e);
    return r < 0 ? r : 0;
}

static int on_response(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
    (void)ret_error;
    rk_portal *p = userdata;
    uint32_t code = 2;
    if (sd_bus_message_read(m, "u", &code) < 0) code = 2;
    if (p->response) sd_bus_message_unref(p->response);
    p->response = sd_bus_message_ref(m);  // positioned at the results a{sv}
    p->response_code = code;
    p->have_response = 1;
    return 0;
}

static int on_closed(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
    (void)m; (void)ret_error;
    ((rk_portal *)userdata)->closed = 1;
    return 0;
}

static int64_t now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

// Calls `method` with the message `m` already holding every argument but the options' closing
// and the handle token; waits for the Response. 0 on success (p->response holds the results).
static int call_request(rk_portal *p, sd_bus_message *m, const char *method, const char *token, int timeout_ms,
                        char *err, size_t errlen) {
    char path[768];
    snprintf(path, sizeof(path), "/org/freedesktop/portal/desktop/request/%s/%s", p->sender, token);
    sd_bus_slot *slot = NULL;
    int r = sd_bus_match_signal(p->bus, &slot, PORTAL_NAME, path, "org.freedesktop.portal.Request", "Response", on_response, p);
    if (r < 0) {
        set_err(err, errlen, "cannot watch the portal's response (%s)", strerror(-r));
        return r;
    }
    p->have_response = 0;
    sd_bus_error e = SD_BUS_ERROR_NULL;
    sd_bus_message *reply = NULL;
    r = sd_bus_call(p->bus, m, (uint64_t)timeout_ms * 1000, &e, &reply);
    char detail[640];
    if (r < 0) {
        snprintf(detail, sizeof(detail), "the %s portal refused %s: %s", p->what, method, e.message ? e.message : strerror(-r));
        set_err(err, errlen, "%s", detail);
        sd_bus_error_free(&e);
        sd_bus_slot_unref(slot);
        return r;
    }
    sd_bus_message_unref(reply);
    int64_t deadline = now_ms() + timeout_ms;
    while (!p->have_response) {
        r = sd_bus_process(p->bus, NULL);
        if (r < 0) break;
        if (r > 0) continue;
        int64_t left = deadline - now_ms();
        if (left <= 0) { r = -ETIMEDOUT; break; }
        r = sd_bus_wait(p->bus, (uint64_t)left * 1000);
        if (r < 0) break;
    }
    sd_bus_slot_unref(slot);
    if (!p->have_response) {
        if (r == -ETIMEDOUT) snprintf(detail, sizeof(detail), "the %s portal did not answer %s in time", p->what, method);
        else snprintf(detail, sizeof(detail), "the session bus failed during %s", method);
        set_err(err, errlen, "%s", detail);
        return r == -ETIMEDOUT ? -ETIMEDOUT : (r < 0 ? r : -EIO);
    }
    if (p->response_code == 1) {
        snprintf(detail, sizeof(detail), "the %s portal cancelled %s (the user declined, or the portal found nothing to offer)", p->what, method);
        set_err(err, errlen, "%s", detail);
        return -ECANCELED;
    }
    if (p->response_code != 0) {
        snprintf(detail, sizeof(detail), "the %s portal refused %s", p->what, method);
        set_err(err, errlen, "%s", detail);
        return -EPERM;
    }
    return 0;
}

static void next_token(rk_portal *p, char *token, size_t len) {
    snprintf(token, len, "recordkit%d_%u", (int)getpid(), ++p->counter);
}

// Reads a{sv} results: session_handle, restore_token, streams.
static int read_results(rk_portal *p, rk_portal_stream *streams, int max_streams, int *count, char *token_out, size_t token_len) {
    sd_bus_message *m = p->response;
    int r = sd_bus_message_enter_container(m, 'a', "{sv}");
    if (r < 0) return r;
    while ((r = sd_bus_message_enter_container(m, 'e', "sv")) > 0) {
        const char *key = NULL;
        if ((r = sd_bus_message_read(m, "s", &key)) < 0) return r;
        if (strcmp(key, "session_handle") == 0) {
            const char *s = NULL;
            // A string ("s") from xdg-desktop-portal 1.x; an object path in some versions.
            if (sd_bus_message_read(m, "v", "s", &s) < 0 && sd_bus_message_read(m, "v", "o", &s) < 0) return -EBADMSG;
            if (s) snprintf(p->session, sizeof(p->session), "%s", s);
        } else if (strcmp(key, "restore_token") == 0 && token_out) {
            const char *s = NULL;
            if ((r = sd_bus_message_read(m, "v", "s", &s)) < 0) return r;
            if (s) snprintf(token_out, token_len, "%s", s);
        } else if (strcmp(key, "streams") == 0 && streams) {
            if ((r = sd_bus_message_enter_container(m, 'v', "a(ua{sv})")) < 0) return r;
            if ((r = sd_bus_message_enter_container(m, 'a', "(ua{sv})")) < 0) return r;
            while ((r = sd_bus_message_enter_container(m, 'r', "ua{sv}")) > 0) {
                rk_portal_stream s = { .x = INT32_MIN, .y = INT32_MIN };
                if ((r = sd_bus_message_read(m, "u", &s.node_id)) < 0) return r;
                if ((r = sd_bus_message_enter_container(m, 'a', "{sv}")) < 0) return r;
                while ((r = sd_bus_message_enter_container(m, 'e', "sv")) > 0) {
                    const char *k = NULL;
                    if ((r = sd_bus_message_read(m, "s", &k)) < 0) return r;
                    if (strcmp(k, "position") == 0) r = sd_bus_message_read(m, "v", "(ii)", &s.x, &s.y);
                    else if (strcmp(k, "size") == 0) r = sd_bus_message_read(m, "v", "(ii)", &s.width, &s.height);
                    else if (strcmp(k, "source_type") == 0) r = sd_bus_message_read(m, "v", "u", &s.source_type);
                    else r = sd_bus_message_skip(m, "v");
                    if (r < 0) return r;
                    if ((r = sd_bus_message_exit_container(m)) < 0) return r;
                }
                if (r < 0) return r;
                if ((r = sd_bus_message_exit_container(m)) < 0) return r;  // a{sv}
                if ((r = sd_bus_message_exit_container(m)) < 0) return r;  // struct
                if (*count < max_streams) streams[(*count)++] = s;
            }
            if (r < 0) return r;
            if ((r = sd_bus_message_exit_container(m)) < 0) return r;  // array
            if ((r = sd_bus_message_exit_container(m)) < 0) return r;  // variant
        } else {
            if ((r = sd_bus_message_skip(m, "v")) < 0) return r;
        }
        if ((r = sd_bus_message_exit_container(m)) < 0) return r;
    }
    if (r < 0) return r;
    return sd_bus_message_exit_container(m);
}

#define CHECK(expr) do { r = (expr); if (r < 0) { set_err(err, errlen, "cannot build a portal request (%s)", strerror(-r)); goto fail; } } while (0)

int rk_portal_start(rk_portal *p, uint32_t types, uint32_t cursor_mode, uint32_t persist_mode,
                    const char *restore_token, int timeout_ms,
                    rk_portal_stream *streams, int max_streams, int *count,
                    char *token_out, size_t token_len, char *err, size_t errlen) {
    int r;
    char token[64], session_token[64];
    sd_bus_message *m = NULL;
    *count = 0;
    if (token_out && token_len) token_out[0] = 0;

    // CreateSession
    next_token(p, token, sizeof(token));
    next_token(p, session_token, sizeof(session_token));
    CHECK(sd_bus_message_new_method_call(p->bus, &m, PORTAL_NAME, PORTAL_PATH, SCREENCAST_IFACE, "CreateSession"));
    CHECK(sd_bus_message_append(m, "a{sv}", 2, "handle_token", "s", token, "session_handle_token", "s", session_token));
    r = call_request(p, m, "CreateSession", token, timeout_ms, err, errlen);
    m = sd_bus_message_unref(m);
    if (r < 0) return r;
    if ((r = read_results(p, NULL, 0, count, NULL, 0)) < 0 || !p->session[0]) {
        set_err(err, errlen, "the ScreenCast portal's CreateSession gave no session%s", "");
        return r < 0 ? r : -EBADMSG;
    }
    sd_bus_match_signal(p->bus, &p->closed_slot, PORTAL_NAME, p->session, "org.freedesktop.portal.Session", "Closed", on_closed, p);

    // SelectSources
    next_token(p, token, sizeof(token));
    CHECK(sd_bus_message_new_method_call(p->bus, &m, PORTAL_NAME, PORTAL_PATH, SCREENCAST_IFACE, "SelectSources"));
    CHECK(sd_bus_message_append(m, "o", p->session));
    CHECK(sd_bus_message_open_container(m, 'a', "{sv}"));
    CHECK(sd_bus_message_append(m, "{sv}", "handle_token", "s", token));
    CHECK(sd_bus_message_append(m, "{sv}", "types", "u", types));
    CHECK(sd_bus_message_append(m, "{sv}", "multiple", "b", 0));
    CHECK(sd_bus_message_append(m, "{sv}", "cursor_mode", "u", cursor_mode));
    CHECK(sd_bus_message_append(m, "{sv}", "persist_mode", "u", persist_mode));
    if (restore_token && restore_token[0]) CHECK(sd_bus_message_append(m, "{sv}", "restore_token", "s", restore_token));
    CHECK(sd_bus_message_close_container(m));
    r = call_request(p, m, "SelectSources", token, timeout_ms, err, errlen);
    m = sd_bus_message_unref(m);
    if (r < 0) return r;

    // Start
    next_token(p, token, sizeof(token));
    CHECK(sd_bus_message_new_method_call(p->bus, &m, PORTAL_NAME, PORTAL_PATH, SCREENCAST_IFACE, "Start"));
    CHECK(sd_bus_message_append(m, "os", p->session, ""));
    CHECK(sd_bus_message_append(m, "a{sv}", 1, "handle_token", "s", token));
    r = call_request(p, m, "Start", token, timeout_ms, err, errlen);
    m = sd_bus_message_unref(m);
    if (r < 0) return r;
    if ((r = read_results(p, streams, max_streams, count, token_out, token_len)) < 0) {
        set_err(err, errlen, "the ScreenCast portal's Start answer is malformed (%s)", strerror(-r));
        return r;
    }
    if (*count == 0) { set_err(err, errlen, "the ScreenCast portal started no stream%s", ""); return -ENODEV; }
    return 0;
fail:
    sd_bus_message_unref(m);
    return r;
}

int rk_portal_open_pipewire_remote(rk_portal *p, char *err, size_t errlen) {
    sd_bus_error e = SD_BUS_ERROR_NULL;
    sd_bus_message *reply = NULL;
    int r = sd_bus_call_method(p->bus, PORTAL_NAME, PORTAL_PATH, SCREENCAST_IFACE, "OpenPipeWireRemote", &e, &reply,
                               "oa{sv}", p->session, 0);
    if (r < 0) {
        set_err(err, errlen, "OpenPipeWireRemote failed: %s", e.message ? e.message : strerror(-r));
        sd_bus_error_free(&e);
        return r;
    }
    int fd = -1;
    r = sd_bus_message_read(reply, "h", &fd);
    int copy = r < 0 ? r : fcntl(fd, F_DUPFD_CLOEXEC, 3);
    if (copy < 0) { r = r < 0 ? r : -errno; set_err(err, errlen, "OpenPipeWireRemote gave no usable descriptor (%s)", strerror(-r)); copy = r; }
    sd_bus_message_unref(reply);
    return copy;
}

int rk_portal_poll_closed(rk_portal *p) {
    if (p->closed) return 1;
    int r;
    while ((r = sd_bus_process(p->bus, NULL)) > 0) {}
    if (r < 0 && r != -EBUSY) p->closed = 1;  // the connection is gone (ECONNRESET, ENOTCONN)
    return p->closed;
}

void rk_portal_close(rk_portal *p) {
    if (!p) return;
    if (p->session[0] && !p->closed) {
        // Bounded: a portal stuck on a dead backend must not hold up the end of a recording
        // (closing the connection below ends the session anyway).
        sd_bus_message *m = NULL;
        if (sd_bus_message_new_method_call(p->bus, &m, PORTAL_NAME, p->session, "org.freedesktop.portal.Session", "Close") >= 0) {
            sd_bus_error e = SD_BUS_ERROR_NULL;
            sd_bus_call(p->bus, m, 2 * 1000 * 1000, &e, NULL);
            sd_bus_error_free(&e);
            sd_bus_message_unref(m);
        }
    }
    sd_bus_slot_unref(p->closed_slot);
    if (p->response) sd_bus_message_unref(p->response);
    sd_bus_flush_close_unref(p->bus);
    free(p);
}

// MARK: The Camera portal

int rk_portal_camera_access(rk_portal *p, int timeout_ms, char *err, size_t errlen) {
    uint32_t version = 0;
    sd_bus_error e = SD_BUS_ERROR_NULL;
    // Only a running portal: asking an absent one would have D-Bus start xdg-desktop-portal.
    int owned = 0, r;
    sd_bus_message *owner = NULL;
    if (sd_bus_call_method(p->bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "NameHasOwner",
                                     &e, &owner, "s", PORTAL_NAME) >= 0) {
        if (sd_bus_message_read(owner, "b", &owned) < 0) owned = 0;
        sd_bus_message_unref(owner);
    }
    sd_bus_error_free(&e);
    if (!owned) {
        set_err(err, errlen, "no Camera portal answers (%s is not running)", PORTAL_NAME);
        return -ENOENT;
    }
    r = sd_bus_get_property_trivial(p->bus, PORTAL_NAME, PORTAL_PATH, CAMERA_IFACE, "version", &e, 'u', &version);
    if (r < 0) {
        set_err(err, errlen, "no Camera portal answers (%s)", e.message ? e.message : strerror(-r));
        sd_bus_error_free(&e);
        return -ENOENT;
    }
    p->what = "Camera";
    char token[64];
    sd_bus_message *m = NULL;
    next_token(p, token, sizeof(token));
    CHECK(sd_bus_message_new_method_call(p->bus, &m, PORTAL_NAME, PORTAL_PATH, CAMERA_IFACE, "AccessCamera"));
    CHECK(sd_bus_message_append(m, "a{sv}", 1, "handle_token", "s", token));
    r = call_request(p, m, "AccessCamera", token, timeout_ms, err, errlen);
fail:
    sd_bus_message_unref(m);
    return r;
}

int rk_portal_camera_open_remote(rk_portal *p, char *err, size_t errlen) {
    sd_bus_error e = SD_BUS_ERROR_NULL;
    sd_bus_message *reply = NULL;
    int r = sd_bus_call_method(p->bus, PORTAL_NAME, PORTAL_PATH, CAMERA_IFACE, "OpenPipeWireRemote", &e, &reply, "a{sv}", 0);
    if (r < 0) {
        set_err(err, errlen, "the Camera portal's OpenPipeWireRemote failed: %s", e.message ? e.message : strerror(-r));
        sd_bus_error_free(&e);
        return r;
    }
    int fd = -1;
    r = sd_bus_message_read(reply, "h", &fd);
    int copy = r < 0 ? r : fcntl(fd, F_DUPFD_CLOEXEC, 3);
    if (copy < 0) { r = r < 0 ? r : -errno; set_err(err, errlen, "the Camera portal gave no usable descriptor (%s)", strerror(-r)); copy = r; }
    sd_bus_message_unref(reply);
    return copy;
}
