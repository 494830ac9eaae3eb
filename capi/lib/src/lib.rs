//! `libslog2.so` / `libslog2.a`: every `extern "C"` function of
//! [`slog2_capi`] (TRACE-API and SLOG2 API), exported as C libraries.
//!
//! Nothing lives here: linking the crate is what exports its `#[no_mangle]`
//! functions. The headers are `include/slog2.h` and `include/trace_API.h`.

extern crate slog2_capi;
