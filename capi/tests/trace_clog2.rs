//! TRACE_Open on a CLOG2 log: the C ABI picks the CLOG2 source.

mod common;
use common::fixture;

#[test]
fn trace_open_reads_clog2_through_the_c_abi() {
    use slog2_capi::trace::{
        TRACE_Close, TRACE_Open, TRACE_Peek_next_kind, TRACE_Rec_Kind_t, TRACE_file,
    };
    let path =
        std::ffi::CString::new(fixture("clog2/user_states.clog2").to_str().unwrap()).unwrap();
    let mut fp: TRACE_file = std::ptr::null_mut();
    // SAFETY: valid C string and out-pointers, handle closed below.
    unsafe {
        assert_eq!(TRACE_Open(path.as_ptr(), &mut fp), 0);
        assert!(!fp.is_null());
        let mut kind = TRACE_Rec_Kind_t::TRACE_EOF;
        assert_eq!(TRACE_Peek_next_kind(fp, &mut kind), 0);
        // The arrow category comes first, as in the reference converter.
        assert_eq!(kind, TRACE_Rec_Kind_t::TRACE_CATEGORY);
        assert_eq!(TRACE_Close(&mut fp), 0);
    }
}
