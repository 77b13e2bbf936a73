#include "rk_curl.h"

#include <string.h>

CURLcode rk_curl_prepare(CURL *easy, const char *method, const char *url, struct curl_slist *headers,
                         long long body_length, void *context,
                         rk_curl_data_fn on_body, rk_curl_data_fn on_header, rk_curl_data_fn read_body,
                         char *error_buffer, long connect_timeout_seconds, long idle_timeout_seconds,
                         long total_timeout_ms) {
    CURLcode r = CURLE_OK;
#define SET(option, value) do { if ((r = curl_easy_setopt(easy, option, value)) != CURLE_OK) return r; } while (0)
    SET(CURLOPT_URL, url);
    SET(CURLOPT_PROTOCOLS_STR, "http,https");
    SET(CURLOPT_FOLLOWLOCATION, 0L);
    SET(CURLOPT_NOSIGNAL, 1L);
    SET(CURLOPT_ERRORBUFFER, error_buffer);
    SET(CURLOPT_HTTPHEADER, headers);
    SET(CURLOPT_PRIVATE, context);
    SET(CURLOPT_WRITEFUNCTION, on_body);
    SET(CURLOPT_WRITEDATA, context);
    SET(CURLOPT_HEADERFUNCTION, on_header);
    SET(CURLOPT_HEADERDATA, context);
    SET(CURLOPT_CONNECTTIMEOUT, connect_timeout_seconds);
    SET(CURLOPT_LOW_SPEED_LIMIT, 1L);
    SET(CURLOPT_LOW_SPEED_TIME, idle_timeout_seconds);
    SET(CURLOPT_TIMEOUT_MS, total_timeout_ms);
    if (body_length >= 0) {
        SET(CURLOPT_UPLOAD, 1L);
        SET(CURLOPT_INFILESIZE_LARGE, (curl_off_t)body_length);
        SET(CURLOPT_READFUNCTION, read_body);
        SET(CURLOPT_READDATA, context);
    }
    if (strcmp(method, "HEAD") == 0) SET(CURLOPT_NOBODY, 1L);
    else if (strcmp(method, "GET") != 0) SET(CURLOPT_CUSTOMREQUEST, method);
#undef SET
    return r;
}

long rk_curl_response_code(CURL *easy) {
    long code = 0;
    if (curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &code) != CURLE_OK) return 0;
    return code;
}

long rk_curl_os_errno(CURL *easy) {
    long error = 0;
    if (curl_easy_getinfo(easy, CURLINFO_OS_ERRNO, &error) != CURLE_OK) return 0;
    return error;
}

void *rk_curl_multi_next_done(CURLM *multi, CURLcode *result) {
    int left = 0;
    CURLMsg *message;
    while ((message = curl_multi_info_read(multi, &left)) != NULL) {
        if (message->msg != CURLMSG_DONE) continue;
        void *context = NULL;
        curl_easy_getinfo(message->easy_handle, CURLINFO_PRIVATE, &context);
        *result = message->data.result;
        return context;
    }
    return NULL;
}
