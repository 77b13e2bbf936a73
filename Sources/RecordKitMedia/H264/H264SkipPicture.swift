/// Writes a picture that repeats a reference picture exactly, at almost no cost: one P slice
/// whose every macroblock is P_Skip (ITU-T H.264 7.3.4: `mb_skip_run` = PicSizeInMbs). With all
/// neighbours skipped, P_Skip predicts motion vector 0 from reference index 0 (8.4.1.1), and the
/// slice reorders its list so that index 0 is the picture to repeat; no residual, deblocking off,
/// default weights: the decoded picture is a copy of that reference.
///
/// The slice names its own picture parameter set (``pictureParameterSet(sps:)``: CAVLC, one
/// active reference, no weighted prediction), which goes into the stream's `avcC` beside the
/// encoder's. The picture is not a reference (`nal_ref_idc` 0), so the encoder's own reference
/// bookkeeping (frame_num, sliding window, MMCO) is untouched.
struct H264SkipPicture {
    let sps: H264SequenceParameters
    /// The id of ``pictureParameterSet(sps:)``'s PPS, which no encoder PPS uses.
    let ppsID: Int

    /// The PPS the skip slices use (NAL unit with header byte, emulation prevention applied).
    func pictureParameterSet() -> [UInt8] {
        var w = H264BitWriter()
        w.ue(ppsID)
        w.ue(sps.id)
        w.bit(0)   // entropy_coding_mode_flag: CAVLC
        w.bit(0)   // bottom_field_pic_order_in_frame_present_flag
        w.ue(0)    // num_slice_groups_minus1
        w.ue(0)    // num_ref_idx_l0_default_active_minus1
        w.ue(0)    // num_ref_idx_l1_default_active_minus1
        w.bit(0)   // weighted_pred_flag
        w.bits(0, 2)  // weighted_bipred_idc
        w.se(0)    // pic_init_qp_minus26
        w.se(0)    // pic_init_qs_minus26
        w.se(0)    // chroma_qp_index_offset
        w.bit(1)   // deblocking_filter_control_present_flag
        w.bit(0)   // constrained_intra_pred_flag
        w.bit(0)   // redundant_pic_cnt_present_flag
        w.trailingBits()
        return [0x68] + H264RBSP.escaped(w.bytes)  // nal_ref_idc 3, type 8
    }

    /// One non-reference P slice NAL unit (header byte included, emulation prevention applied)
    /// that repeats the short-term reference picture whose `frame_num` is `referenceFrameNum`.
    ///
    /// `frameNum` is (PrevRefFrameNum + 1) mod MaxFrameNum: the `frame_num` after the last
    /// reference picture in decode order (7.4.3). `pocLsb` is the picture's POC modulo
    /// MaxPicOrderCntLsb.
    func slice(frameNum: Int, pocLsb: Int, referenceFrameNum: Int) -> [UInt8] {
        var w = H264BitWriter()
        w.ue(0)                            // first_mb_in_slice
        w.ue(0)                            // slice_type: P
        w.ue(ppsID)                        // pic_parameter_set_id
        w.bits(frameNum & (sps.maxFrameNum - 1), sps.log2MaxFrameNum)
        w.bits(pocLsb & (sps.maxPocLsb - 1), sps.log2MaxPocLsb)
        w.bit(0)                           // num_ref_idx_active_override_flag
        // ref_pic_list_modification: make index 0 the repeated picture (8.2.4.3.1), whatever
        // reference (a B-pyramid's reference B) was decoded after it.
        w.bit(1)                           // ref_pic_list_modification_flag_l0
        let distance = (frameNum - referenceFrameNum + sps.maxFrameNum) % sps.maxFrameNum
        precondition(distance > 0, "H264SkipPicture: the repeated picture has the skip's own frame_num")
        w.ue(0)                            // modification_of_pic_nums_idc: subtract
        w.ue(distance - 1)                 // abs_diff_pic_num_minus1
        w.ue(3)                            // end of the list's modifications
        w.se(0)                            // slice_qp_delta
        w.ue(1)                            // disable_deblocking_filter_idc: off
        w.ue(sps.macroblocksPerFrame)      // slice_data: mb_skip_run over the whole picture
        w.trailingBits()
        return [0x01] + H264RBSP.escaped(w.bytes)  // nal_ref_idc 0, type 1
    }
}
