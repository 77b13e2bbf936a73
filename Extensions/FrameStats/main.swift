import RecordKitExtensionSDK

RecordKitExtension.run(FrameStatsHandler())
