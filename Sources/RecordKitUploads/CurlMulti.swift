import CCurl

/// libcurl's multi handle with the requests it runs: the state behind ``HTTPTransport``'s
/// lock. Moves every request in flight whenever one is waited for, on the waiting thread.
final class CurlMulti {
    /// libcurl's process-wide setup, once, before the first handle.
    private static let initialized: Bool = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK

    private var multi: UnsafeMutableRawPointer?
    /// The requests in flight, which libcurl knows only by pointer: kept alive here.
    private var running: [ObjectIdentifier: PendingHTTPRequest] = [:]

    init() {
        multi = Self.initialized ? curl_multi_init() : nil
    }

    deinit { close() }

    /// Hands `request` to libcurl (or ends it at once when libcurl refuses it or the transport is closed).
    func add(_ request: PendingHTTPRequest, url: String, timeout: Int?) {
        guard let multi else { return request.end(CURLE_FAILED_INIT) }
        guard let easy = request.makeHandle(url: url, connectTimeout: HTTPTransport.connectTimeout,
                                            idleTimeout: HTTPTransport.idleTimeout, timeout: timeout) else { return }
        guard curl_multi_add_handle(multi, easy) == CURLM_OK else { return request.end(CURLE_FAILED_INIT) }
        running[ObjectIdentifier(request)] = request
    }

    /// Moves every request until `request` has ended.
    func run(until request: PendingHTTPRequest) {
        while !request.isDone, let multi {
            var stillRunning: Int32 = 0
            let performed = curl_multi_perform(multi, &stillRunning)
            var code = CURLE_OK
            while let context = rk_curl_multi_next_done(multi, &code) {
                finish(Unmanaged<PendingHTTPRequest>.fromOpaque(context).takeUnretainedValue(), code)
            }
            if request.isDone { return }
            guard performed == CURLM_OK else { return close() }
            // Wakes when a socket is ready or libcurl's next timer is due, at most a second later.
            _ = curl_multi_poll(multi, nil, 0, 1000, nil)
        }
        if !request.isDone { request.end(CURLE_FAILED_INIT) }
    }

    private func finish(_ request: PendingHTTPRequest, _ code: CURLcode) {
        if let multi, let easy = request.easy { curl_multi_remove_handle(multi, easy) }
        request.end(code)
        running[ObjectIdentifier(request)] = nil
    }

    /// Ends every request in flight and frees the multi handle.
    func close() {
        for request in running.values { finish(request, CURLE_ABORTED_BY_CALLBACK) }
        if let multi { curl_multi_cleanup(multi) }
        multi = nil
    }
}
