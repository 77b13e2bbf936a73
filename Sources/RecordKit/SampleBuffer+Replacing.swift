extension SampleBuffer {
    /// This sample with the named fields replaced and every other one kept, ``frameInfo``
    /// included; the payload's memory is shared, never copied. The one way the recorder and the
    /// handlers derive a sample from another (retimed, relabelled, a packet rewritten), so that a
    /// field added to ``SampleBuffer`` later cannot be dropped by one of several copies.
    public func replacing(type: SampleBufferType? = nil, presentationTime: MediaTime? = nil, duration: MediaTime? = nil,
                          payload: Payload? = nil) -> SampleBuffer {
        SampleBuffer(type: type ?? self.type, presentationTime: presentationTime ?? self.presentationTime,
                     duration: duration ?? self.duration, formatDescription: formatDescription,
                     payload: payload ?? self.payload, frameInfo: frameInfo)
    }
}

extension EncodedPacket {
    /// This packet with its bytes or its decode time replaced; whether it is a key frame and
    /// which encoder made it are kept.
    public func replacing(data: MediaBuffer? = nil, decodeTime: MediaTime? = nil) -> EncodedPacket {
        EncodedPacket(data: data ?? self.data, decodeTime: decodeTime ?? self.decodeTime, isKeyFrame: isKeyFrame, encoderID: encoderID)
    }
}
