// The system's libcurl (Debian: libcurl4-openssl-dev) for RecordKitUploads' HTTPTransport.
// curl_easy_setopt, curl_easy_getinfo and curl_multi_setopt are variadic, which Swift cannot
// call, so a request's options are set here in one call.
#ifndef RK_CURL_H
#define RK_CURL_H

#include <curl/curl.h>

/// A libcurl data callback (write, header or read): `count` items of `size` bytes at `buffer`;
/// returns the bytes handled (read: the bytes put in `buffer`, or CURL_READFUNC_ABORT).
typedef size_t (*rk_curl_data_fn)(char *buffer, size_t size, size_t count, void *context);

/// Sets every option of one request on `easy`: `method` (GET, HEAD, PUT, POST, PATCH, DELETE),
/// `url`, `headers` (kept by the caller until the request ends), a body of `body_length` bytes
/// read through `read_body` (-1: no body), `context` passed to the callbacks and kept as the
/// handle's private pointer, `error_buffer` of CURL_ERROR_SIZE bytes, a connect timeout, an
/// idle timeout (no byte either way for that long ends the request) and a total timeout in
/// milliseconds (0: none). Redirects are never followed; only http and https are allowed.
CURLcode rk_curl_prepare(CURL *easy, const char *method, const char *url, struct curl_slist *headers,
                         long long body_length, void *context,
                         rk_curl_data_fn on_body, rk_curl_data_fn on_header, rk_curl_data_fn read_body,
                         char *error_buffer, long connect_timeout_seconds, long idle_timeout_seconds,
                         long total_timeout_ms);

/// The last response's HTTP status code (0 when none arrived).
long rk_curl_response_code(CURL *easy);

/// The operating system's errno of the last failed connect or transfer (0: none).
long rk_curl_os_errno(CURL *easy);

/// The next finished transfer of `multi`: its private pointer and, in `result`, its code; NULL
/// when no transfer has finished since the last call.
void *rk_curl_multi_next_done(CURLM *multi, CURLcode *result);

#endif
